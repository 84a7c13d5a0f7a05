import type { ErrorRecord, Properties, StackFrame } from '@tlm/signals';
import type { AnalyticsStore, RecordMapping, ResultRow, TableDefinition } from '../store';
import { storedFrames } from './stacks';

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
  /**
   * Stack frames, innermost last: function, filename, lineno, colno, in_app. Null when the row names its stack instead
   * (`stack_id`, the `stacks` table), as every row with frames does unless written before the `stacks` table existed;
   * GQL reads either.
   */
  frames: unknown[] | null;
  /** The latest 50: category, message, timestamp. */
  breadcrumbs: unknown[];
  received_at: number;
  retention_days: number;
  /**
   * Where the error sits in the stream the issues processor counts (docs/decisions.md "Issue counts follow the rows"):
   * the bus partition and the offset there (Kafka), or partition 0 and the processor's own sequence (standalone).
   * Rows above the processor's stored position are not counted yet. Columns added by ALTER, so rows stored before
   * them hold NULL (DuckDB) or 0 (ClickHouse).
   */
  stream_partition: number;
  stream_offset: number;
  /**
   * The row's frames in the `stacks` table; null when it has no frames, or holds them itself (rows written before the
   * `stacks` table existed).
   */
  stack_id: string | null;
}

export const errorsTable: TableDefinition<ErrorRow> = {
  name: 'errors',
  mode: 'append',
  timeColumn: 'timestamp',
  person: { column: 'user', keys: ['id'] },
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
    { name: 'stream_partition', type: 'uint16' },
    { name: 'stream_offset', type: 'uint64' },
    { name: 'stack_id', type: 'nullable_string' },
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
  retention_days USMALLINT NOT NULL,
  stream_partition USMALLINT,
  stream_offset UBIGINT,
  stack_id VARCHAR
)`,
      // Tables created before these columns existed get them last, where the INSERT's column order puts them.
      'ALTER TABLE errors ADD COLUMN IF NOT EXISTS stream_partition USMALLINT',
      'ALTER TABLE errors ADD COLUMN IF NOT EXISTS stream_offset UBIGINT',
      'ALTER TABLE errors ADD COLUMN IF NOT EXISTS stack_id VARCHAR',
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
    stream_partition UInt16,
    stream_offset UInt64,
    stack_id String,
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
      'ALTER TABLE errors ADD COLUMN IF NOT EXISTS stream_partition UInt16 AFTER retention_days',
      'ALTER TABLE errors ADD COLUMN IF NOT EXISTS stream_offset UInt64 AFTER stream_partition',
      'ALTER TABLE errors ADD COLUMN IF NOT EXISTS stack_id String AFTER stream_offset',
    ],
  },
};

/**
 * The stored row of an error once the issues processor has fingerprinted it, knows its issue, its stream position and
 * the id of its stack (stackOf), whose frames the `stacks` table holds.
 */
export function errorRow(record: ErrorRecord, grouping: ErrorGrouping): ErrorRow {
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
    frames: grouping.stackId === null ? storedFrames(record.frames) : null,
    breadcrumbs: record.breadcrumbs,
    received_at: record.receivedAt,
    retention_days: record.retentionDays,
    stream_partition: grouping.partition,
    stream_offset: grouping.offset,
    stack_id: grouping.stackId,
  };
}

/** What the issues processor knows of an error beside its record: its issue, its stream position and its stack. */
export interface ErrorGrouping {
  issueId: string;
  fingerprintHash: string;
  partition: number;
  offset: number;
  stackId: string | null;
}

/**
 * errorRow as a mapping, for a store that reads the journaled records' JSON itself (AnalyticsStore.insertRecords):
 * an error's record holds most of its row as the row has it, so the issues processor serialises only the grouping.
 */
export const errorRecordMapping: RecordMapping<ErrorRecord, ErrorGrouping> = {
  fields: {
    project_id: 'projectId',
    timestamp: 'timestamp',
    id: 'id',
    type: 'type',
    value: 'value',
    level: 'level',
    release: 'release',
    environment: 'environment',
    platform: 'platform',
    source: 'source',
    trace_id: 'traceId',
    span_id: 'spanId',
    user: 'user',
    tags: 'tags',
    extra: 'extra',
    breadcrumbs: 'breadcrumbs',
    received_at: 'receivedAt',
    retention_days: 'retentionDays',
  },
  computed: (record, grouping) => ({
    id: record.id,
    issue_id: grouping.issueId,
    fingerprint_hash: grouping.fingerprintHash,
    frames: grouping.stackId === null ? storedFrames(record.frames) : null,
    stream_partition: grouping.partition,
    stream_offset: grouping.offset,
    stack_id: grouping.stackId,
  }),
};

/** What the issues processor reads back of an error row to count it: the row's grouping, times, release and user. */
export interface StoredError {
  projectId: string;
  id: string;
  issueId: string;
  fingerprintHash: string;
  type: string;
  value: string;
  level: string;
  release: string | null;
  /** Epoch milliseconds. */
  timestamp: number;
  receivedAt: number;
  user: Properties;
  tags: Properties;
  frames: StackFrame[];
  offset: number;
}

const UNCOUNTED_ERRORS = {
  duckdb: `SELECT e.project_id, e.id, e.issue_id, e.fingerprint_hash, e.type, e.value, e.level, e.release,
  epoch_ms(e.timestamp) AS timestamp_ms, epoch_ms(e.received_at) AS received_at_ms, e."user", e.tags,
  coalesce(e.frames, s.frames) AS frames, e.stream_offset
FROM errors e LEFT JOIN stacks s ON s.project_id = e.project_id AND s.id = e.stack_id
WHERE e.stream_partition = $partition AND e.stream_offset > $after
ORDER BY e.stream_offset
LIMIT $limit`,
  clickhouse: `SELECT toString(e.project_id) AS project_id, toString(e.id) AS id, toString(e.issue_id) AS issue_id, e.fingerprint_hash AS fingerprint_hash,
  e.type AS type, e.value AS value, e.level AS level, e.release AS release, toUnixTimestamp64Milli(e.timestamp) AS timestamp_ms,
  toUnixTimestamp64Milli(e.received_at) AS received_at_ms, e.user AS user, e.tags AS tags,
  if(e.stack_id = '', e.frames, s.frames) AS frames, e.stream_offset AS stream_offset
FROM errors AS e LEFT JOIN (SELECT project_id, id, frames FROM stacks FINAL) AS s ON s.project_id = e.project_id AND s.id = e.stack_id
WHERE e.stream_partition = {partition:UInt16} AND e.stream_offset > {after:Int64}
ORDER BY e.stream_offset
LIMIT {limit:UInt32}`,
} as const;

/** DuckDB keeps property bags and JSON columns as JSON text, ClickHouse bags as maps and JSON columns as text. */
function decoded<T>(value: unknown, empty: T): T {
  if (typeof value === 'string') return value === '' ? empty : (JSON.parse(value) as T);
  return (value ?? empty) as T;
}

function storedError(row: ResultRow): StoredError {
  return {
    projectId: String(row['project_id']),
    id: String(row['id']),
    issueId: String(row['issue_id']),
    fingerprintHash: String(row['fingerprint_hash']),
    type: String(row['type']),
    value: String(row['value']),
    level: String(row['level']),
    // ClickHouse stores an absent release as ''.
    release: (row['release'] as string | null) || null,
    timestamp: Number(row['timestamp_ms']),
    receivedAt: Number(row['received_at_ms']),
    user: decoded<Properties>(row['user'], {}),
    tags: decoded<Properties>(row['tags'], {}),
    frames: decoded<StackFrame[]>(row['frames'], []),
    offset: Number(row['stream_offset']),
  };
}

/**
 * Up to `limit` errors stored in a partition of the errors stream after offset `after`, in offset order: on start,
 * the ones a crash left stored but not counted (docs/decisions.md "Issue counts follow the rows").
 */
export async function uncountedErrors(store: AnalyticsStore, partition: number, after: number, limit: number): Promise<StoredError[]> {
  const rows = await store.query(UNCOUNTED_ERRORS[store.dialect], { partition, after, limit });
  return rows.map(storedError);
}

const COUNTED_ERROR_IDS = {
  duckdb: `SELECT project_id, id
FROM errors
WHERE stream_partition = $partition AND stream_offset <= $through AND received_at >= make_timestamp($since * 1000)
ORDER BY received_at DESC
LIMIT $limit`,
  clickhouse: `SELECT toString(project_id) AS project_id, toString(id) AS id
FROM errors
WHERE stream_partition = {partition:UInt16} AND stream_offset <= {through:Int64} AND received_at >= fromUnixTimestamp64Milli({since:Int64})
ORDER BY received_at DESC
LIMIT {limit:UInt32}`,
} as const;

/**
 * The (project, event id) of up to `limit` of the newest errors received since `since` (epoch milliseconds) in a
 * partition of the errors stream, at or below offset `through`: those the issues processor has counted, whose retries
 * it must skip.
 */
export async function countedErrorIds(
  store: AnalyticsStore,
  partition: number,
  through: number,
  since: number,
  limit: number,
): Promise<{ projectId: string; id: string }[]> {
  const rows = await store.query(COUNTED_ERROR_IDS[store.dialect], { partition, through, since, limit });
  return rows.map((row) => ({ projectId: String(row['project_id']), id: String(row['id']) }));
}

/** The highest offset stored in a partition of the errors stream; -1 when it holds none. */
export async function lastErrorOffset(store: AnalyticsStore, partition: number): Promise<number> {
  const sql =
    store.dialect === 'clickhouse'
      ? 'SELECT max(stream_offset) AS last, count() AS stored FROM errors WHERE stream_partition = {partition:UInt16}'
      : 'SELECT max(stream_offset) AS last, count(*) AS stored FROM errors WHERE stream_partition = $partition';
  const [row] = await store.query(sql, { partition });
  return row && Number(row['stored']) > 0 ? Number(row['last']) : -1;
}
