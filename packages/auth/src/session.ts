import { parse, serialize } from 'cookie';
import type { Request, Response } from 'express';
import { TOKEN_LIFETIME_SECONDS } from './tokens';

/** The credential of `Authorization: Bearer <credential>`. */
export function bearerCredential(header: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match?.[1];
}

/** The web app's session: the dashboard JWT in an httpOnly cookie, so page scripts never hold it. */
export const SESSION_COOKIE = 'tlm_session';

/**
 * Sent by the web app on every request. A cross-site form or image cannot set a header, and a cross-site fetch that
 * sets one needs a CORS preflight that `/api` never grants, so a cookie-authenticated write without it is refused.
 */
export const CSRF_HEADER = 'x-tlm-csrf';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export interface DashboardCredential {
  token: string;
  via: 'bearer' | 'cookie';
}

/** The Bearer header when there is one (API clients), else the session cookie (the web app). */
export function dashboardCredential(req: Request): DashboardCredential | undefined {
  const bearer = bearerCredential(req.headers.authorization);
  if (bearer) return { token: bearer, via: 'bearer' };
  const cookie = req.headers.cookie ? parse(req.headers.cookie)[SESSION_COOKIE] : undefined;
  return cookie ? { token: cookie, via: 'cookie' } : undefined;
}

/** A request the CSRF rule refuses: it changes something on the strength of the cookie alone. */
export function lacksCsrfProof(req: Request): boolean {
  return !SAFE_METHODS.has(req.method) && req.get(CSRF_HEADER) === undefined;
}

/** Log-in from the web app (which sends the CSRF header) gets the cookie instead of a token in the body. */
export function wantsCookieSession(req: Request): boolean {
  return req.get(CSRF_HEADER) !== undefined;
}

function cookieOptions(req: Request, maxAge: number) {
  return { httpOnly: true, sameSite: 'strict' as const, secure: req.secure, path: '/', maxAge };
}

export function setSessionCookie(req: Request, res: Response, token: string): void {
  res.append('Set-Cookie', serialize(SESSION_COOKIE, token, cookieOptions(req, TOKEN_LIFETIME_SECONDS)));
}

export function clearSessionCookie(req: Request, res: Response): void {
  res.append('Set-Cookie', serialize(SESSION_COOKIE, '', cookieOptions(req, 0)));
}
