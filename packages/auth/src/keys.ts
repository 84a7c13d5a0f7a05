import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** DECISIONS.md "Names and formats": `tlm_pk_<region>_<32 base62>` and `tlm_sk_<region>_<32 base62>`. */
export const KEY_PREFIX = 'tlm';
import { REGIONS, type Region } from '@tlm/api-schemas';

export { REGIONS, type Region };
export type KeyType = 'public' | 'secret';

const RANDOM_LENGTH = 32;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** Regional keys carry exactly 32 random characters; legacy keys (no region) were issued with 16 to 64. */
const KEY_PATTERN = /^tlm_(pk|sk)_(?:(us|eu|ap)_([0-9A-Za-z]{32})|([0-9A-Za-z]{16,64}))$/;
/** Characters of a key shown to people and stored beside the hash. */
export const DISPLAY_PREFIX_LENGTH = 12;

export interface ParsedKey {
  type: KeyType;
  /** Null for a legacy key, which belongs to the deployment's default region. */
  region: Region | null;
}

export function parseApiKey(raw: string): ParsedKey | null {
  const match = KEY_PATTERN.exec(raw);
  if (!match) return null;
  return { type: match[1] === 'pk' ? 'public' : 'secret', region: (match[2] as Region | undefined) ?? null };
}

export function generateApiKey(type: KeyType, region: Region): string {
  return `${KEY_PREFIX}_${type === 'public' ? 'pk' : 'sk'}_${region}_${randomBase62(RANDOM_LENGTH)}`;
}

/** Uniform base62: bytes at or above 248 (= 4 * 62) are discarded so no character is more likely than another. */
function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

/** Hex SHA-256 of the whole key: what the metadata store keeps instead of the key. */
export function hashApiKey(raw: string): string {
  return createHash('sha256').update(raw, 'utf8').digest('hex');
}

export function displayPrefix(raw: string): string {
  return raw.slice(0, DISPLAY_PREFIX_LENGTH);
}

/** Compares two hex digests in constant time. */
export function sameDigest(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  // Buffer.from stops at the first character that is not hex ('abc' decodes like 'ab'): only whole digests compare.
  if (left.length * 2 !== a.length || right.length * 2 !== b.length) return false;
  return left.length === right.length && timingSafeEqual(left, right);
}
