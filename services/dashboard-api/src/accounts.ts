import { deleteProjectRows, type AnalyticsStore } from '@tlm/analytics-store';
import { deleteProjectBlobs, type BlobStore } from '@tlm/blob-store';
import { announceKeyChange } from '@tlm/auth';
import type { Bus } from '@tlm/bus';
import {
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

/** Organizations that go and come back with the account: those where the user is the only owner. */
async function soleOwnedOrganizations(sql: SqlClient, userId: string): Promise<string[]> {
  const rows = await sql.query<{ id: string }>(
    `select m.org_id as id from memberships m
     where m.user_id = $1 and m.role = 'owner'
       and not exists (select 1 from memberships o where o.org_id = m.org_id and o.role = 'owner' and o.user_id <> $1)`,
    [userId],
  );
  return rows.map((row) => row.id);
}

/**
 * SPEC.md Account lifecycle, active → soft-deleted: the user and the organizations they alone own are stamped with
 * one deletion time, which key lookups honour at once; restore clears exactly what carries that stamp.
 */
export async function softDeleteAccount(stores: AccountStores, userId: string, deletedAt: Date): Promise<void> {
  const orgIds = await stores.metadata.transaction(async (tx) => {
    await setUserDeletedAt(tx, userId, deletedAt);
    const owned = await soleOwnedOrganizations(tx, userId);
    const live = await tx.query<{ id: string }>('select id from organizations where id = any($1::uuid[]) and deleted_at is null', [owned]);
    await setOrganizationsDeletedAt(tx, live.map((row) => row.id), deletedAt);
    return live.map((row) => row.id);
  });
  await announceKeyChange(stores.bus, { orgIds });
}

export async function restoreAccount(stores: AccountStores, userId: string, deletedAt: Date): Promise<void> {
  const orgIds = await stores.metadata.transaction(async (tx) => {
    await setUserDeletedAt(tx, userId, null);
    const rows = await tx.query<{ id: string }>(
      `update organizations set deleted_at = null
       where id = any($1::uuid[]) and deleted_at = $2 returning id`,
      [await soleOwnedOrganizations(tx, userId), deletedAt],
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
  const orgIds = await soleOwnedOrganizations(stores.metadata, userId);
  const projects = await stores.metadata.query<{ id: string }>('select id from projects where org_id = any($1::uuid[])', [orgIds]);
  const projectIds = projects.map((row) => row.id);
  for (const projectId of projectIds) await purgeProjectData(stores, projectId);
  await stores.metadata.transaction(async (tx) => {
    await purgeProjectKeyedRows(tx, projectIds);
    await purgeOrganizations(tx, orgIds);
    await purgeUser(tx, userId);
  });
  await announceKeyChange(stores.bus, { orgIds });
}
