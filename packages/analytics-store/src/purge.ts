import { jsonPointer, type AnalyticsStore } from './store';
import { ANALYTICS_TABLES, errorsTable, stacksTable } from './tables';

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
  const clickhouse = store.dialect === 'clickhouse';
  for (const table of ANALYTICS_TABLES) {
    if (!table.timeColumn) continue;
    // A stack is written once a UTC day, at its first error: the day's later errors (and those dated ahead of their
    // receipt) are inside retention after it, so it stays while an error row still names it. Errors go first.
    const stillNamed =
      table === stacksTable
        ? clickhouse
          ? " AND id NOT IN (SELECT stack_id FROM errors WHERE project_id = {project_id:UUID} AND stack_id != '')"
          : ' AND id NOT IN (SELECT stack_id FROM errors WHERE project_id = $project_id AND stack_id IS NOT NULL)'
        : '';
    await store.execute(
      clickhouse
        ? `DELETE FROM ${table.name} WHERE project_id = {project_id:UUID} AND ${table.timeColumn} < {cutoff:DateTime64(3, 'UTC')}${stillNamed}`
        : `DELETE FROM ${table.name} WHERE project_id = $project_id AND ${table.timeColumn} < CAST($cutoff AS TIMESTAMP)${stillNamed}`,
      { project_id: projectId, cutoff: clickhouse ? cutoff.toISOString().replace('T', ' ').replace('Z', '') : cutoff.toISOString() },
    );
  }
}

/** SQL condition matching a table's rows about one person, in the store's dialect; the key is a catalog constant. */
function personCondition(dialect: AnalyticsStore['dialect'], person: { column: string; keys?: readonly string[] }): string {
  if (!person.keys) return dialect === 'clickhouse' ? `${person.column} = {person:String}` : `"${person.column}" = $person`;
  // Bags are flat: DuckDB reads a key with a JSON pointer, which names `user.id` or `$distinct_id` as one key ('$.user.id'
  // would be a nested path).
  const named = person.keys.map((key) =>
    dialect === 'clickhouse'
      ? `${person.column}['${key}'] = {person:String}`
      : `json_extract_string("${person.column}", '${jsonPointer(key)}') = $person`,
  );
  return named.length === 1 ? named[0]! : `(${named.join(' OR ')})`;
}

/**
 * GDPR erasure of one data subject (DECISIONS.md): every row of the project about `distinctId`, in every table that
 * names a person, the chunks of their replay sessions and the attachments of their errors. Returns the rows removed
 * per table, the blob keys of the removed replay chunks and the events whose attachments went, for the caller to
 * delete their bodies from the blob store.
 */
export async function erasePerson(
  store: AnalyticsStore,
  projectId: string,
  distinctId: string,
): Promise<{ removed: Record<string, number>; replaySessions: string[]; attachmentEvents: string[] }> {
  const clickhouse = store.dialect === 'clickhouse';
  const inProject = clickhouse ? 'project_id = {project_id:UUID}' : 'project_id = $project_id';
  const removed: Record<string, number> = {};

  // Chunk rows name their session, not the person: find the person's sessions first.
  const sessions = await store.query(
    `SELECT id FROM replay_sessions${clickhouse ? ' FINAL' : ''} WHERE ${inProject} AND ${personCondition(store.dialect, { column: 'distinct_id' })}`,
    { project_id: projectId, person: distinctId },
  );
  removed['replay_chunks'] = 0;
  for (const session of sessions) {
    const condition = `${inProject} AND session_id = ${clickhouse ? '{session:String}' : '$session'}`;
    const params = { project_id: projectId, session: String(session['id']) };
    const [counted] = await store.query(`SELECT count(*) AS n FROM replay_chunks${clickhouse ? ' FINAL' : ''} WHERE ${condition}`, params);
    const chunks = Number(counted?.['n'] ?? 0);
    removed['replay_chunks'] += chunks;
    if (chunks > 0) await store.execute(`DELETE FROM replay_chunks WHERE ${condition}`, params);
  }

  // Attachments name their error event, not the person: the person's errors pick them, before those rows go. Rows are
  // deleted by the ids selected, so the events answered are exactly those whose rows went.
  const errorIds = `SELECT ${clickhouse ? 'toString(id)' : 'id'} FROM errors WHERE ${inProject} AND ${personCondition(store.dialect, errorsTable.person!)}`;
  const attachments = await store.query(`SELECT id, event_id FROM attachments${clickhouse ? ' FINAL' : ''} WHERE ${inProject} AND event_id IN (${errorIds})`, {
    project_id: projectId,
    person: distinctId,
  });
  for (const attachment of attachments) {
    await store.execute(`DELETE FROM attachments WHERE ${inProject} AND id = ${clickhouse ? '{id:String}' : '$id'}`, { project_id: projectId, id: String(attachment['id']) });
  }
  removed['attachments'] = attachments.length;
  const attachmentEvents = [...new Set(attachments.map((attachment) => String(attachment['event_id'])))];

  for (const table of ANALYTICS_TABLES) {
    if (!table.person) continue;
    const condition = `${inProject} AND ${personCondition(store.dialect, table.person)}`;
    const params = { project_id: projectId, person: distinctId };
    // FINAL: a redelivered batch is two rows in ClickHouse until a merge; the person had one.
    const [counted] = await store.query(`SELECT count(*) AS n FROM ${table.name}${clickhouse ? ' FINAL' : ''} WHERE ${condition}`, params);
    removed[table.name] = Number(counted?.['n'] ?? 0);
    if (removed[table.name]! > 0) await store.execute(`DELETE FROM ${table.name} WHERE ${condition}`, params);
  }
  // The sessions' bodies are found by session in the blob store, on every day (a chunk sent again on a later day left
  // a copy under the earlier one that no row names any more).
  return { removed, replaySessions: sessions.map((session) => String(session['id'])), attachmentEvents };
}
