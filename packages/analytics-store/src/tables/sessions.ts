import type { Properties, SessionRecord } from '@tlm/signals';
import type { TableDefinition } from '../store';

/**
 * Release-health sessions (Sentry `session` and `sessions` items); the GQL source `sessions`. A single session's
 * row is keyed by its session id and replaced by each newer update, so the table holds its latest state; an
 * aggregate row counts `quantity` sessions of one outcome. Crash-free sessions: `sum(quantity) by outcome`.
 */
export interface SessionRow {
  project_id: string;
  id: string;
  session_id: string | null;
  distinct_id: string | null;
  status: string;
  outcome: string;
  errors: number;
  quantity: number;
  started: number;
  timestamp: number;
  duration_ms: number;
  release: string;
  environment: string | null;
  properties: Properties;
  updated_at: number;
  received_at: number;
  retention_days: number;
}

export const sessionsTable: TableDefinition<SessionRow> = {
  name: 'sessions',
  mode: 'replace',
  timeColumn: 'started',
  person: { column: 'distinct_id' },
  columns: [
    { name: 'project_id', type: 'string' },
    { name: 'id', type: 'string' },
    { name: 'session_id', type: 'nullable_string' },
    { name: 'distinct_id', type: 'nullable_string' },
    { name: 'status', type: 'string' },
    { name: 'outcome', type: 'string' },
    { name: 'errors', type: 'uint32' },
    { name: 'quantity', type: 'uint32' },
    { name: 'started', type: 'timestamp' },
    { name: 'timestamp', type: 'timestamp' },
    { name: 'duration_ms', type: 'float64' },
    { name: 'release', type: 'string' },
    { name: 'environment', type: 'nullable_string' },
    { name: 'properties', type: 'properties' },
    { name: 'updated_at', type: 'timestamp' },
    { name: 'received_at', type: 'timestamp' },
    { name: 'retention_days', type: 'uint16' },
  ],
  ddl: {
    duckdb: [
      `CREATE TABLE IF NOT EXISTS sessions (
  project_id VARCHAR NOT NULL,
  id VARCHAR NOT NULL,
  session_id VARCHAR,
  distinct_id VARCHAR,
  status VARCHAR NOT NULL,
  outcome VARCHAR NOT NULL,
  errors UINTEGER NOT NULL,
  quantity UINTEGER NOT NULL,
  started TIMESTAMP NOT NULL,
  timestamp TIMESTAMP NOT NULL,
  duration_ms DOUBLE NOT NULL,
  release VARCHAR NOT NULL,
  environment VARCHAR,
  properties JSON NOT NULL,
  updated_at TIMESTAMP NOT NULL,
  received_at TIMESTAMP NOT NULL,
  retention_days USMALLINT NOT NULL,
  PRIMARY KEY (project_id, id)
)`,
    ],
    // A session's `started` never changes between updates, so the partition and sort key are stable per row and
    // ReplacingMergeTree collapses its updates to the newest `updated_at`.
    clickhouse: [
      `CREATE TABLE IF NOT EXISTS sessions
(
    project_id UUID,
    id String,
    session_id String,
    distinct_id String,
    status LowCardinality(String),
    outcome LowCardinality(String),
    errors UInt32,
    quantity UInt32,
    started DateTime64(3, 'UTC'),
    timestamp DateTime64(3, 'UTC'),
    duration_ms Float64,
    release LowCardinality(String),
    environment LowCardinality(String),
    properties Map(LowCardinality(String), String),
    properties_num Map(LowCardinality(String), Float64),
    updated_at DateTime64(3, 'UTC'),
    received_at DateTime64(3, 'UTC'),
    retention_days UInt16,
    INDEX idx_distinct_id distinct_id TYPE bloom_filter(0.01) GRANULARITY 1
)
ENGINE = ReplacingMergeTree(updated_at)
PARTITION BY toDate(started)
ORDER BY (project_id, started, id)
TTL toDateTime(started) + toIntervalDay(retention_days)
SETTINGS index_granularity = 8192`,
    ],
  },
};

export function sessionRow(record: SessionRecord): SessionRow {
  return {
    project_id: record.projectId,
    id: record.id,
    session_id: record.sessionId,
    distinct_id: record.distinctId,
    status: record.status,
    outcome: record.outcome,
    errors: record.errors,
    quantity: record.quantity,
    started: record.started,
    timestamp: record.timestamp,
    duration_ms: record.durationMs,
    release: record.release,
    environment: record.environment,
    properties: record.properties,
    updated_at: record.timestamp,
    received_at: record.receivedAt,
    retention_days: record.retentionDays,
  };
}
