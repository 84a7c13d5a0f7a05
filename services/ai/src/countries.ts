/** ISO 3166-1 alpha-2 codes and the names people write for them: a stored `US` is found by "United States" and back. */
export const COUNTRIES: Record<string, string[]> = {
  US: ['united states', 'usa', 'u.s.', 'america', 'the us', 'the states'],
  GB: ['united kingdom', 'uk', 'great britain', 'britain', 'england'],
  DE: ['germany', 'deutschland'],
  FR: ['france'],
  ES: ['spain'],
  IT: ['italy'],
  NL: ['netherlands', 'holland'],
  BE: ['belgium'],
  CH: ['switzerland'],
  AT: ['austria'],
  SE: ['sweden'],
  NO: ['norway'],
  DK: ['denmark'],
  FI: ['finland'],
  PL: ['poland'],
  PT: ['portugal'],
  IE: ['ireland'],
  CZ: ['czechia', 'czech republic'],
  GR: ['greece'],
  RU: ['russia'],
  UA: ['ukraine'],
  TR: ['turkey'],
  CA: ['canada'],
  MX: ['mexico'],
  BR: ['brazil'],
  AR: ['argentina'],
  CL: ['chile'],
  CO: ['colombia'],
  IN: ['india'],
  CN: ['china'],
  JP: ['japan'],
  KR: ['south korea', 'korea'],
  SG: ['singapore'],
  ID: ['indonesia'],
  AU: ['australia'],
  NZ: ['new zealand'],
  ZA: ['south africa'],
  NG: ['nigeria'],
  EG: ['egypt'],
  IL: ['israel'],
  AE: ['united arab emirates', 'uae'],
};

const BY_NAME = new Map(Object.entries(COUNTRIES).flatMap(([code, names]) => names.map((name) => [name, code] as const)));

/**
 * Other ways to write a stored value that names a country: its names for an ISO code, the code and the other names for a
 * name. Codes are matched as written in capitals only (`US`, `IN`, `IT` are also words).
 */
export function countryAliases(value: string): { names: string[]; code?: string } {
  const upper = value.toUpperCase();
  if (value.length === 2 && COUNTRIES[upper]) return { names: COUNTRIES[upper]!, code: upper };
  const code = BY_NAME.get(value.toLowerCase());
  if (code) return { names: COUNTRIES[code]!.filter((name) => name !== value.toLowerCase()), code };
  return { names: [] };
}
