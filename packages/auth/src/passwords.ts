import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { Type } from '@sinclair/typebox';

const scrypt = (password: string, salt: Buffer, length: number, options: ScryptOptions) =>
  new Promise<Buffer>((resolve, reject) =>
    scryptCallback(password, salt, length, options, (error, key) => (error ? reject(error) : resolve(key))),
  );

/** OWASP's guidance for scrypt: N = 2^17, r = 8, p = 1 (128 MiB of memory per hash). */
export const PASSWORD_COST = 131_072;
const KEY_LENGTH = 32;
const BLOCK_SIZE = 8;
const PARALLELISM = 1;
/** scrypt needs 128 × N × r bytes; room for the largest cost a stored hash may name. */
const MAX_MEMORY = 2 * 128 * 262_144 * BLOCK_SIZE;

export const passwordConfig = {
  PASSWORD_COST: Type.Unsafe<number>({
    type: 'integer',
    enum: [16_384, 32_768, 65_536, 131_072, 262_144],
    default: PASSWORD_COST,
    description:
      "scrypt's N for new password hashes (r = 8, p = 1); hashes of a lower N are redone at the next successful log-in. 2^17 is OWASP's guidance; each hash then takes about 128 MiB and a few hundred milliseconds.",
  }),
};

/** scrypt with a per-user salt; the parameters travel in the stored string so they can be raised later. */
export async function hashPassword(password: string, cost = PASSWORD_COST): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, KEY_LENGTH, { N: cost, r: BLOCK_SIZE, p: PARALLELISM, maxmem: MAX_MEMORY });
  return ['scrypt', cost, BLOCK_SIZE, PARALLELISM, salt.toString('base64'), key.toString('base64')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, expected] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !expected) return false;
  const wanted = Buffer.from(expected, 'base64');
  // A key that decodes to no bytes would compare equal to the empty key scrypt derives for it.
  if (wanted.length === 0) return false;
  const key = await scrypt(password, Buffer.from(salt, 'base64'), wanted.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: MAX_MEMORY,
  });
  return timingSafeEqual(key, wanted);
}

/** A stored hash made with less work than `cost` asks for: redone with the password at its next successful check. */
export function needsRehash(stored: string, cost = PASSWORD_COST): boolean {
  const [scheme, n, r, p] = stored.split('$');
  return scheme !== 'scrypt' || Number(n) < cost || Number(r) !== BLOCK_SIZE || Number(p) !== PARALLELISM;
}
