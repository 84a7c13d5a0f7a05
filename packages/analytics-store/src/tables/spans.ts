import type { Properties, SpanEvent, SpanRecord } from '@tlm/signals';
import type { TableDefinition } from '../store';

/** A stored span; the GQL source `spans`. `timestamp` is the span's start. */
export interface SpanRow {
  project_id: string;
  timestamp: number;
  id: string;
  trace_id: string;
  span_id: string;
  parent_span_id: string | null;
  name: string;
  op: string | null;
  kind: string | null;
  status: string;
  duration_ms: number;
  end_timestamp: number;
  service: string | null;
  release: string | null;
  environment: string | null;
  attributes: Properties;
  /** Named events with their time and attributes, in the order the span recorded them. */
  events: SpanEvent[];
  received_at: number;
  retention_days: number;
}

export const spansTable: TableDefinition<SpanRow> = {
  name: 'spans',
  mode: 'append',
  timeColumn: 'timestamp',
  columns: [
    { name: 'project_id', type: 'string' },
    { name: 'timestamp', type: 'timestamp' },
    { name: 'id', type: 'string' },
    { name: 'trace_id', type: 'string' },
    { name: 'span_id', type: 'string' },
    { name: 'parent_span_id', type: 'nullable_string' },
    { name: 'name', type: 'string' },
    { name: 'op', type: 'nullable_string' },
    { name: 'kind', type: 'nullable_string' },
    { name: 'status', type: 'string' },
    { name: 'duration_ms', type: 'float64' },
    { name: 'end_timestamp', type: 'timestamp' },
    { name: 'service', type: 'nullable_string' },
    { name: 'release', type: 'nullable_string' },
    { name: 'environment', type: 'nullable_string' },
    { name: 'attributes', type: 'properties' },
    { name: 'events', type: 'json' },
    { name: 'received_at', type: 'timestamp' },
    { name: 'retention_days', type: 'uint16' },
  ],
  ddl: {
    duckdb: [
      `CREATE TABLE IF NOT EXISTS spans (
  project_id VARCHAR NOT NULL,
  timestamp TIMESTAMP NOT NULL,
  id VARCHAR NOT NULL,
  trace_id VARCHAR NOT NULL,
  span_id VARCHAR NOT NULL,
  parent_span_id VARCHAR,
  name VARCHAR NOT NULL,
  op VARCHAR,
  kind VARCHAR,
  status VARCHAR NOT NULL,
  duration_ms DOUBLE NOT NULL,
  end_timestamp TIMESTAMP NOT NULL,
  service VARCHAR,
  release VARCHAR,
  environment VARCHAR,
  attributes JSON NOT NULL,
  events JSON,
  received_at TIMESTAMP NOT NULL,
  retention_days USMALLINT NOT NULL
)`,
    ],
    // A trace is read by its id across days, so trace_id has a bloom filter; the row id comes from the trace and
    // span ids, so an exporter's retry collapses into the first row like a redelivered batch does.
    clickhouse: [
      `CREATE TABLE IF NOT EXISTS spans
(
    project_id UUID,
    timestamp DateTime64(3, 'UTC'),
    id UUID,
    trace_id String,
    span_id String,
    parent_span_id String,
    name String,
    op LowCardinality(String),
    kind LowCardinality(String),
    status LowCardinality(String),
    duration_ms Float64,
    end_timestamp DateTime64(3, 'UTC'),
    service LowCardinality(String),
    release LowCardinality(String),
    environment LowCardinality(String),
    attributes Map(LowCardinality(String), String),
    attributes_num Map(LowCardinality(String), Float64),
    events String,
    received_at DateTime64(3, 'UTC'),
    retention_days UInt16,
    INDEX idx_trace_id trace_id TYPE bloom_filter(0.001) GRANULARITY 1,
    INDEX idx_span_id span_id TYPE bloom_filter(0.001) GRANULARITY 1,
    INDEX idx_name lower(name) TYPE tokenbf_v1(32768, 3, 0) GRANULARITY 1,
    INDEX idx_attribute_keys mapKeys(attributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_attribute_values mapValues(attributes) TYPE bloom_filter(0.01) GRANULARITY 1
)
ENGINE = ReplacingMergeTree
PARTITION BY toDate(timestamp)
ORDER BY (project_id, timestamp, id)
TTL toDateTime(timestamp) + toIntervalDay(retention_days)
SETTINGS index_granularity = 8192`,
    ],
  },
};

export function spanRow(record: SpanRecord): SpanRow {
  return {
    project_id: record.projectId,
    timestamp: record.timestamp,
    id: record.id,
    trace_id: record.traceId,
    span_id: record.spanId,
    parent_span_id: record.parentSpanId,
    name: record.name,
    op: record.op,
    kind: record.kind,
    status: record.status,
    duration_ms: record.durationMs,
    end_timestamp: record.endTimestamp,
    service: record.service,
    release: record.release,
    environment: record.environment,
    attributes: record.attributes,
    events: record.events,
    received_at: record.receivedAt,
    retention_days: record.retentionDays,
  };
}
