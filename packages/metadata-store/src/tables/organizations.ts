import type { PlanName } from '@tlm/core';
import type { SqlClient } from '../store';

export interface OrganizationRow {
  id: string;
  name: string;
  plan: PlanName;
  region: string;
  created_at: Date;
  deleted_at: Date | null;
}

export type Role = 'owner' | 'member';

export interface MembershipRow {
  org_id: string;
  user_id: string;
  role: Role;
  created_at: Date;
}

export async function insertOrganization(
  sql: SqlClient,
  organization: { id: string; name: string; region: string; plan?: PlanName },
): Promise<OrganizationRow> {
  const rows = await sql.query<OrganizationRow>('insert into organizations (id, name, region, plan) values ($1, $2, $3, $4) returning *', [
    organization.id,
    organization.name,
    organization.region,
    organization.plan ?? 'free',
  ]);
  return rows[0]!;
}

export async function findOrganization(sql: SqlClient, id: string): Promise<OrganizationRow | undefined> {
  return (await sql.query<OrganizationRow>('select * from organizations where id = $1', [id]))[0];
}

/**
 * Takes the organization's row lock for the rest of the transaction: checks of its limits (keys, projects, AI
 * queries, a project's dashboards) and of its owners then take turns with the writes they guard, so simultaneous
 * requests cannot both pass.
 */
export async function lockOrganization(sql: SqlClient, id: string): Promise<void> {
  await sql.query('select id from organizations where id = $1 for update', [id]);
}

/** The row locks of the organizations the user owns, taken in id order (so two such transactions cannot deadlock). */
export async function lockOrganizationsOwnedBy(sql: SqlClient, userId: string): Promise<void> {
  await sql.query(
    `select o.id from organizations o join memberships m on m.org_id = o.id
     where m.user_id = $1 and m.role = 'owner' order by o.id for update of o`,
    [userId],
  );
}

export async function updateOrganization(
  sql: SqlClient,
  id: string,
  changes: { name?: string; plan?: PlanName },
): Promise<OrganizationRow> {
  const rows = await sql.query<OrganizationRow>(
    `update organizations set name = coalesce($2, name), plan = coalesce($3, plan) where id = $1 returning *`,
    [id, changes.name ?? null, changes.plan ?? null],
  );
  return rows[0]!;
}

export async function setOrganizationsDeletedAt(sql: SqlClient, ids: string[], deletedAt: Date | null): Promise<void> {
  await sql.query('update organizations set deleted_at = $2 where id = any($1::uuid[])', [ids, deletedAt]);
}

export async function purgeOrganizations(sql: SqlClient, ids: string[]): Promise<void> {
  await sql.query('delete from organizations where id = any($1::uuid[])', [ids]);
}

export async function insertMembership(sql: SqlClient, orgId: string, userId: string, role: Role): Promise<MembershipRow | null> {
  const rows = await sql.query<MembershipRow>(
    `insert into memberships (org_id, user_id, role) values ($1, $2, $3)
     on conflict (org_id, user_id) do nothing returning *`,
    [orgId, userId, role],
  );
  return rows[0] ?? null;
}

/** The membership of a user in a live organization, with the organization. */
export async function findMembership(
  sql: SqlClient,
  orgId: string,
  userId: string,
): Promise<(OrganizationRow & { role: Role }) | undefined> {
  const rows = await sql.query<OrganizationRow & { role: Role }>(
    `select o.*, m.role from memberships m join organizations o on o.id = m.org_id
     where m.org_id = $1 and m.user_id = $2 and o.deleted_at is null`,
    [orgId, userId],
  );
  return rows[0];
}

export async function listOrganizationsOfUser(sql: SqlClient, userId: string): Promise<(OrganizationRow & { role: Role })[]> {
  return sql.query<OrganizationRow & { role: Role }>(
    `select o.*, m.role from memberships m join organizations o on o.id = m.org_id
     where m.user_id = $1 and o.deleted_at is null order by o.created_at`,
    [userId],
  );
}

/** Organizations the user owns alone: they go and come back with the account. */
export async function listOrganizationsOwnedBy(sql: SqlClient, userId: string): Promise<OrganizationRow[]> {
  return sql.query<OrganizationRow>(
    `select o.* from organizations o join memberships m on m.org_id = o.id and m.user_id = $1 and m.role = 'owner'`,
    [userId],
  );
}

export interface MemberRow {
  user_id: string;
  email: string;
  name: string | null;
  role: Role;
  created_at: Date;
}

export async function listMembers(sql: SqlClient, orgId: string): Promise<MemberRow[]> {
  return sql.query<MemberRow>(
    `select m.user_id, u.email, u.name, m.role, m.created_at from memberships m join users u on u.id = m.user_id
     where m.org_id = $1 and u.deleted_at is null order by m.created_at`,
    [orgId],
  );
}

/** Changes a member's role; null when the user is not a member. */
export async function updateMembershipRole(sql: SqlClient, orgId: string, userId: string, role: Role): Promise<MembershipRow | null> {
  const rows = await sql.query<MembershipRow>('update memberships set role = $3 where org_id = $1 and user_id = $2 returning *', [orgId, userId, role]);
  return rows[0] ?? null;
}

export async function deleteMembership(sql: SqlClient, orgId: string, userId: string): Promise<boolean> {
  return (await sql.query('delete from memberships where org_id = $1 and user_id = $2 returning user_id', [orgId, userId])).length > 0;
}

export async function countOwners(sql: SqlClient, orgId: string): Promise<number> {
  const rows = await sql.query<{ owners: number }>(
    `select count(*)::int as owners from memberships m join users u on u.id = m.user_id
     where m.org_id = $1 and m.role = 'owner' and u.deleted_at is null`,
    [orgId],
  );
  return rows[0]!.owners;
}
