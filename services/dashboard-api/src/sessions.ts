import { CSRF_HEADER, dashboardCredential, lacksCsrfProof, setSessionCookie, wantsCookieSession, type TokenIssuer } from '@tlm/auth';
import { forbidden } from '@tlm/core';
import { findUserById, type SqlClient, type UserRow } from '@tlm/metadata-store';
import type { Request, Response } from 'express';

/**
 * A new session: for the web app an httpOnly cookie and no token in the body, so page scripts never see it; for
 * API clients the token in the body.
 */
export async function startSession(
  tokens: TokenIssuer,
  req: Request,
  res: Response,
  account: Pick<UserRow, 'id' | 'session_epoch'>,
): Promise<{ token?: string }> {
  const token = await tokens.issue(account.id, account.session_epoch);
  if (!wantsCookieSession(req)) return { token };
  setSessionCookie(req, res, token);
  return {};
}

/**
 * The live account whose valid token the request carries, on a route that also serves people without one (accepting
 * an invitation). A stale token counts as none; a write on the cookie alone is refused as `requireUser` refuses it.
 */
export async function currentAccount(tokens: TokenIssuer, store: SqlClient, req: Request): Promise<UserRow | undefined> {
  const credential = dashboardCredential(req);
  if (credential?.via === 'cookie' && lacksCsrfProof(req)) {
    throw forbidden(`a write authenticated by the session cookie must send the ${CSRF_HEADER} header`);
  }
  const claims = credential ? await tokens.verify(credential.token) : null;
  const account = claims ? await findUserById(store, claims.userId) : undefined;
  if (!account || account.deleted_at || account.session_epoch !== claims!.sessionEpoch) return undefined;
  return account;
}
