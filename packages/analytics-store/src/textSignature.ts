/**
 * A text's trigram signature: 53 bits, one set for each run of three characters of its lower-case form (a Bloom
 * filter of its trigrams, one hash). Text that contains a phrase holds every trigram of the phrase, so a row whose
 * signature lacks one of the phrase's bits cannot match it: full-text search checks the signature, which costs a
 * few nanoseconds a row, before the substring test, which lower-cases and scans the whole text
 * (docs/performance.md "Full text: trigram signatures, newest slice first").
 *
 * Only ASCII text is hashed: `lower()` in the store and `toLowerCase()` here agree on ASCII letters, and a text with
 * any other character gets every bit set, so it is always tested by the scan itself. The same signature is defined
 * in SQL (textSignatureSql) for rows written by SQL, and a test keeps the two equal.
 */

/**
 * Bits of a signature: as many as a JavaScript number holds exactly, so a signature travels as a plain JSON number
 * (no BigInt to build, no text to parse) and DuckDB stores it as a UBIGINT.
 */
const BITS = 53;

/** Every bit set: a text that is always tested by the scan. */
export const ALL_TRIGRAMS = 2 ** BITS - 1;

/** 2^32 / golden ratio: a multiplicative hash, whose low 32 bits modulo BITS pick the trigram's bit. */
const MULTIPLIER = 0x9e3779b1;

/** The bit of the trigram `a b c` (character codes below 128). */
function trigramBit(a: number, b: number, c: number): number {
  return (Math.imul((a << 14) | (b << 7) | c, MULTIPLIER) >>> 0) % BITS;
}

const lowerAscii = (code: number): number => (code >= 65 && code <= 90 ? code + 32 : code);

/** The signature of a stored text. */
export function textSignature(text: string): number {
  if (text.length < 3) return text.length > 0 && (text.charCodeAt(0) > 127 || text.charCodeAt(text.length - 1) > 127) ? ALL_TRIGRAMS : 0;
  let low = 0;
  let high = 0;
  let a = text.charCodeAt(0);
  let b = text.charCodeAt(1);
  if (a > 127 || b > 127) return ALL_TRIGRAMS;
  a = lowerAscii(a);
  b = lowerAscii(b);
  // One pass, each character read once: the writer signs every log it stores.
  for (let index = 2; index < text.length; index++) {
    const read = text.charCodeAt(index);
    if (read > 127) return ALL_TRIGRAMS;
    const c = lowerAscii(read);
    const bit = trigramBit(a, b, c);
    if (bit < 32) low |= 1 << bit;
    else high |= 1 << (bit - 32);
    a = b;
    b = c;
  }
  return combined(high, low);
}

/**
 * The bits every text containing `phrase` (lower-cased by the caller, as the search pattern is) has set: those of
 * its trigrams made of ASCII characters. Null when there are fewer than `minBits`: a mask of one or two bits lets
 * nearly every row through, and checking it would only add its cost to the scan.
 */
export function phraseMask(phrase: string, minBits = 4): number | null {
  let low = 0;
  let high = 0;
  let bits = 0;
  for (let index = 0; index + 2 < phrase.length; index++) {
    const a = phrase.charCodeAt(index);
    const b = phrase.charCodeAt(index + 1);
    const c = phrase.charCodeAt(index + 2);
    if (a > 127 || b > 127 || c > 127) continue;
    const bit = trigramBit(a, b, c);
    if (bit < 32) {
      if (!(low & (1 << bit))) bits += 1;
      low |= 1 << bit;
    } else {
      if (!(high & (1 << (bit - 32)))) bits += 1;
      high |= 1 << (bit - 32);
    }
  }
  return bits >= minBits ? combined(high, low) : null;
}

/** Bits 0 to 31 from `low`, 32 to 52 from `high`, as one exact number. */
const combined = (high: number, low: number): number => (high >>> 0) * 4294967296 + (low >>> 0);

/**
 * textSignature in DuckDB SQL over a text expression, for rows that SQL writes itself (a load, a fill). Much slower
 * than the JavaScript (lambdas over every trigram), so inserts take the signature from the row.
 */
export function textSignatureSql(text: string): string {
  const lowered = `lower(${text})`;
  const code = (offset: string) => `ascii(${lowered}[k + ${offset}])`;
  const bit = `((((${code('0')} * 16384 + ${code('1')} * 128 + ${code('2')})::UBIGINT * ${MULTIPLIER}) % 4294967296) % ${BITS})`;
  return `CASE WHEN regexp_matches(${text}, '[^\\x00-\\x7F]') THEN ${ALL_TRIGRAMS}::UBIGINT WHEN length(${text}) < 3 THEN 0::UBIGINT ELSE list_reduce(list_transform(range(1, length(${text}) - 1), k -> (1::UBIGINT << ${bit}::INTEGER)), (a, b) -> a | b) END`;
}
