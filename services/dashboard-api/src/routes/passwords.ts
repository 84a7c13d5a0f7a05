import { PasswordChange, PasswordResetConfirm, PasswordResetRequest } from '@tlm/api-schemas';
import { LoginThrottle, hashPassword, requireAddressWithinRate, requireUser, sessionUser, verifyPassword } from '@tlm/auth';
import { ApiError, forbidden, jsonBody, mailNotConfigured, parseBody, rateLimited } from '@tlm/core';
import {
  claimPasswordReset,
  countPasswordResetsSince,
  findPasswordReset,
  findUserByEmail,
  findUserById,
  insertPasswordReset,
  lockUser,
  replaceUserPassword,
  type PasswordResetRow,
} from '@tlm/metadata-store';
import { Router, type Request } from 'express';
import type { DashboardDeps } from '../deps';
import { hashLinkToken, newLinkToken, webAppLink } from '../links';
import { startSession } from '../sessions';
import { userJson } from '../wire';

/** How long a password reset link works. */
export const PASSWORD_RESET_LIFETIME_MS = 3_600_000;
/** Reset mails one account is sent in an hour at most: more would let anyone flood an inbox. */
export const MAX_PASSWORD_RESETS_PER_HOUR = 5;

/** The page of the web app that a reset mail opens. */
const RESET_PAGE = '/reset-password';

/** The one answer to every reset request, so it tells nobody whether an account has the address. */
const RESET_REQUESTED = { message: 'if an account has this address, a link to reset its password is on its way' };

type ResetRefusal = 'unknown' | 'expired' | 'used';

const RESET_REFUSALS: Record<ResetRefusal, string> = {
  unknown: 'this password reset link is not valid; ask for a new one',
  expired: 'this password reset link has expired (links work for an hour); ask for a new one',
  used: 'this password reset link has already been used; ask for a new one',
};

/** Host names that reach only the machine the browser runs on, so a link to one leaks nothing to a third party. */
const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

function resetRefusal(reset: PasswordResetRow | undefined, now = new Date()): ResetRefusal {
  if (!reset) return 'unknown';
  if (reset.used_at) return 'used';
  return reset.expires_at <= now ? 'expired' : 'unknown';
}

/**
 * Passwords (docs/api.md "Identity"): a reset by mailed link for people who forgot theirs, and a change for people
 * signed in. Both end every other session of the person by raising their session epoch.
 */
export function passwordRoutes(deps: DashboardDeps): Router {
  const router = Router();
  const body = jsonBody();
  const user = requireUser(deps.tokens, deps.metadata, deps.limiter);
  // As log-in: people asking for a reset or holding a reset link count against their client address.
  const byAddress = requireAddressWithinRate(deps.limiter);
  // Guesses at the current password with a stolen session are bounded as guesses at log-in are.
  const changes = new LoginThrottle();

  router.post('/api/auth/password-reset', byAddress, body, async (req, res) => {
    const { email } = parseBody(PasswordResetRequest, req.body);
    // The same for every address, so it tells nothing about accounts.
    if (!deps.mailer.configured) throw mailNotConfigured();
    // Whoever asks chooses the Host header, and a reset link built from it would send the victim's token to the
    // asker's server. Without PUBLIC_URL only a loopback address (a server on this machine) is trusted.
    if (!deps.publicUrl && !LOOPBACK_HOSTS.has(req.hostname)) {
      throw new ApiError(503, 'MAIL_NOT_CONFIGURED', 'password reset links need PUBLIC_URL, the address people open the web app at; ask this server\'s operator');
    }
    // The look-up and the mail happen after the answer, so it takes as long whether or not the account exists.
    res.status(202).json(RESET_REQUESTED);
    mailPasswordReset(deps, req, email.trim()).catch((error: unknown) => deps.logger.warn({ err: error }, 'password reset mail not sent'));
  });

  router.post('/api/auth/password-reset/confirm', byAddress, body, async (req, res) => {
    const input = parseBody(PasswordResetConfirm, req.body);
    const passwordHash = await hashPassword(input.password, deps.passwordCost);
    const tokenHash = hashLinkToken(input.token);
    const account = await deps.metadata.transaction(async (tx) => {
      const userId = await claimPasswordReset(tx, tokenHash);
      const reason = userId ? undefined : resetRefusal(await findPasswordReset(tx, tokenHash));
      const found = userId ? await findUserById(tx, userId) : undefined;
      if (!found || found.deleted_at) throw new ApiError(404, 'NOT_FOUND', RESET_REFUSALS[reason ?? 'unknown'], { reason: reason ?? 'unknown' });
      const sessionEpoch = await replaceUserPassword(tx, found.id, passwordHash);
      return { ...found, session_epoch: sessionEpoch };
    });
    res.json({ ...(await startSession(deps.tokens, req, res, account)), user: userJson(account) });
  });

  router.post('/api/auth/password', user, body, async (req, res) => {
    const input = parseBody(PasswordChange, req.body);
    const me = sessionUser(res);
    const address = req.ip ?? '';
    const wait = changes.attempt(me.email, address);
    if (wait > 0) throw rateLimited(wait, {}, `too many wrong passwords; try again in ${wait} seconds`);
    const account = (await findUserById(deps.metadata, me.id))!;
    if (!(await verifyPassword(input.current_password, account.password_hash))) {
      throw forbidden('the current password is wrong', { reason: 'wrong_password' });
    }
    changes.succeeded(me.email, address);
    const sessionEpoch = await replaceUserPassword(deps.metadata, account.id, await hashPassword(input.new_password, deps.passwordCost));
    // Every other session has ended; this browser or client goes on with a token of the new epoch.
    res.json({ ...(await startSession(deps.tokens, req, res, { id: account.id, session_epoch: sessionEpoch })), user: userJson(account) });
  });

  return router;
}

/** Mails a reset link to the live account of `email`, if there is one and it has not had too many this hour. */
async function mailPasswordReset(deps: DashboardDeps, req: Request, email: string): Promise<void> {
  const account = await findUserByEmail(deps.metadata, email);
  if (!account || account.deleted_at) return;
  const now = Date.now();
  const link = newLinkToken();
  const issued = await deps.metadata.transaction(async (tx) => {
    // Requests for one account at once take turns, so together they cannot pass the hourly bound.
    await lockUser(tx, account.id);
    if ((await countPasswordResetsSince(tx, account.id, new Date(now - 3_600_000))) >= MAX_PASSWORD_RESETS_PER_HOUR) return false;
    await insertPasswordReset(tx, { tokenHash: link.hash, userId: account.id, expiresAt: new Date(now + PASSWORD_RESET_LIFETIME_MS) });
    return true;
  });
  if (!issued) {
    deps.logger.info({ userId: account.id }, 'password reset mail not sent: the hourly bound is reached');
    return;
  }
  const resetUrl = webAppLink(deps, req, RESET_PAGE, link.token);
  await deps.mailer.send({
    to: account.email,
    subject: 'Reset your password',
    text: [
      'Someone, probably you, asked to reset the password of your account.',
      '',
      `Choose a new password: ${resetUrl}`,
      '',
      'The link works once and expires in one hour. Setting a new password logs you out everywhere else.',
      'If you did not ask for this, ignore this mail: your password stays as it is.',
    ].join('\n'),
  });
}
