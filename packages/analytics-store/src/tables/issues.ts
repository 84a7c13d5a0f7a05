import type { AnalyticsStore, TableDefinition } from '../store';

/**
 * Snapshot of an issue for GQL (`from:issues`). The issue's state is owned by the metadata store, where
 * fingerprint uniqueness and counters are transactional; every change writes a new snapshot here.
 */
export interface IssueRow {
  project_id: string;
  id: string;
  short_id: number;
  title: string;
  culprit: string;
  fingerprint: string;
  status: string;
  level: string;
  event_count: number;
  user_count: number;
  first_seen: number;
  last_seen: number;
  release_first: string | null;
  release_last: string | null;
  resolved_in_release: string | null;
  /** Snapshot version: the newest wins. */
  updated_at: number;
}

export const issuesTable: TableDefinition<IssueRow> = {
  name: 'issues',
  mode: 'replace',
  // An issue last seen before the plan's retention goes with its errors (the daily cleanup; its state too).
  timeColumn: 'last_seen',
  columns: [
    { name: 'project_id', type: 'string' },
    { name: 'id', type: 'string' },
    { name: 'short_id', type: 'uint64' },
    { name: 'title', type: 'string' },
    { name: 'culprit', type: 'string' },
    { name: 'fingerprint', type: 'string' },
    { name: 'status', type: 'string' },
    { name: 'level', type: 'string' },
    { name: 'event_count', type: 'uint64' },
    { name: 'user_count', type: 'uint64' },
    { name: 'first_seen', type: 'timestamp' },
    { name: 'last_seen', type: 'timestamp' },
    { name: 'release_first', type: 'nullable_string' },
    { name: 'release_last', type: 'nullable_string' },
    { name: 'resolved_in_release', type: 'nullable_string' },
    { name: 'updated_at', type: 'timestamp' },
  ],
  ddl: {
    duckdb: [
      `CREATE TABLE IF NOT EXISTS issues (
  project_id VARCHAR NOT NULL,
  id VARCHAR NOT NULL,
  short_id UBIGINT NOT NULL,
  title VARCHAR NOT NULL,
  culprit VARCHAR NOT NULL,
  fingerprint VARCHAR NOT NULL,
  status VARCHAR NOT NULL,
  level VARCHAR NOT NULL,
  event_count UBIGINT NOT NULL,
  user_count UBIGINT NOT NULL,
  first_seen TIMESTAMP NOT NULL,
  last_seen TIMESTAMP NOT NULL,
  release_first VARCHAR,
  release_last VARCHAR,
  resolved_in_release VARCHAR,
  updated_at TIMESTAMP NOT NULL,
  PRIMARY KEY (project_id, id)
)`,
    ],
    clickhouse: [
      `CREATE TABLE IF NOT EXISTS issues
(
    project_id UUID,
    id UUID,
    short_id UInt64,
    title String,
    culprit String,
    fingerprint String,
    status LowCardinality(String),
    level LowCardinality(String),
    event_count UInt64,
    user_count UInt64,
    first_seen DateTime64(3, 'UTC'),
    last_seen DateTime64(3, 'UTC'),
    release_first String,
    release_last String,
    resolved_in_release String,
    updated_at DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(updated_at)
ORDER BY (project_id, id)`,
    ],
  },
};

/**
 * Epoch milliseconds of the newest issue snapshot stored (`updated_at`, the snapshot version); undefined when there
 * is none. The issues processor looks back from it on start for snapshots a crash kept it from writing.
 */
export async function newestIssueSnapshot(store: AnalyticsStore): Promise<number | undefined> {
  const sql =
    store.dialect === 'clickhouse'
      ? 'SELECT toUnixTimestamp64Milli(max(updated_at)) AS newest, count() AS snapshots FROM issues'
      : 'SELECT epoch_ms(max(updated_at)) AS newest, count(*) AS snapshots FROM issues';
  const [row] = await store.query(sql);
  return row && Number(row['snapshots']) > 0 ? Number(row['newest']) : undefined;
}
