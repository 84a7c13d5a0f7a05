import type { AnalyticsStore } from './store';
import { ANALYTICS_TABLES } from './tables';

/** Removes every row of a project from every table (permanent project or account removal). */
export async function deleteProjectRows(store: AnalyticsStore, projectId: string): Promise<void> {
  for (const table of ANALYTICS_TABLES) {
    // ClickHouse lightweight deletes hide the rows from reads at once; merges reclaim the space later.
    await store.execute(
      store.dialect === 'clickhouse'
        ? `DELETE FROM ${table.name} WHERE project_id = {project_id:UUID}`
        : `DELETE FROM ${table.name} WHERE project_id = $project_id`,
      { project_id: projectId },
    );
  }
}

/**
 * Removes a project's telemetry older than `cutoff` (the plan's retention). ClickHouse also expires rows by the
 * TTL on retention_days; this catches rows written under a longer plan than the current one.
 */
export async function deleteExpiredRows(store: AnalyticsStore, projectId: string, cutoff: Date): Promise<void> {
  for (const table of ANALYTICS_TABLES) {
    if (!table.timeColumn) continue;
    await store.execute(
      store.dialect === 'clickhouse'
        ? `DELETE FROM ${table.name} WHERE project_id = {project_id:UUID} AND ${table.timeColumn} < {cutoff:DateTime64(3, 'UTC')}`
        : `DELETE FROM ${table.name} WHERE project_id = $project_id AND ${table.timeColumn} < CAST($cutoff AS TIMESTAMP)`,
      { project_id: projectId, cutoff: store.dialect === 'clickhouse' ? cutoff.toISOString().replace('T', ' ').replace('Z', '') : cutoff.toISOString() },
    );
  }
}
