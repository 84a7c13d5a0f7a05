import type { Properties, ReplaySessionRecord } from '@tlm/signals';
import type { TableDefinition } from '../store';

/**
 * One replay session's metadata (`POST /v1/replay/sessions`, Sentry `replay_event` of segment 0). A later upsert of
 * the same session replaces the row: the newest `updated_at` wins.
 */
export interface ReplaySessionRow {
  project_id: string;
  /** The session id the client chose. */
  id: string;
  distinct_id: string | null;
  started_at: number;
  url: string | null;
  user_agent: string | null;
  properties: Properties;
  updated_at: number;
  retention_days: number;
}

export const replaySessionsTable: TableDefinition<ReplaySessionRow> = {
  name: 'replay_sessions',
  mode: 'replace',
  timeColumn: 'started_at',
  person: { column: 'distinct_id' },
  columns: [
    { name: 'project_id', type: 'string' },
    { name: 'id', type: 'string' },
    { name: 'distinct_id', type: 'nullable_string' },
    { name: 'started_at', type: 'timestamp' },
    { name: 'url', type: 'nullable_string' },
    { name: 'user_agent', type: 'nullable_string' },
    { name: 'properties', type: 'properties' },
    { name: 'updated_at', type: 'timestamp' },
    { name: 'retention_days', type: 'uint16' },
  ],
  ddl: {
    duckdb: [
      `CREATE TABLE IF NOT EXISTS replay_sessions (
  project_id VARCHAR NOT NULL,
  id VARCHAR NOT NULL,
  distinct_id VARCHAR,
  started_at TIMESTAMP NOT NULL,
  url VARCHAR,
  user_agent VARCHAR,
  properties JSON NOT NULL,
  updated_at TIMESTAMP NOT NULL,
  retention_days USMALLINT NOT NULL,
  PRIMARY KEY (project_id, id)
)`,
    ],
    // Not partitioned: ReplacingMergeTree collapses versions only within a partition, and an upsert may move
    // started_at. Rows expire by their plan's retention like every telemetry row.
    clickhouse: [
      `CREATE TABLE IF NOT EXISTS replay_sessions
(
    project_id UUID,
    id String,
    distinct_id String,
    started_at DateTime64(3, 'UTC'),
    url String,
    user_agent String,
    properties Map(LowCardinality(String), String),
    properties_num Map(LowCardinality(String), Float64),
    updated_at DateTime64(3, 'UTC'),
    retention_days UInt16,
    INDEX idx_distinct_id distinct_id TYPE bloom_filter(0.01) GRANULARITY 1
)
ENGINE = ReplacingMergeTree(updated_at)
ORDER BY (project_id, id)
TTL toDateTime(started_at) + toIntervalDay(retention_days)`,
    ],
  },
};

export function replaySessionRow(record: ReplaySessionRecord): ReplaySessionRow {
  return {
    project_id: record.projectId,
    id: record.sessionId,
    distinct_id: record.distinctId,
    started_at: record.startedAt,
    url: record.url,
    user_agent: record.userAgent,
    properties: record.properties,
    updated_at: record.receivedAt,
    retention_days: record.retentionDays,
  };
}
