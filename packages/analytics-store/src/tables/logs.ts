import type { LogRecord, Properties } from '@tlm/signals';
import type { TableDefinition } from '../store';

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
  retention_days USMALLINT NOT NULL
)`,
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
    ],
  },
};

export function logRow(record: LogRecord): LogRow {
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
  };
}
