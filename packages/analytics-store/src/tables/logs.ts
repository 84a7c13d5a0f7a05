import type { LogRecord, Properties } from '@tlm/signals';
import type { AnalyticsStore, RecordMapping, TableDefinition } from '../store';
import { ALL_TRIGRAMS, textSignature } from '../textSignature';
import { decodedProperties, uncountedRowsSql, type StreamPosition } from './stream';

/** A stored log entry; the GQL source `logs`. */
export interface LogRow {
  project_id: string;
  timestamp: number;
  id: string;
  severity: string;
  message: string;
  properties: Properties;
  trace_id: string | null;
  span_id: string | null;
  received_at: number;
  retention_days: number;
  /**
   * Where the log sits in the stream the ingest writer counts into the schema registry and usage (docs/decisions.md
   * "Derived counts follow the rows"): the bus partition and offset there (Kafka), or partition 0 and the writer's own
   * sequence (standalone). Absent in rows written before these columns, and in rows written by anything but the writer.
   */
  stream_partition?: number;
  stream_offset?: number;
  /** The message's trigram signature (textSignature), which full-text search checks before the scan; DuckDB only. */
  message_trigrams?: number;
}

export const logsTable: TableDefinition<LogRow> = {
  name: 'logs',
  mode: 'append',
  timeColumn: 'timestamp',
  // The keys the log scanner reads as the user (services/log-scanner): `$distinct_id` is what @tlm/client sends.
  person: { column: 'properties', keys: ['distinct_id', '$distinct_id', 'user.id'] },
  columns: [
    { name: 'project_id', type: 'string' },
    { name: 'timestamp', type: 'timestamp' },
    { name: 'id', type: 'string' },
    { name: 'severity', type: 'string' },
    { name: 'message', type: 'string' },
    { name: 'properties', type: 'properties' },
    { name: 'trace_id', type: 'nullable_string' },
    { name: 'span_id', type: 'nullable_string' },
    { name: 'received_at', type: 'timestamp' },
    { name: 'retention_days', type: 'uint16' },
    { name: 'stream_partition', type: 'uint16' },
    { name: 'stream_offset', type: 'uint64' },
    { name: 'message_trigrams', type: 'text_signature', only: 'duckdb' },
  ],
  ddl: {
    duckdb: [
      `CREATE TABLE IF NOT EXISTS logs (
  project_id VARCHAR NOT NULL,
  timestamp TIMESTAMP NOT NULL,
  id VARCHAR NOT NULL,
  severity VARCHAR NOT NULL,
  message VARCHAR NOT NULL,
  properties JSON NOT NULL,
  trace_id VARCHAR,
  span_id VARCHAR,
  received_at TIMESTAMP NOT NULL,
  retention_days USMALLINT NOT NULL,
  stream_partition USMALLINT,
  stream_offset UBIGINT
)`,
      // Tables created before these columns existed get them last, where the INSERT's column order puts them.
      'ALTER TABLE logs ADD COLUMN IF NOT EXISTS stream_partition USMALLINT',
      'ALTER TABLE logs ADD COLUMN IF NOT EXISTS stream_offset UBIGINT',
      // Rows stored before it have every bit: full-text search tests them by the scan, as before.
      `ALTER TABLE logs ADD COLUMN IF NOT EXISTS message_trigrams UBIGINT DEFAULT ${ALL_TRIGRAMS}`,
    ],
    // project_id leads the sort key so every query reads one project's granules; ReplacingMergeTree on the
    // row id makes a redelivered Kafka batch collapse into the rows it already wrote.
    clickhouse: [
      `CREATE TABLE IF NOT EXISTS logs
(
    project_id UUID,
    timestamp DateTime64(3, 'UTC'),
    id UUID,
    severity LowCardinality(String),
    message String,
    properties Map(LowCardinality(String), String),
    properties_num Map(LowCardinality(String), Float64),
    trace_id String,
    span_id String,
    received_at DateTime64(3, 'UTC'),
    retention_days UInt16,
    stream_partition UInt16,
    stream_offset UInt64,
    INDEX idx_message lower(message) TYPE tokenbf_v1(32768, 3, 0) GRANULARITY 1,
    INDEX idx_trace_id trace_id TYPE bloom_filter(0.001) GRANULARITY 1,
    INDEX idx_property_keys mapKeys(properties) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_property_values mapValues(properties) TYPE bloom_filter(0.01) GRANULARITY 1
)
ENGINE = ReplacingMergeTree
PARTITION BY toDate(timestamp)
ORDER BY (project_id, timestamp, id)
TTL toDateTime(timestamp) + toIntervalDay(retention_days)
SETTINGS index_granularity = 8192`,
      'ALTER TABLE logs ADD COLUMN IF NOT EXISTS stream_partition UInt16 AFTER retention_days',
      'ALTER TABLE logs ADD COLUMN IF NOT EXISTS stream_offset UInt64 AFTER stream_partition',
    ],
  },
};

/** The stored row of a log; `position` is its place in the stream the ingest writer counts. */
export function logRow(record: LogRecord, position?: StreamPosition): LogRow {
  return {
    project_id: record.projectId,
    timestamp: record.timestamp,
    id: record.id,
    severity: record.severity,
    message: record.message,
    properties: record.properties,
    trace_id: record.traceId,
    span_id: record.spanId,
    received_at: record.receivedAt,
    retention_days: record.retentionDays,
    stream_partition: position?.partition,
    stream_offset: position?.offset,
    message_trigrams: textSignature(record.message),
  };
}

/** logRow as a mapping, for a store that reads the journaled records' JSON itself (AnalyticsStore.insertRecords). */
export const logRecordMapping: RecordMapping<LogRecord> = {
  fields: {
    project_id: 'projectId',
    timestamp: 'timestamp',
    id: 'id',
    severity: 'severity',
    message: 'message',
    properties: 'properties',
    trace_id: 'traceId',
    span_id: 'spanId',
    received_at: 'receivedAt',
    retention_days: 'retentionDays',
  },
  computed: (record, position) => ({
    id: record.id,
    stream_partition: position?.partition,
    stream_offset: position?.offset,
    message_trigrams: textSignature(record.message),
  }),
};

/** What the ingest writer reads back of a log row to count it: its project, receipt time, properties and offset. */
export interface StoredLog {
  projectId: string;
  receivedAt: number;
  properties: Properties;
  offset: number;
}

/**
 * Up to `limit` logs stored in a partition of the logs stream after offset `after`, in offset order: on start, the
 * ones a crash left stored but not counted into the schema registry and usage.
 */
export async function uncountedLogs(store: AnalyticsStore, partition: number, after: number, limit: number): Promise<StoredLog[]> {
  const rows = await store.query(uncountedRowsSql(store.dialect, 'logs', ''), { partition, after, limit });
  return rows.map((row) => ({
    projectId: String(row['project_id']),
    receivedAt: Number(row['received_at_ms']),
    properties: decodedProperties(row['properties']),
    offset: Number(row['stream_offset']),
  }));
}
