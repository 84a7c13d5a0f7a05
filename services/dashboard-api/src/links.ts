import { createHash, randomBytes } from 'node:crypto';
import type { Request } from 'express';
import type { DashboardDeps } from './deps';

/** The token of a mailed link (an invitation, a password reset) and the hash that is stored in its place. */
export interface LinkToken {
  token: string;
  hash: string;
}

/** 32 random bytes in base64url: unguessable, and safe in a URL as it is. */
export function newLinkToken(): LinkToken {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: hashLinkToken(token) };
}

/** Hex SHA-256: the token is random, so a plain hash cannot be reversed and can be looked up directly. */
export const hashLinkToken = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');

/**
 * A page of the web app with the token in the fragment: browsers send neither fragments to servers nor in Referer
 * headers, so the token stays out of request logs. The address is PUBLIC_URL, else the request's own origin.
 */
export function webAppLink(deps: Pick<DashboardDeps, 'publicUrl'>, req: Request, page: string, token: string): string {
  // Behind a proxy in TRUSTED_PROXIES, protocol and host are the ones it forwarded (X-Forwarded-Proto, -Host).
  const base = (deps.publicUrl ?? `${req.protocol}://${req.host}`).replace(/\/+$/, '');
  return `${base}${page}#token=${token}`;
}
