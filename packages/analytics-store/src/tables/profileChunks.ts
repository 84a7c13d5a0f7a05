import type { ProfileChunkRecord } from '@tlm/signals';
import type { TableDefinition } from '../store';

/** One profile chunk's metadata; its JSON body is in the blob store. A chunk sent again replaces its row. */
export interface ProfileChunkRow {
  project_id: string;
  /** The chunk id. */
  id: string;
  profiler_id: string;
  profile_type: string;
  platform: string | null;
  release: string | null;
  environment: string | null;
  sample_count: number;
  started_at: number;
  ended_at: number;
  size_bytes: number;
  blob_key: string;
  updated_at: number;
  retention_days: number;
}

export const profileChunksTable: TableDefinition<ProfileChunkRow> = {
  name: 'profile_chunks',
  mode: 'replace',
  timeColumn: 'started_at',
  columns: [
    { name: 'project_id', type: 'string' },
    { name: 'id', type: 'string' },
    { name: 'profiler_id', type: 'string' },
    { name: 'profile_type', type: 'string' },
    { name: 'platform', type: 'nullable_string' },
    { name: 'release', type: 'nullable_string' },
    { name: 'environment', type: 'nullable_string' },
    { name: 'sample_count', type: 'uint32' },
    { name: 'started_at', type: 'timestamp' },
    { name: 'ended_at', type: 'timestamp' },
    { name: 'size_bytes', type: 'uint64' },
    { name: 'blob_key', type: 'string' },
    { name: 'updated_at', type: 'timestamp' },
    { name: 'retention_days', type: 'uint16' },
  ],
  ddl: {
    duckdb: [
      `CREATE TABLE IF NOT EXISTS profile_chunks (
  project_id VARCHAR NOT NULL,
  id VARCHAR NOT NULL,
  profiler_id VARCHAR NOT NULL,
  profile_type VARCHAR NOT NULL,
  platform VARCHAR,
  release VARCHAR,
  environment VARCHAR,
  sample_count UINTEGER NOT NULL,
  started_at TIMESTAMP NOT NULL,
  ended_at TIMESTAMP NOT NULL,
  size_bytes UBIGINT NOT NULL,
  blob_key VARCHAR NOT NULL,
  updated_at TIMESTAMP NOT NULL,
  retention_days USMALLINT NOT NULL,
  PRIMARY KEY (project_id, id)
)`,
    ],
    clickhouse: [
      `CREATE TABLE IF NOT EXISTS profile_chunks
(
    project_id UUID,
    id String,
    profiler_id String,
    profile_type LowCardinality(String),
    platform LowCardinality(String),
    release LowCardinality(String),
    environment LowCardinality(String),
    sample_count UInt32,
    started_at DateTime64(3, 'UTC'),
    ended_at DateTime64(3, 'UTC'),
    size_bytes UInt64,
    blob_key String,
    updated_at DateTime64(3, 'UTC'),
    retention_days UInt16,
    INDEX idx_profiler_id profiler_id TYPE bloom_filter(0.001) GRANULARITY 1
)
ENGINE = ReplacingMergeTree(updated_at)
ORDER BY (project_id, id)
TTL toDateTime(started_at) + toIntervalDay(retention_days)`,
    ],
  },
};

export function profileChunkRow(record: ProfileChunkRecord): ProfileChunkRow {
  return {
    project_id: record.projectId,
    id: record.chunkId,
    profiler_id: record.profilerId,
    profile_type: record.profileType,
    platform: record.platform,
    release: record.release,
    environment: record.environment,
    sample_count: record.sampleCount,
    started_at: record.startedAt,
    ended_at: record.endedAt,
    size_bytes: record.sizeBytes,
    blob_key: record.blobKey,
    updated_at: record.receivedAt,
    retention_days: record.retentionDays,
  };
}
