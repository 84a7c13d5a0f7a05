import type { AttachmentRecord } from '@tlm/signals';
import type { TableDefinition } from '../store';

/**
 * One attachment's metadata (Sentry's `attachment` envelope item); its bytes are in the blob store. An attachment sent
 * again (an SDK's retry: the same event and file name, so the same id) replaces its row.
 */
export interface AttachmentRow {
  project_id: string;
  id: string;
  /** The error's id (the row id in `errors`). */
  event_id: string;
  filename: string;
  content_type: string;
  attachment_type: string;
  size_bytes: number;
  blob_key: string;
  updated_at: number;
  retention_days: number;
}

export const attachmentsTable: TableDefinition<AttachmentRow> = {
  name: 'attachments',
  mode: 'replace',
  timeColumn: 'updated_at',
  columns: [
    { name: 'project_id', type: 'string' },
    { name: 'id', type: 'string' },
    { name: 'event_id', type: 'string' },
    { name: 'filename', type: 'string' },
    { name: 'content_type', type: 'string' },
    { name: 'attachment_type', type: 'string' },
    { name: 'size_bytes', type: 'uint64' },
    { name: 'blob_key', type: 'string' },
    { name: 'updated_at', type: 'timestamp' },
    { name: 'retention_days', type: 'uint16' },
  ],
  ddl: {
    duckdb: [
      `CREATE TABLE IF NOT EXISTS attachments (
  project_id VARCHAR NOT NULL,
  id VARCHAR NOT NULL,
  event_id VARCHAR NOT NULL,
  filename VARCHAR NOT NULL,
  content_type VARCHAR NOT NULL,
  attachment_type VARCHAR NOT NULL,
  size_bytes UBIGINT NOT NULL,
  blob_key VARCHAR NOT NULL,
  updated_at TIMESTAMP NOT NULL,
  retention_days USMALLINT NOT NULL,
  PRIMARY KEY (project_id, id)
)`,
    ],
    clickhouse: [
      `CREATE TABLE IF NOT EXISTS attachments
(
    project_id UUID,
    id String,
    event_id String,
    filename String,
    content_type LowCardinality(String),
    attachment_type LowCardinality(String),
    size_bytes UInt64,
    blob_key String,
    updated_at DateTime64(3, 'UTC'),
    retention_days UInt16,
    INDEX idx_event_id event_id TYPE bloom_filter(0.001) GRANULARITY 1
)
ENGINE = ReplacingMergeTree(updated_at)
ORDER BY (project_id, id)
TTL toDateTime(updated_at) + toIntervalDay(retention_days)`,
    ],
  },
};

export function attachmentRow(record: AttachmentRecord): AttachmentRow {
  return {
    project_id: record.projectId,
    id: record.id,
    event_id: record.eventId,
    filename: record.filename,
    content_type: record.contentType,
    attachment_type: record.attachmentType,
    size_bytes: record.sizeBytes,
    blob_key: record.blobKey,
    updated_at: record.receivedAt,
    retention_days: record.retentionDays,
  };
}
