import type { Properties, VitalRecord } from '@tlm/signals';
import type { TableDefinition } from '../store';

/** A stored web vital measurement; the GQL source `vitals`. */
export interface VitalRow {
  project_id: string;
  timestamp: number;
  id: string;
  name: string;
  value: number;
  route: string;
  rating: string;
  trace_id: string | null;
  release: string | null;
  environment: string | null;
  properties: Properties;
  received_at: number;
  retention_days: number;
}

export const vitalsTable: TableDefinition<VitalRow> = {
  name: 'vitals',
  mode: 'append',
  timeColumn: 'timestamp',
  columns: [
    { name: 'project_id', type: 'string' },
    { name: 'timestamp', type: 'timestamp' },
    { name: 'id', type: 'string' },
    { name: 'name', type: 'string' },
    { name: 'value', type: 'float64' },
    { name: 'route', type: 'string' },
    { name: 'rating', type: 'string' },
    { name: 'trace_id', type: 'nullable_string' },
    { name: 'release', type: 'nullable_string' },
    { name: 'environment', type: 'nullable_string' },
    { name: 'properties', type: 'properties' },
    { name: 'received_at', type: 'timestamp' },
    { name: 'retention_days', type: 'uint16' },
  ],
  ddl: {
    duckdb: [
      `CREATE TABLE IF NOT EXISTS vitals (
  project_id VARCHAR NOT NULL,
  timestamp TIMESTAMP NOT NULL,
  id VARCHAR NOT NULL,
  name VARCHAR NOT NULL,
  value DOUBLE NOT NULL,
  route VARCHAR NOT NULL,
  rating VARCHAR NOT NULL,
  trace_id VARCHAR,
  release VARCHAR,
  environment VARCHAR,
  properties JSON NOT NULL,
  received_at TIMESTAMP NOT NULL,
  retention_days USMALLINT NOT NULL
)`,
    ],
    clickhouse: [
      `CREATE TABLE IF NOT EXISTS vitals
(
    project_id UUID,
    timestamp DateTime64(3, 'UTC'),
    id UUID,
    name LowCardinality(String),
    value Float64,
    route String,
    rating LowCardinality(String),
    trace_id String,
    release LowCardinality(String),
    environment LowCardinality(String),
    properties Map(LowCardinality(String), String),
    properties_num Map(LowCardinality(String), Float64),
    received_at DateTime64(3, 'UTC'),
    retention_days UInt16,
    INDEX idx_route route TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_trace_id trace_id TYPE bloom_filter(0.001) GRANULARITY 1
)
ENGINE = ReplacingMergeTree
PARTITION BY toDate(timestamp)
ORDER BY (project_id, timestamp, id)
TTL toDateTime(timestamp) + toIntervalDay(retention_days)
SETTINGS index_granularity = 8192`,
    ],
  },
};

export function vitalRow(record: VitalRecord): VitalRow {
  return {
    project_id: record.projectId,
    timestamp: record.timestamp,
    id: record.id,
    name: record.name,
    value: record.value,
    route: record.route,
    rating: record.rating,
    trace_id: record.traceId,
    release: record.release,
    environment: record.environment,
    properties: record.properties,
    received_at: record.receivedAt,
    retention_days: record.retentionDays,
  };
}
