import type { EventRecord, Properties } from '@tlm/signals';
import type { AnalyticsStore, RecordMapping, TableDefinition } from '../store';
import { decodedProperties, uncountedRowsSql, type StreamPosition } from './stream';

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
  /** Where the event sits in the stream the ingest writer counts: as `LogRow`'s (docs/decisions.md "Derived counts follow the rows"). */
  stream_partition?: number;
  stream_offset?: number;
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
    { name: 'stream_partition', type: 'uint16' },
    { name: 'stream_offset', type: 'uint64' },
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
  retention_days USMALLINT NOT NULL,
  stream_partition USMALLINT,
  stream_offset UBIGINT
)`,
      // Tables created before these columns existed get them last, where the INSERT's column order puts them.
      'ALTER TABLE events ADD COLUMN IF NOT EXISTS stream_partition USMALLINT',
      'ALTER TABLE events ADD COLUMN IF NOT EXISTS stream_offset UBIGINT',
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
    stream_partition UInt16,
    stream_offset UInt64,
    INDEX idx_distinct_id distinct_id TYPE bloom_filter(0.01) GRANULARITY 4,
    INDEX idx_property_keys mapKeys(properties) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_property_values mapValues(properties) TYPE bloom_filter(0.01) GRANULARITY 1
)
ENGINE = ReplacingMergeTree
PARTITION BY toDate(timestamp)
ORDER BY (project_id, timestamp, id)
TTL toDateTime(timestamp) + toIntervalDay(retention_days)
SETTINGS index_granularity = 8192`,
      'ALTER TABLE events ADD COLUMN IF NOT EXISTS stream_partition UInt16 AFTER retention_days',
      'ALTER TABLE events ADD COLUMN IF NOT EXISTS stream_offset UInt64 AFTER stream_partition',
    ],
  },
};

/** The stored row of an event; `position` is its place in the stream the ingest writer counts. */
export function eventRow(record: EventRecord, position?: StreamPosition): EventRow {
  return {
    project_id: record.projectId,
    timestamp: record.timestamp,
    id: record.id,
    event_name: record.event,
    distinct_id: record.distinctId,
    properties: record.properties,
    received_at: record.receivedAt,
    retention_days: record.retentionDays,
    stream_partition: position?.partition,
    stream_offset: position?.offset,
  };
}

/** eventRow as a mapping, for a store that reads the journaled records' JSON itself (AnalyticsStore.insertRecords). */
export const eventRecordMapping: RecordMapping<EventRecord> = {
  fields: {
    project_id: 'projectId',
    timestamp: 'timestamp',
    id: 'id',
    event_name: 'event',
    distinct_id: 'distinctId',
    properties: 'properties',
    received_at: 'receivedAt',
    retention_days: 'retentionDays',
  },
  computed: (record, position) => ({ id: record.id, stream_partition: position?.partition, stream_offset: position?.offset }),
};

/** What the ingest writer reads back of an event row to count it: its project, name, receipt time, properties and offset. */
export interface StoredEvent {
  projectId: string;
  event: string;
  receivedAt: number;
  properties: Properties;
  offset: number;
}

/**
 * Up to `limit` events stored in a partition of the events stream after offset `after`, in offset order: on start,
 * the ones a crash left stored but not counted into the schema registry and usage.
 */
export async function uncountedEvents(store: AnalyticsStore, partition: number, after: number, limit: number): Promise<StoredEvent[]> {
  const rows = await store.query(uncountedRowsSql(store.dialect, 'events', ', event_name'), { partition, after, limit });
  return rows.map((row) => ({
    projectId: String(row['project_id']),
    event: String(row['event_name']),
    receivedAt: Number(row['received_at_ms']),
    properties: decodedProperties(row['properties']),
    offset: Number(row['stream_offset']),
  }));
}
