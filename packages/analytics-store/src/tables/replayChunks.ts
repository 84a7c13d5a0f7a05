import type { ReplayChunkRecord } from '@tlm/signals';
import type { TableDefinition } from '../store';

/**
 * One recording chunk of a replay session: its place (`seq`), its time span and where its gzipped rrweb body is in
 * the blob store. A chunk sent again (a retry) replaces its row.
 */
export interface ReplayChunkRow {
  project_id: string;
  /** `<session_id>/<seq>`: the key a re-sent chunk replaces. */
  id: string;
  session_id: string;
  seq: number;
  start_ts: number;
  end_ts: number;
  event_count: number;
  size_bytes: number;
  blob_key: string;
  updated_at: number;
  retention_days: number;
}

export const replayChunksTable: TableDefinition<ReplayChunkRow> = {
  name: 'replay_chunks',
  mode: 'replace',
  timeColumn: 'start_ts',
  columns: [
    { name: 'project_id', type: 'string' },
    { name: 'id', type: 'string' },
    { name: 'session_id', type: 'string' },
    { name: 'seq', type: 'uint32' },
    { name: 'start_ts', type: 'timestamp' },
    { name: 'end_ts', type: 'timestamp' },
    { name: 'event_count', type: 'uint32' },
    { name: 'size_bytes', type: 'uint64' },
    { name: 'blob_key', type: 'string' },
    { name: 'updated_at', type: 'timestamp' },
    { name: 'retention_days', type: 'uint16' },
  ],
  ddl: {
    duckdb: [
      `CREATE TABLE IF NOT EXISTS replay_chunks (
  project_id VARCHAR NOT NULL,
  id VARCHAR NOT NULL,
  session_id VARCHAR NOT NULL,
  seq UINTEGER NOT NULL,
  start_ts TIMESTAMP NOT NULL,
  end_ts TIMESTAMP NOT NULL,
  event_count UINTEGER NOT NULL,
  size_bytes UBIGINT NOT NULL,
  blob_key VARCHAR NOT NULL,
  updated_at TIMESTAMP NOT NULL,
  retention_days USMALLINT NOT NULL,
  PRIMARY KEY (project_id, id)
)`,
    ],
    // (project_id, session_id, seq) is both the read order of a session and the identity a retry collapses into.
    clickhouse: [
      `CREATE TABLE IF NOT EXISTS replay_chunks
(
    project_id UUID,
    id String,
    session_id String,
    seq UInt32,
    start_ts DateTime64(3, 'UTC'),
    end_ts DateTime64(3, 'UTC'),
    event_count UInt32,
    size_bytes UInt64,
    blob_key String,
    updated_at DateTime64(3, 'UTC'),
    retention_days UInt16
)
ENGINE = ReplacingMergeTree(updated_at)
ORDER BY (project_id, session_id, seq)
TTL toDateTime(start_ts) + toIntervalDay(retention_days)`,
    ],
  },
};

export function replayChunkRow(record: ReplayChunkRecord): ReplayChunkRow {
  return {
    project_id: record.projectId,
    id: `${record.sessionId}/${record.seq}`,
    session_id: record.sessionId,
    seq: record.seq,
    start_ts: record.startTs,
    end_ts: record.endTs,
    event_count: record.eventCount,
    size_bytes: record.sizeBytes,
    blob_key: record.blobKey,
    updated_at: record.receivedAt,
    retention_days: record.retentionDays,
  };
}
