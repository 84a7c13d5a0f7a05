import type { ErrorRecord, Properties } from '@tlm/signals';
import type { TableDefinition } from '../store';

/** A captured error event; the GQL source `errors`. Rows are written by the issues processor. */
export interface ErrorRow {
  project_id: string;
  timestamp: number;
  id: string;
  issue_id: string;
  fingerprint_hash: string;
  type: string;
  value: string;
  level: string;
  release: string | null;
  environment: string | null;
  platform: string | null;
  /** `window.onerror` / `unhandledRejection` for automatic browser captures. */
  source: string | null;
  trace_id: string | null;
  span_id: string | null;
  user: Properties;
  tags: Properties;
  extra: Properties;
  /** Stack frames, innermost last: function, filename, lineno, colno, in_app. */
  frames: unknown[];
  /** The latest 50: category, message, timestamp. */
  breadcrumbs: unknown[];
  received_at: number;
  retention_days: number;
}

export const errorsTable: TableDefinition<ErrorRow> = {
  name: 'errors',
  mode: 'append',
  timeColumn: 'timestamp',
  person: { column: 'user', key: 'id' },
  columns: [
    { name: 'project_id', type: 'string' },
    { name: 'timestamp', type: 'timestamp' },
    { name: 'id', type: 'string' },
    { name: 'issue_id', type: 'string' },
    { name: 'fingerprint_hash', type: 'string' },
    { name: 'type', type: 'string' },
    { name: 'value', type: 'string' },
    { name: 'level', type: 'string' },
    { name: 'release', type: 'nullable_string' },
    { name: 'environment', type: 'nullable_string' },
    { name: 'platform', type: 'nullable_string' },
    { name: 'source', type: 'nullable_string' },
    { name: 'trace_id', type: 'nullable_string' },
    { name: 'span_id', type: 'nullable_string' },
    { name: 'user', type: 'properties' },
    { name: 'tags', type: 'properties' },
    { name: 'extra', type: 'properties' },
    { name: 'frames', type: 'json' },
    { name: 'breadcrumbs', type: 'json' },
    { name: 'received_at', type: 'timestamp' },
    { name: 'retention_days', type: 'uint16' },
  ],
  ddl: {
    duckdb: [
      `CREATE TABLE IF NOT EXISTS errors (
  project_id VARCHAR NOT NULL,
  timestamp TIMESTAMP NOT NULL,
  id VARCHAR NOT NULL,
  issue_id VARCHAR NOT NULL,
  fingerprint_hash VARCHAR NOT NULL,
  type VARCHAR NOT NULL,
  value VARCHAR NOT NULL,
  level VARCHAR NOT NULL,
  release VARCHAR,
  environment VARCHAR,
  platform VARCHAR,
  source VARCHAR,
  trace_id VARCHAR,
  span_id VARCHAR,
  "user" JSON NOT NULL,
  tags JSON NOT NULL,
  extra JSON NOT NULL,
  frames JSON,
  breadcrumbs JSON,
  received_at TIMESTAMP NOT NULL,
  retention_days USMALLINT NOT NULL
)`,
    ],
    clickhouse: [
      `CREATE TABLE IF NOT EXISTS errors
(
    project_id UUID,
    timestamp DateTime64(3, 'UTC'),
    id UUID,
    issue_id UUID,
    fingerprint_hash String,
    type String,
    value String,
    level LowCardinality(String),
    release LowCardinality(String),
    environment LowCardinality(String),
    platform LowCardinality(String),
    source LowCardinality(String),
    trace_id String,
    span_id String,
    user Map(LowCardinality(String), String),
    user_num Map(LowCardinality(String), Float64),
    tags Map(LowCardinality(String), String),
    tags_num Map(LowCardinality(String), Float64),
    extra Map(LowCardinality(String), String),
    extra_num Map(LowCardinality(String), Float64),
    frames String,
    breadcrumbs String,
    received_at DateTime64(3, 'UTC'),
    retention_days UInt16,
    INDEX idx_fingerprint fingerprint_hash TYPE bloom_filter(0.001) GRANULARITY 1,
    INDEX idx_issue issue_id TYPE bloom_filter(0.001) GRANULARITY 1,
    INDEX idx_trace_id trace_id TYPE bloom_filter(0.001) GRANULARITY 1,
    INDEX idx_value lower(value) TYPE tokenbf_v1(32768, 3, 0) GRANULARITY 1
)
ENGINE = ReplacingMergeTree
PARTITION BY toDate(timestamp)
ORDER BY (project_id, timestamp, id)
TTL toDateTime(timestamp) + toIntervalDay(retention_days)
SETTINGS index_granularity = 8192`,
    ],
  },
};

/** The stored row of an error once the issues processor has fingerprinted it and knows its issue. */
export function errorRow(record: ErrorRecord, grouping: { issueId: string; fingerprintHash: string }): ErrorRow {
  return {
    project_id: record.projectId,
    timestamp: record.timestamp,
    id: record.id,
    issue_id: grouping.issueId,
    fingerprint_hash: grouping.fingerprintHash,
    type: record.type,
    value: record.value,
    level: record.level,
    release: record.release,
    environment: record.environment,
    platform: record.platform,
    source: record.source,
    trace_id: record.traceId,
    span_id: record.spanId,
    user: record.user,
    tags: record.tags,
    extra: record.extra,
    frames: record.frames.map(withoutNulls),
    breadcrumbs: record.breadcrumbs.map(withoutNulls),
    received_at: record.receivedAt,
    retention_days: record.retentionDays,
  };
}

/** Frames and breadcrumbs are stored without their absent fields: error rows are mostly frames, and bytes cost. */
function withoutNulls(value: object): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  // for-in rather than Object.entries: no array of pairs per frame (this runs for every frame of every error).
  for (const key in value) {
    const field = (value as Record<string, unknown>)[key];
    if (field !== null && field !== undefined) kept[key] = field;
  }
  return kept;
}
