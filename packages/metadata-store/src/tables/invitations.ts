import type { SqlClient } from '../store';
import type { Role } from './organizations';

export interface InvitationRow {
  id: string;
  org_id: string;
  email: string;
  role: Role;
  token_hash: string;
  invited_by: string | null;
  created_at: Date;
  expires_at: Date;
  accepted_at: Date | null;
  accepted_by: string | null;
  revoked_at: Date | null;
}

/** Why an invitation link no longer works; `unknown` when no invitation holds the token (never issued, or replaced). */
export type InvitationRefusal = 'unknown' | 'expired' | 'used' | 'revoked';

/**
 * Invites `email`, or renews the address's pending invitation: its role, link and expiry are replaced, so only the
 * newest link works.
 */
export async function upsertInvitation(
  sql: SqlClient,
  invitation: { id: string; orgId: string; email: string; role: Role; tokenHash: string; invitedBy: string; expiresAt: Date },
): Promise<InvitationRow> {
  const rows = await sql.query<InvitationRow>(
    `insert into invitations (id, org_id, email, role, token_hash, invited_by, expires_at) values ($1, $2, $3, $4, $5, $6, $7)
     on conflict (org_id, lower(email)) where accepted_at is null and revoked_at is null
     do update set role = excluded.role, token_hash = excluded.token_hash, invited_by = excluded.invited_by,
                   expires_at = excluded.expires_at, created_at = now()
     returning *`,
    [invitation.id, invitation.orgId, invitation.email, invitation.role, invitation.tokenHash, invitation.invitedBy, invitation.expiresAt],
  );
  return rows[0]!;
}

/** Invitations neither accepted nor revoked, expired ones included (they can be sent again), newest first. */
export async function listPendingInvitations(sql: SqlClient, orgId: string): Promise<InvitationRow[]> {
  return sql.query<InvitationRow>(
    'select * from invitations where org_id = $1 and accepted_at is null and revoked_at is null order by created_at desc',
    [orgId],
  );
}

export async function findInvitationByTokenHash(sql: SqlClient, tokenHash: string): Promise<InvitationRow | undefined> {
  return (await sql.query<InvitationRow>('select * from invitations where token_hash = $1', [tokenHash]))[0];
}

/** Revokes a pending invitation of the organization; false when there is none with this id. */
export async function revokeInvitation(sql: SqlClient, orgId: string, id: string): Promise<boolean> {
  const rows = await sql.query(
    `update invitations set revoked_at = now()
     where org_id = $1 and id = $2 and accepted_at is null and revoked_at is null returning id`,
    [orgId, id],
  );
  return rows.length > 0;
}

/**
 * Marks the invitation of this token accepted by `userId` when it is still pending and unexpired, in one statement,
 * so a link used twice at once is accepted once; undefined otherwise.
 */
export async function claimInvitation(sql: SqlClient, tokenHash: string, userId: string): Promise<InvitationRow | undefined> {
  const rows = await sql.query<InvitationRow>(
    `update invitations set accepted_at = now(), accepted_by = $2
     where token_hash = $1 and accepted_at is null and revoked_at is null and expires_at > now()
     returning *`,
    [tokenHash, userId],
  );
  return rows[0];
}

/** Why the invitation of this token cannot be accepted, or null when it can. */
export function invitationRefusal(invitation: InvitationRow | undefined, now = new Date()): InvitationRefusal | null {
  if (!invitation) return 'unknown';
  if (invitation.accepted_at) return 'used';
  if (invitation.revoked_at) return 'revoked';
  if (invitation.expires_at <= now) return 'expired';
  return null;
}
