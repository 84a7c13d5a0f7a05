import { DISPLAY_PREFIX_LENGTH, KEY_PREFIX, displayPrefix, generateApiKey, hashApiKey, parseApiKey, sameDigest } from './keys';

const RANDOM_32 = 'Ab3dEf6hIj9lMn2pQr5tUv8xYz1B4c7D';

describe('generateApiKey', () => {
  it('makes tlm_pk_<region>_<32 base62> public keys', () => {
    expect(generateApiKey('public', 'eu')).toMatch(/^tlm_pk_eu_[0-9A-Za-z]{32}$/);
  });

  it('makes tlm_sk_<region>_<32 base62> secret keys', () => {
    expect(generateApiKey('secret', 'ap')).toMatch(/^tlm_sk_ap_[0-9A-Za-z]{32}$/);
  });

  it('uses the tlm prefix', () => {
    expect(KEY_PREFIX).toBe('tlm');
    expect(generateApiKey('secret', 'us').startsWith('tlm_sk_us_')).toBe(true);
  });

  it('never repeats a key', () => {
    const keys = new Set(Array.from({ length: 1_000 }, () => generateApiKey('secret', 'us')));
    expect(keys.size).toBe(1_000);
  });

  it('draws every base62 character, with no character far more likely than another', () => {
    const counts = new Map<string, number>();
    for (let index = 0; index < 2_000; index += 1) {
      for (const character of generateApiKey('public', 'us').slice('tlm_pk_us_'.length)) {
        counts.set(character, (counts.get(character) ?? 0) + 1);
      }
    }
    // 64,000 draws over 62 characters: about 1,032 each; modulo bias without rejection would skew the first 8.
    expect(counts.size).toBe(62);
    for (const seen of counts.values()) {
      expect(seen).toBeGreaterThan(850);
      expect(seen).toBeLessThan(1_220);
    }
  });

  it('parses back to its own type and region', () => {
    expect(parseApiKey(generateApiKey('public', 'ap'))).toEqual({ type: 'public', region: 'ap' });
    expect(parseApiKey(generateApiKey('secret', 'eu'))).toEqual({ type: 'secret', region: 'eu' });
  });
});

describe('parseApiKey', () => {
  it('reads type and region of regional keys', () => {
    expect(parseApiKey(`tlm_pk_us_${RANDOM_32}`)).toEqual({ type: 'public', region: 'us' });
    expect(parseApiKey(`tlm_sk_eu_${RANDOM_32}`)).toEqual({ type: 'secret', region: 'eu' });
    expect(parseApiKey(`tlm_sk_ap_${RANDOM_32}`)).toEqual({ type: 'secret', region: 'ap' });
  });

  it('reads a key without the region segment as a legacy key of the default region (region null)', () => {
    expect(parseApiKey('tlm_sk_0123456789abcdef')).toEqual({ type: 'secret', region: null });
    expect(parseApiKey(`tlm_pk_${RANDOM_32}`)).toEqual({ type: 'public', region: null });
    expect(parseApiKey(`tlm_sk_${'a'.repeat(64)}`)).toEqual({ type: 'secret', region: null });
  });

  it.each([
    ['an empty string', ''],
    ['another prefix', `xyz_sk_us_${RANDOM_32}`],
    ['an unknown type', `tlm_xk_us_${RANDOM_32}`],
    ['an unknown region', `tlm_sk_xx_${RANDOM_32}`],
    ['an upper-case region', `tlm_sk_US_${RANDOM_32}`],
    ['a regional key with 31 random characters', `tlm_sk_us_${RANDOM_32.slice(1)}`],
    ['a regional key with 33 random characters', `tlm_sk_us_${RANDOM_32}x`],
    ['a legacy key with 15 random characters', 'tlm_sk_0123456789abcde'],
    ['a legacy key with 65 random characters', `tlm_sk_${'a'.repeat(65)}`],
    ['a non-base62 character', `tlm_sk_us_${RANDOM_32.slice(1)}-`],
    ['surrounding whitespace', ` tlm_sk_us_${RANDOM_32} `],
    ['a trailing newline', `tlm_sk_us_${RANDOM_32}\n`],
    ['a JWT', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln'],
  ])('rejects %s', (_label, raw) => {
    expect(parseApiKey(raw)).toBeNull();
  });
});

describe('hashApiKey', () => {
  it('is the hex SHA-256 of the whole key', () => {
    // The published SHA-256 test vector for "abc".
    expect(hashApiKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(hashApiKey(`tlm_sk_us_${RANDOM_32}`)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('differs for keys that differ in one character', () => {
    expect(hashApiKey(`tlm_sk_us_${RANDOM_32}`)).not.toBe(hashApiKey(`tlm_sk_us_${RANDOM_32.slice(0, -1)}E`));
  });
});

describe('displayPrefix', () => {
  it('keeps the first 12 characters: prefix, type, region and two random characters', () => {
    expect(DISPLAY_PREFIX_LENGTH).toBe(12);
    expect(displayPrefix(`tlm_sk_us_${RANDOM_32}`)).toBe('tlm_sk_us_Ab');
    expect(displayPrefix('tlm_pk_0123456789abcdef')).toBe('tlm_pk_01234');
  });
});

describe('sameDigest', () => {
  const digest = hashApiKey('key one');

  it('is true for equal digests, in either letter case', () => {
    expect(sameDigest(digest, digest)).toBe(true);
    expect(sameDigest(digest, digest.toUpperCase())).toBe(true);
  });

  it('is false for different digests', () => {
    expect(sameDigest(digest, hashApiKey('key two'))).toBe(false);
  });

  it('is false for digests of different lengths', () => {
    expect(sameDigest(digest, digest.slice(0, 62))).toBe(false);
  });

  it('is false for strings that only decode alike because decoding stops at a non-hex character', () => {
    expect(sameDigest('abc', 'abd')).toBe(false);
    expect(sameDigest(`${digest}x`, `${digest}y`)).toBe(false);
    expect(sameDigest('not hex', 'also not hex')).toBe(false);
  });
});
