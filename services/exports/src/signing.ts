import { createHmac, timingSafeEqual } from 'node:crypto';

/** How long a download link works after it was listed. */
export const DOWNLOAD_TTL_MS = 60 * 60 * 1000;

/** `<expiry ms>.<HMAC-SHA256(id.expiry)>`: a download link that needs no key and stops working at expiry. */
export function signDownload(secret: string, jobId: string, expiresAt: number): string {
  return `${expiresAt}.${createHmac('sha256', secret).update(`${jobId}.${expiresAt}`).digest('base64url')}`;
}

export function verifyDownload(secret: string, jobId: string, token: string, now = Date.now()): boolean {
  const [expiry, signature] = token.split('.', 2);
  const expiresAt = Number(expiry);
  if (!signature || !Number.isSafeInteger(expiresAt) || expiresAt < now) return false;
  const expected = Buffer.from(signDownload(secret, jobId, expiresAt).split('.', 2)[1]!);
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
