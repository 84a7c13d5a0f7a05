import type { EventRecord, Properties } from '@tlm/signals';
import type { TableDefinition } from '../store';

/** A stored product-analytics event; the GQL source `events`. */
export interface EventRow {
  project_id: string;
  timestamp: number;
  id: string;
  event_name: string;
  distinct_id: string | null;
  properties: Properties;
  received_at: number;
  retention_days: number;
}

export const eventsTable: TableDefinition<EventRow> = {
  name: 'events',
  mode: 'append',
  timeColumn: 'timestamp',
  person: { column: 'distinct_id' },
  columns: [
    { name: 'project_id', type: 'string' },
    { name: 'timestamp', type: 'timestamp' },
    { name: 'id', type: 'string' },
    { name: 'event_name', type: 'string' },
    { name: 'distinct_id', type: 'nullable_string' },
    { name: 'properties', type: 'properties' },
    { name: 'received_at', type: 'timestamp' },
    { name: 'retention_days', type: 'uint16' },
  ],
  ddl: {
    duckdb: [
      `CREATE TABLE IF NOT EXISTS events (
  project_id VARCHAR NOT NULL,
  timestamp TIMESTAMP NOT NULL,
  id VARCHAR NOT NULL,
  event_name VARCHAR NOT NULL,
  distinct_id VARCHAR,
  properties JSON NOT NULL,
  received_at TIMESTAMP NOT NULL,
  retention_days USMALLINT NOT NULL
)`,
    ],
    clickhouse: [
      `CREATE TABLE IF NOT EXISTS events
(
    project_id UUID,
    timestamp DateTime64(3, 'UTC'),
    id UUID,
    event_name LowCardinality(String),
    distinct_id String,
    properties Map(LowCardinality(String), String),
    properties_num Map(LowCardinality(String), Float64),
    received_at DateTime64(3, 'UTC'),
    retention_days UInt16,
    INDEX idx_distinct_id distinct_id TYPE bloom_filter(0.01) GRANULARITY 4,
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

export function eventRow(record: EventRecord): EventRow {
  return {
    project_id: record.projectId,
    timestamp: record.timestamp,
    id: record.id,
    event_name: record.event,
    distinct_id: record.distinctId,
    properties: record.properties,
    received_at: record.receivedAt,
    retention_days: record.retentionDays,
  };
}
