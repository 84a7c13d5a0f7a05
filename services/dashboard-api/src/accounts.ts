import { deleteProjectRows, type AnalyticsStore } from '@tlm/analytics-store';
import { deleteProjectBlobs, type BlobStore } from '@tlm/blob-store';
import { announceKeyChange } from '@tlm/auth';
import type { Bus } from '@tlm/bus';
import {
  endUserSessions,
  lockOrganizationsOwnedBy,
  purgeOrganizations,
  purgeProjectKeyedRows,
  purgeUser,
  setOrganizationsDeletedAt,
  setUserDeletedAt,
  type MetadataStore,
  type SqlClient,
} from '@tlm/metadata-store';

/** What account deletion and restore need. */
export interface AccountStores {
  metadata: MetadataStore;
  analytics: AnalyticsStore;
  blobs: BlobStore;
  bus: Bus;
}

/** Every stored row and body of a project, gone for good (project or account removal after the window). */
export async function purgeProjectData(stores: Pick<AccountStores, 'analytics' | 'blobs'>, projectId: string): Promise<void> {
  await deleteProjectRows(stores.analytics, projectId);
  await deleteProjectBlobs(stores.blobs, projectId);
}

/**
 * Organizations the user owns where no other owner's account is active: they are deactivated with the account, so an
 * organization whose owners have all deleted their accounts stops (SPEC.md Account lifecycle).
 */
async function organizationsLeftWithoutOwner(sql: SqlClient, userId: string): Promise<string[]> {
  const rows = await sql.query<{ id: string }>(
    `select m.org_id as id from memberships m
     where m.user_id = $1 and m.role = 'owner'
       and not exists (
         select 1 from memberships o join users u on u.id = o.user_id
         where o.org_id = m.org_id and o.role = 'owner' and o.user_id <> $1 and u.deleted_at is null)`,
    [userId],
  );
  return rows.map((row) => row.id);
}

/**
 * Organizations the user alone owns, counting owners whose accounts are soft-deleted (they may still restore): these
 * are removed for good with the account.
 */
async function soleOwnedOrganizations(sql: SqlClient, userId: string): Promise<string[]> {
  const rows = await sql.query<{ id: string }>(
    `select m.org_id as id from memberships m
     where m.user_id = $1 and m.role = 'owner'
       and not exists (select 1 from memberships o where o.org_id = m.org_id and o.role = 'owner' and o.user_id <> $1)`,
    [userId],
  );
  return rows.map((row) => row.id);
}

/** Of these organizations, the active ones stamped deleted at `deletedAt`; returns their ids. */
async function deactivateOrganizations(sql: SqlClient, ids: string[], deletedAt: Date): Promise<string[]> {
  const live = await sql.query<{ id: string }>('select id from organizations where id = any($1::uuid[]) and deleted_at is null', [ids]);
  await setOrganizationsDeletedAt(sql, live.map((row) => row.id), deletedAt);
  return live.map((row) => row.id);
}

/**
 * SPEC.md Account lifecycle, active → soft-deleted: the user, and the organizations left with no owner whose account
 * is active, are stamped deleted; key lookups honour it at once.
 */
export async function softDeleteAccount(stores: AccountStores, userId: string, deletedAt: Date): Promise<void> {
  const orgIds = await stores.metadata.transaction(async (tx) => {
    // Co-owners deleting their accounts at once take turns: the second sees the first gone.
    await lockOrganizationsOwnedBy(tx, userId);
    await setUserDeletedAt(tx, userId, deletedAt);
    // Tokens issued before the deletion stay dead after a restore, which issues new ones.
    await endUserSessions(tx, userId);
    return deactivateOrganizations(tx, await organizationsLeftWithoutOwner(tx, userId), deletedAt);
  });
  await announceKeyChange(stores.bus, { orgIds });
}

/**
 * Restore: the user, and every deactivated organization they own, which has an active owner again. Organizations are
 * deactivated only with their owners' accounts, so whichever co-owner comes back brings the organization back.
 */
export async function restoreAccount(stores: AccountStores, userId: string): Promise<void> {
  const orgIds = await stores.metadata.transaction(async (tx) => {
    // Takes turns with a co-owner's deletion, which could otherwise deactivate an organization this restore just missed.
    await lockOrganizationsOwnedBy(tx, userId);
    await setUserDeletedAt(tx, userId, null);
    const rows = await tx.query<{ id: string }>(
      `update organizations set deleted_at = null
       where deleted_at is not null
         and id in (select org_id from memberships where user_id = $1 and role = 'owner')
       returning id`,
      [userId],
    );
    return rows.map((row) => row.id);
  });
  await announceKeyChange(stores.bus, { orgIds });
}

/**
 * Permanent removal (immediately on request, or by the daily cleanup after the window): the user, the
 * organizations they alone own with their projects, keys and memberships, and every stored row of those projects.
 */
export async function purgeAccount(stores: AccountStores, userId: string): Promise<void> {
  for (;;) {
    const orgIds = await soleOwnedOrganizations(stores.metadata, userId);
    const projects = await stores.metadata.query<{ id: string }>('select id from projects where org_id = any($1::uuid[])', [orgIds]);
    const projectIds = projects.map((row) => row.id);
    for (const projectId of projectIds) await purgeProjectData(stores, projectId);
    const deactivated = await stores.metadata.transaction(async (tx) => {
      // Co-owners removed at once take turns: the second sees the first gone, and stops what they owned together.
      await lockOrganizationsOwnedBy(tx, userId);
      // A co-owner removed for good since the look above left this user sole owner of more: purge its data first.
      if ((await soleOwnedOrganizations(tx, userId)).some((id) => !orgIds.includes(id))) return undefined;
      // Organizations whose other owners are all soft-deleted stay, deactivated, for those owners to restore.
      const orphaned = (await organizationsLeftWithoutOwner(tx, userId)).filter((id) => !orgIds.includes(id));
      const stopped = await deactivateOrganizations(tx, orphaned, new Date());
      await purgeProjectKeyedRows(tx, projectIds);
      await purgeOrganizations(tx, orgIds);
      await purgeUser(tx, userId);
      return stopped;
    });
    if (deactivated === undefined) continue;
    await announceKeyChange(stores.bus, { orgIds: [...orgIds, ...deactivated] });
    return;
  }
}
