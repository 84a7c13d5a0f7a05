import { CredentialsBody, ImmediateQuery, SignupBody } from '@tlm/api-schemas';
import {
  LoginThrottle,
  clearSessionCookie,
  dashboardCredential,
  hashPassword,
  needsRehash,
  lacksCsrfProof,
  requireAddressWithinRate,
  requireUser,
  sessionUser,
  verifyPassword,
} from '@tlm/auth';
import {
  conflict,
  forbidden,
  isoTime,
  jsonBody,
  newId,
  notFound,
  parseBody,
  parseQuery,
  rateLimited,
  restoreDeadline,
  signupInOtherRegion,
  unauthorized,
  withinRestoreWindow,
} from '@tlm/core';
import {
  endUserSessions,
  findUserByEmail,
  findUserById,
  setUserPasswordHash,
  insertMembership,
  insertOrganization,
  insertUser,
  listOrganizationsOfUser,
  type UserRow,
} from '@tlm/metadata-store';
import { Router, type Request, type Response } from 'express';
import { purgeAccount, restoreAccount, softDeleteAccount } from '../accounts';
import type { DashboardDeps } from '../deps';
import { startSession } from '../sessions';
import { organizationJson, userJson } from '../wire';

export function authRoutes(deps: DashboardDeps): Router {
  const router = Router();
  const body = jsonBody();
  const user = requireUser(deps.tokens, deps.metadata, deps.limiter);
  // Before an account there is only the client address to count against (docs/api.md "Rate limits").
  const byAddress = requireAddressWithinRate(deps.limiter);
  const logins = new LoginThrottle();
  /** Compared against when the email is unknown, so a log-in takes as long whether or not the account exists. */
  const noSuchUserHash = hashPassword('no such user, no such password', deps.passwordCost);

  router.post('/api/auth/signup', byAddress, body, async (req, res) => {
    const input = parseBody(SignupBody, req.body);
    // An organization of another region could not use its keys here: it is refused before anything is stored.
    if (input.region && input.region !== deps.region) throw signupInOtherRegion(input.region, deps.region, deps.regionUrls[input.region]);
    const existing = await findUserByEmail(deps.metadata, input.email);
    if (existing?.deleted_at && !withinRestoreWindow(existing.deleted_at)) {
      // The reservation has lapsed but the daily cleanup has not run yet: finish its work now.
      await purgeAccount(deps, existing.id);
    } else if (existing) {
      throw existing.deleted_at
        ? conflict('an account with this email was deleted and can still be restored', { restore: true })
        : conflict('an account with this email already exists');
    }
    const passwordHash = await hashPassword(input.password, deps.passwordCost);
    const created = await deps.metadata.transaction(async (tx) => {
      const newUser = await insertUser(tx, { id: newId(), email: input.email.trim(), name: input.name ?? null, passwordHash });
      if (!newUser) return null;
      const organization = await insertOrganization(tx, {
        plan: deps.defaultPlan,
        id: newId(),
        name: `${input.name ?? input.email.split('@')[0]}'s organization`,
        region: deps.region,
      });
      await insertMembership(tx, organization.id, newUser.id, 'owner');
      return { newUser, organization };
    });
    if (!created) throw conflict('an account with this email already exists');
    res.status(201).json({
      ...(await session(req, res, created.newUser)),
      user: userJson(created.newUser),
      organization: {
        id: created.organization.id,
        name: created.organization.name,
        plan: created.organization.plan,
        region: created.organization.region,
      },
    });
  });

  router.post('/api/auth/login', byAddress, body, async (req, res) => {
    const input = parseBody(CredentialsBody, req.body);
    const account = await checkCredentials(input.email, input.password, req.ip ?? '');
    if (account.deleted_at) {
      // SPEC.md Account lifecycle: logging in inside the window restores the account.
      if (!withinRestoreWindow(account.deleted_at)) throw unauthorized('wrong email or password');
      await restoreAccount(deps, account.id);
    }
    res.json({ ...(await session(req, res, account)), user: userJson(account) });
  });

  router.post('/api/auth/logout', byAddress, async (req, res) => {
    if (lacksCsrfProof(req)) throw forbidden('log-out from the web app sends the x-tlm-csrf header');
    // A live token's user has every session ended: the cookie's token, and any copy of it, answer 401 from now on.
    const credential = dashboardCredential(req);
    const claims = credential ? await deps.tokens.verify(credential.token) : null;
    const account = claims ? await findUserById(deps.metadata, claims.userId) : undefined;
    if (account && account.session_epoch === claims!.sessionEpoch) await endUserSessions(deps.metadata, account.id);
    clearSessionCookie(req, res);
    res.status(204).end();
  });

  router.get('/api/auth/me', user, async (_req, res) => {
    const me = sessionUser(res);
    const organizations = await listOrganizationsOfUser(deps.metadata, me.id);
    res.json({ ...userJson(me), organizations: organizations.map((organization) => organizationJson(organization, organization.role)) });
  });

  router.delete('/api/auth/account', user, async (req, res) => {
    const { immediate } = parseQuery(ImmediateQuery, req.query);
    const me = sessionUser(res);
    if (immediate) {
      await purgeAccount(deps, me.id);
      res.json({ deleted: true, immediate: true });
      return;
    }
    const deletedAt = new Date();
    await softDeleteAccount(deps, me.id, deletedAt);
    res.json({ deleted: true, immediate: false, restore_until: isoTime(restoreDeadline(deletedAt)) });
  });

  router.post('/api/auth/account/restore', byAddress, body, async (req, res) => {
    const input = parseBody(CredentialsBody, req.body);
    const account = await checkCredentials(input.email, input.password, req.ip ?? '');
    if (account.deleted_at) {
      if (!withinRestoreWindow(account.deleted_at)) throw notFound('the restore window of this account has passed');
      await restoreAccount(deps, account.id);
    }
    res.json({ restored: account.deleted_at !== null, ...(await session(req, res, account)), user: userJson(account) });
  });

  const session = (req: Request, res: Response, account: Pick<UserRow, 'id' | 'session_epoch'>) => startSession(deps.tokens, req, res, account);

  async function checkCredentials(email: string, password: string, address: string): Promise<UserRow> {
    const wait = logins.attempt(email, address);
    if (wait > 0) throw rateLimited(wait, {}, `too many login attempts for this email; try again in ${wait} seconds`);
    const account = await findUserByEmail(deps.metadata, email);
    const valid = await verifyPassword(password, account?.password_hash ?? (await noSuchUserHash));
    if (!account || !valid) throw unauthorized('wrong email or password');
    logins.succeeded(email, address);
    // A hash made with less work than PASSWORD_COST asks for is redone now, while the password is at hand.
    if (needsRehash(account.password_hash, deps.passwordCost)) {
      await setUserPasswordHash(deps.metadata, account.id, await hashPassword(password, deps.passwordCost));
    }
    return account;
  }

  return router;
}
