import { AcceptInvitationBody, InvitationTokenBody, NewInvitation, type Invitation, type InvitationPreview, type InvitationSent } from '@tlm/api-schemas';
import { hashPassword, requestMembership, requireAddressWithinRate, requireMember, requireUser, sessionUser } from '@tlm/auth';
import { ApiError, conflict, forbidden, isUuid, isoTime, jsonBody, newId, notFound, parseBody, validationError, withinRestoreWindow } from '@tlm/core';
import {
  claimInvitation,
  findInvitationByTokenHash,
  findMembership,
  findOrganization,
  findUserByEmail,
  findUserById,
  insertMembership,
  insertUser,
  invitationRefusal,
  listMembers,
  listPendingInvitations,
  lockOrganization,
  revokeInvitation,
  upsertInvitation,
  type InvitationRefusal,
  type InvitationRow,
  type Role,
  type SqlClient,
  type UserRow,
} from '@tlm/metadata-store';
import { Router } from 'express';
import { purgeAccount } from '../accounts';
import type { DashboardDeps } from '../deps';
import { hashLinkToken, newLinkToken, webAppLink } from '../links';
import { currentAccount, startSession } from '../sessions';
import { userJson } from '../wire';

/** How long an invitation link works. */
export const INVITATION_LIFETIME_MS = 7 * 24 * 3_600_000;

/** The page of the web app that a mailed invitation opens. */
const ACCEPT_PAGE = '/accept-invitation';

const invitationJson = (invitation: InvitationRow, invitedBy: string | null, now = new Date()): Invitation => ({
  id: invitation.id,
  email: invitation.email,
  role: invitation.role,
  invited_by: invitedBy,
  created_at: isoTime(invitation.created_at),
  expires_at: isoTime(invitation.expires_at),
  expired: invitation.expires_at <= now,
});

const REFUSALS: Record<InvitationRefusal, string> = {
  unknown: 'this invitation link is not valid: it was replaced by a newer invitation or never existed',
  expired: 'this invitation has expired; ask an owner of the organization to invite you again',
  used: 'this invitation has already been accepted',
  revoked: 'this invitation was revoked by an owner of the organization',
};

/** 404 for every link that does not work, with the reason in `details.reason` for the page to explain. */
const refused = (reason: InvitationRefusal) => new ApiError(404, 'NOT_FOUND', REFUSALS[reason], { reason });

/** The person's name as an invitation shows it. */
const displayName = (user: Pick<UserRow, 'name' | 'email'> | undefined): string | null => (user ? (user.name ?? user.email) : null);

/**
 * Invitations by e-mail (docs/api.md "Invitations"): owners invite an address with a role, list and
 * revoke pending invitations; whoever holds the mailed link joins as that address, by signing up or, when the address
 * has an account, signed in as it.
 */
export function invitationRoutes(deps: DashboardDeps): Router {
  const router = Router();
  const body = jsonBody();
  const user = requireUser(deps.tokens, deps.metadata, deps.limiter);
  const owner = [user, requireMember(deps.metadata, deps.limiter, { ownerOnly: true })];
  // Holders of a link may have no account yet: they count against their client address, as sign-up does.
  const byAddress = requireAddressWithinRate(deps.limiter);

  router.get('/api/orgs/:org/invitations', ...owner, async (_req, res) => {
    const pending = await listPendingInvitations(deps.metadata, requestMembership(res).organization.id);
    const inviters = await inviterNames(deps.metadata, pending);
    res.json({ invitations: pending.map((invitation) => invitationJson(invitation, inviters.get(invitation.invited_by ?? '') ?? null)) });
  });

  router.post('/api/orgs/:org/invitations', ...owner, body, async (req, res) => {
    const input = parseBody(NewInvitation, req.body);
    const { organization } = requestMembership(res);
    const inviter = sessionUser(res);
    const email = input.email.trim();
    const link = newLinkToken();
    const invitation = await deps.metadata.transaction(async (tx) => {
      // Takes turns with an owner's account deletion and with member changes, as adding a member does.
      await lockOrganization(tx, organization.id);
      if ((await findOrganization(tx, organization.id))?.deleted_at) throw notFound('organization not found');
      const members = await listMembers(tx, organization.id);
      if (members.some((member) => member.email.toLowerCase() === email.toLowerCase())) {
        throw conflict('this address already belongs to a member of the organization', { member: true });
      }
      return upsertInvitation(tx, {
        id: newId(),
        orgId: organization.id,
        email,
        role: input.role,
        tokenHash: link.hash,
        invitedBy: inviter.id,
        expiresAt: new Date(Date.now() + INVITATION_LIFETIME_MS),
      });
    });
    const acceptUrl = webAppLink(deps, req, ACCEPT_PAGE, link.token);
    const answer: InvitationSent = { invitation: invitationJson(invitation, displayName(inviter)), mailed: false };
    if (!deps.mailer.configured) {
      // docs/decisions.md: without SMTP_URL the owner gets the link to pass on themselves.
      res.status(201).json({ ...answer, accept_url: acceptUrl, mail_error: 'this server cannot send mail (SMTP_URL is not set)' });
      return;
    }
    try {
      await deps.mailer.send(invitationMail(email, displayName(inviter)!, organization.name, input.role, acceptUrl));
    } catch (error) {
      deps.logger.warn({ err: error, orgId: organization.id }, 'invitation mail not sent');
      res.status(201).json({ ...answer, accept_url: acceptUrl, mail_error: `the mail server refused the invitation: ${(error as Error).message}` });
      return;
    }
    res.status(201).json({ ...answer, mailed: true });
  });

  router.delete('/api/orgs/:org/invitations/:invitation', ...owner, async (req, res) => {
    const id = String(req.params['invitation']);
    const revoked = isUuid(id) && (await revokeInvitation(deps.metadata, requestMembership(res).organization.id, id));
    if (!revoked) throw notFound('no pending invitation with this id');
    res.status(204).end();
  });

  router.post('/api/invitations/preview', byAddress, body, async (req, res) => {
    const { token } = parseBody(InvitationTokenBody, req.body);
    const invitation = await findInvitationByTokenHash(deps.metadata, hashLinkToken(token));
    const reason = invitationRefusal(invitation);
    if (reason) throw refused(reason);
    const organization = await findOrganization(deps.metadata, invitation!.org_id);
    if (!organization || organization.deleted_at) throw refused('revoked');
    const account = await findUserByEmail(deps.metadata, invitation!.email);
    const inviter = invitation!.invited_by ? await findUserById(deps.metadata, invitation!.invited_by) : undefined;
    const preview: InvitationPreview = {
      email: invitation!.email,
      role: invitation!.role,
      organization: { id: organization.id, name: organization.name },
      invited_by: displayName(inviter),
      expires_at: isoTime(invitation!.expires_at),
      account_exists: account !== undefined && account.deleted_at === null,
    };
    res.json(preview);
  });

  router.post('/api/invitations/accept', byAddress, body, async (req, res) => {
    const input = parseBody(AcceptInvitationBody, req.body);
    const tokenHash = hashLinkToken(input.token);
    const invitation = await findInvitationByTokenHash(deps.metadata, tokenHash);
    const reason = invitationRefusal(invitation);
    if (reason) throw refused(reason);
    const signedIn = await currentAccount(deps.tokens, deps.metadata, req);
    if (signedIn) {
      if (signedIn.email.toLowerCase() !== invitation!.email.toLowerCase()) {
        throw forbidden(`this invitation is for ${invitation!.email}; log out, then open the link again to accept it as that address`, {
          reason: 'other_account',
          email: invitation!.email,
        });
      }
      const joined = await deps.metadata.transaction((tx) => join(tx, tokenHash, signedIn.id));
      res.json({ user: userJson(signedIn), organization: joined.organization, role: joined.role });
      return;
    }

    const existing = await findUserByEmail(deps.metadata, invitation!.email);
    if (existing?.deleted_at && !withinRestoreWindow(existing.deleted_at)) {
      // The reservation has lapsed but the daily cleanup has not run yet: finish its work now, as sign-up does.
      await purgeAccount(deps, existing.id);
    } else if (existing) {
      throw existing.deleted_at
        ? conflict('the account of this address was deleted and can still be restored: restore it, then open the link again', { restore: true })
        : conflict('this address has an account: log in as it, then accept the invitation', { login: true });
    }
    if (!input.password) throw validationError('a password (at least 8 characters) is needed to create the account');
    const passwordHash = await hashPassword(input.password, deps.passwordCost);
    const created = await deps.metadata.transaction(async (tx) => {
      const account = await insertUser(tx, { id: newId(), email: invitation!.email, name: input.name?.trim() || null, passwordHash });
      if (!account) throw conflict('this address has an account: log in as it, then accept the invitation', { login: true });
      return { account, ...(await join(tx, tokenHash, account.id)) };
    });
    res.status(201).json({
      ...(await startSession(deps.tokens, req, res, created.account)),
      user: userJson(created.account),
      organization: created.organization,
      role: created.role,
    });
  });

  return router;
}

/**
 * Uses the invitation up and adds the person with its role (a person already a member keeps their role), inside the
 * caller's transaction and under the organization's lock, so a link used twice at once adds once and a revocation
 * cannot slip in.
 */
async function join(tx: SqlClient, tokenHash: string, userId: string): Promise<{ organization: { id: string; name: string }; role: Role }> {
  const pending = await findInvitationByTokenHash(tx, tokenHash);
  if (pending) await lockOrganization(tx, pending.org_id);
  const invitation = await claimInvitation(tx, tokenHash, userId);
  if (!invitation) throw refused(invitationRefusal(await findInvitationByTokenHash(tx, tokenHash)) ?? 'unknown');
  const organization = await findOrganization(tx, invitation.org_id);
  if (!organization || organization.deleted_at) throw refused('revoked');
  const added = await insertMembership(tx, organization.id, userId, invitation.role);
  const role = added?.role ?? (await findMembership(tx, organization.id, userId))!.role;
  return { organization: { id: organization.id, name: organization.name }, role };
}

async function inviterNames(store: SqlClient, invitations: InvitationRow[]): Promise<Map<string, string>> {
  const ids = [...new Set(invitations.flatMap((invitation) => (invitation.invited_by ? [invitation.invited_by] : [])))];
  const rows = await store.query<Pick<UserRow, 'id' | 'name' | 'email'>>('select id, name, email from users where id = any($1::uuid[])', [ids]);
  return new Map(rows.map((row) => [row.id, displayName(row)!]));
}

function invitationMail(to: string, inviter: string, organization: string, role: Role, acceptUrl: string) {
  const as = role === 'owner' ? 'an owner' : 'a member';
  return {
    to,
    subject: `${inviter} invited you to ${organization}`,
    text: [
      `${inviter} invited you to join ${organization} as ${as}.`,
      '',
      `Accept the invitation: ${acceptUrl}`,
      '',
      'The link works once and expires in 7 days. If you did not expect this invitation, ignore this mail.',
    ].join('\n'),
    html: `<p>${escapeHtml(inviter)} invited you to join <strong>${escapeHtml(organization)}</strong> as ${as}.</p>
<p><a href="${escapeHtml(acceptUrl)}">Accept the invitation</a></p>
<p>The link works once and expires in 7 days. If you did not expect this invitation, ignore this mail.</p>`,
  };
}

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!);

