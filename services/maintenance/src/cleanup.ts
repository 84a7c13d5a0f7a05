import { deleteExpiredRows, type AnalyticsStore } from '@tlm/analytics-store';
import { deleteBlobsBefore, type BlobStore } from '@tlm/blob-store';
import type { Bus } from '@tlm/bus';
import { PLANS, RESTORE_WINDOW_DAYS, type PlanName } from '@tlm/core';
import { purgeAccount, purgeProjectData } from '@tlm/dashboard-api';
import { deleteExportJobsBefore, purgeExpiredIssues, purgeProjectKeyedRows, type MetadataStore } from '@tlm/metadata-store';

export interface CleanupDeps {
  metadata: MetadataStore;
  analytics: AnalyticsStore;
  blobs: BlobStore;
  bus: Bus;
}

export interface CleanupReport {
  accounts_removed: number;
  projects_removed: number;
  keys_removed: number;
  projects_trimmed_to_retention: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The daily cleanup (SPEC.md items 14 and 15): soft-deleted accounts, projects and keys older than the restore
 * window are removed for good, and every live project's telemetry older than its plan's retention is purged.
 */
export async function runCleanup(deps: CleanupDeps, now = new Date()): Promise<CleanupReport> {
  const expired = new Date(now.getTime() - RESTORE_WINDOW_DAYS * DAY_MS);

  const accounts = await deps.metadata.query<{ id: string }>('select id from users where deleted_at < $1', [expired]);
  for (const account of accounts) await purgeAccount(deps, account.id);

  const projects = await deps.metadata.query<{ id: string }>('select id from projects where deleted_at < $1', [expired]);
  for (const project of projects) {
    await purgeProjectData(deps, project.id);
    await deps.metadata.transaction(async (tx) => {
      await purgeProjectKeyedRows(tx, [project.id]);
      await tx.query('delete from projects where id = $1', [project.id]);
    });
  }

  const keys = await deps.metadata.query<{ id: string }>('delete from api_keys where deleted_at < $1 returning id', [expired]);

  // Every project still stored is trimmed, the soft-deleted ones (restorable for 30 days) too: retention holds for
  // their rows as well.
  const live = await deps.metadata.query<{ id: string; plan: PlanName }>(`select p.id, o.plan from projects p join organizations o on o.id = p.org_id`);
  for (const project of live) {
    const cutoff = new Date(now.getTime() - PLANS[project.plan].retentionDays * DAY_MS);
    // Issue state first: a snapshot written behind it is then cut by the analytics purge, now or at the next run.
    await deps.metadata.transaction((tx) => purgeExpiredIssues(tx, project.id, cutoff));
    await deleteExpiredRows(deps.analytics, project.id, cutoff);
    await deleteBlobsBefore(deps.blobs, project.id, cutoff);
    await deleteExportJobsBefore(deps.metadata, project.id, cutoff);
  }

  return {
    accounts_removed: accounts.length,
    projects_removed: projects.length,
    keys_removed: keys.length,
    projects_trimmed_to_retention: live.length,
  };
}
