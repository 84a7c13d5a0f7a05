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

/** SQL condition matching a table's rows about one person, in the store's dialect; the key is a catalog constant. */
function personCondition(dialect: AnalyticsStore['dialect'], person: { column: string; key?: string }): string {
  if (dialect === 'clickhouse') {
    return person.key ? `${person.column}['${person.key}'] = {person:String}` : `${person.column} = {person:String}`;
  }
  return person.key ? `json_extract_string("${person.column}", '$.${person.key}') = $person` : `"${person.column}" = $person`;
}

/**
 * GDPR erasure of one data subject (DECISIONS.md): every row of the project about `distinctId`, in every table
 * that names a person. Returns the rows removed per table.
 */
export async function erasePerson(store: AnalyticsStore, projectId: string, distinctId: string): Promise<Record<string, number>> {
  const removed: Record<string, number> = {};
  for (const table of ANALYTICS_TABLES) {
    if (!table.person) continue;
    const where = store.dialect === 'clickhouse' ? 'project_id = {project_id:UUID}' : 'project_id = $project_id';
    const condition = `${where} AND ${personCondition(store.dialect, table.person)}`;
    const params = { project_id: projectId, person: distinctId };
    const [counted] = await store.query(`SELECT count(*) AS n FROM ${table.name} WHERE ${condition}`, params);
    removed[table.name] = Number(counted?.['n'] ?? 0);
    if (removed[table.name]! > 0) await store.execute(`DELETE FROM ${table.name} WHERE ${condition}`, params);
  }
  return removed;
}
