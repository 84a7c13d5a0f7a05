import type { Scope } from '@tlm/api-schemas';
import type { SqlClient } from '../store';

export type RevokedBy = 'user' | 'project_deleted';

export interface ApiKeyRow {
  id: string;
  project_id: string;
  org_id: string;
  name: string;
  type: 'public' | 'secret';
  scopes: Scope[];
  prefix: string;
  key_hash: string;
  region: string;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
  revoked_by: RevokedBy | null;
  deleted_at: Date | null;
}

export async function insertApiKey(
  sql: SqlClient,
  key: { id: string; projectId: string; orgId: string; name: string; type: 'public' | 'secret'; scopes: string[]; prefix: string; keyHash: string; region: string },
): Promise<ApiKeyRow> {
  const rows = await sql.query<ApiKeyRow>(
    `insert into api_keys (id, project_id, org_id, name, type, scopes, prefix, key_hash, region)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9) returning *`,
    [key.id, key.projectId, key.orgId, key.name, key.type, key.scopes, key.prefix, key.keyHash, key.region],
  );
  return rows[0]!;
}

/** Active and revoked keys, or with `deleted` the 'Recently Deleted' ones. */
export async function listApiKeys(sql: SqlClient, projectId: string, deleted: boolean): Promise<ApiKeyRow[]> {
  return sql.query<ApiKeyRow>(
    `select * from api_keys where project_id = $1 and (deleted_at is not null) = $2 order by created_at`,
    [projectId, deleted],
  );
}

export async function findApiKey(sql: SqlClient, projectId: string, keyId: string): Promise<ApiKeyRow | undefined> {
  return (await sql.query<ApiKeyRow>('select * from api_keys where project_id = $1 and id = $2', [projectId, keyId]))[0];
}

export async function setApiKeyRevoked(sql: SqlClient, keyId: string, revoked: boolean): Promise<ApiKeyRow> {
  const rows = await sql.query<ApiKeyRow>(
    `update api_keys set revoked_at = case when $2 then coalesce(revoked_at, now()) end,
       revoked_by = case when $2 then 'user' end
     where id = $1 returning *`,
    [keyId, revoked],
  );
  return rows[0]!;
}

/** Soft delete: the key stops at once (deleted keys never authenticate) and moves to 'Recently Deleted'. */
/** SPEC.md "active or revoked → delete → deleted: immediately revoked": an active key is revoked by the deletion. */
export async function softDeleteApiKey(sql: SqlClient, keyId: string): Promise<ApiKeyRow> {
  return (
    await sql.query<ApiKeyRow>(
      `update api_keys set deleted_at = now(), revoked_at = coalesce(revoked_at, now()), revoked_by = coalesce(revoked_by, 'user')
       where id = $1 returning *`,
      [keyId],
    )
  )[0]!;
}

/** Restore reactivates: SPEC.md "deleted → restore → active". */
export async function restoreApiKey(sql: SqlClient, keyId: string): Promise<ApiKeyRow> {
  return (
    await sql.query<ApiKeyRow>(
      'update api_keys set deleted_at = null, revoked_at = null, revoked_by = null where id = $1 returning *',
      [keyId],
    )
  )[0]!;
}

/** Revokes the project's live keys on project deletion; returns their ids so caches can drop them. */
export async function revokeKeysOfDeletedProject(sql: SqlClient, projectId: string): Promise<string[]> {
  const rows = await sql.query<{ id: string }>(
    `update api_keys set revoked_at = now(), revoked_by = 'project_deleted'
     where project_id = $1 and revoked_at is null and deleted_at is null returning id`,
    [projectId],
  );
  return rows.map((row) => row.id);
}

/** Undoes `revokeKeysOfDeletedProject`; keys a person revoked stay revoked. */
export async function reactivateKeysOfRestoredProject(sql: SqlClient, projectId: string): Promise<void> {
  await sql.query(
    `update api_keys set revoked_at = null, revoked_by = null where project_id = $1 and revoked_by = 'project_deleted'`,
    [projectId],
  );
}

/** Keys that count toward the plan maximum: every non-deleted key (active or revoked) of the organization. */
export async function countKeysOfOrganization(sql: SqlClient, orgId: string): Promise<number> {
  const rows = await sql.query<{ keys: number }>(
    'select count(*)::int as keys from api_keys where org_id = $1 and deleted_at is null',
    [orgId],
  );
  return rows[0]!.keys;
}

export async function countKeysOfProject(sql: SqlClient, projectId: string): Promise<number> {
  const rows = await sql.query<{ keys: number }>(
    'select count(*)::int as keys from api_keys where project_id = $1 and deleted_at is null',
    [projectId],
  );
  return rows[0]!.keys;
}

/** What a gateway needs to authorize a request, for a key that may authenticate right now. */
export interface KeyGrantRow {
  key_id: string;
  key_hash: string;
  project_id: string;
  org_id: string;
  type: 'public' | 'secret';
  scopes: string[];
  region: string;
  allow_browser_logs: boolean;
  dsn_id: number;
  plan: string;
}

export async function findKeyGrant(sql: SqlClient, keyHash: string): Promise<KeyGrantRow | undefined> {
  const rows = await sql.query<KeyGrantRow>(
    `select k.id as key_id, k.key_hash, k.project_id, k.org_id, k.type, k.scopes, k.region,
            p.allow_browser_logs, p.dsn_id, o.plan
     from api_keys k
     join projects p on p.id = k.project_id
     join organizations o on o.id = k.org_id
     where k.key_hash = $1 and k.revoked_at is null and k.deleted_at is null
       and p.deleted_at is null and o.deleted_at is null`,
    [keyHash],
  );
  return rows[0];
}

/** Records when keys were last used, in one statement for many keys; never moves a time backwards. */
export async function touchApiKeys(sql: SqlClient, usedAt: Map<string, Date>): Promise<void> {
  if (usedAt.size === 0) return;
  await sql.query(
    `update api_keys k set last_used_at = greatest(k.last_used_at, u.used_at)
     from unnest($1::uuid[], $2::timestamptz[]) as u(id, used_at) where k.id = u.id`,
    [[...usedAt.keys()], [...usedAt.values()]],
  );
}
