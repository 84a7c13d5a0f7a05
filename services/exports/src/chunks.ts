import type { AnalyticsStore } from '@tlm/analytics-store';
import type { BlobStore } from '@tlm/blob-store';
import {
  ATTACHMENT_FIELDS,
  CHUNK_FIELDS,
  PROFILE_FIELDS,
  SESSION_FIELDS,
  attachments,
  findRows,
  profileChunks,
  replayChunks,
  replaySessions,
  type Guard,
  type SourceDefinition,
} from '@tlm/gql';
import { jsonLines, type Row } from './render';

export interface ChunkExportDeps {
  analytics: AnalyticsStore;
  blobs: BlobStore;
  /** Metadata rows one file holds at most. */
  maxRows: number;
  /** Bytes of bodies one ZIP holds at most. */
  maxBodyBytes: number;
}

/** A body the ZIP leaves out: gone from the blob store, or past the ZIP's body bytes. */
export type MissingBody = {
  kind: 'replay_chunk' | 'profile_chunk' | 'attachment';
  id: string;
  reason: 'not_found' | 'size_limit';
};

interface StoredBody {
  kind: MissingBody['kind'];
  id: string;
  /** Where the body goes in the ZIP. */
  path: string;
  blobKey: string;
}

/**
 * A client's file name as one safe ZIP path segment: its last part after any slash or backslash, without control
 * characters or those Windows refuses in names, so a name like `../../x` stays inside its folder.
 */
export function safeName(name: string): string {
  const base = (name.split(/[/\\]/).pop() ?? '').replace(/[\u0000-\u001f\u007f<>:"|?*]/g, '_');
  return base === '' || base === '.' || base === '..' ? '_' : base;
}

/** Rows of a read, each split into its answer fields and the key of its body. */
async function rowsWithBodies(
  deps: ChunkExportDeps,
  guard: Guard,
  read: { source: SourceDefinition; fields: Record<string, string>; sort: [string, 'asc' | 'desc'][] },
): Promise<{ row: Row; blobKey: string }[]> {
  const fields = { ...read.fields, blob_key: 'blob_key' };
  const found = await findRows(deps.analytics, read.source, guard, { equals: {}, fields, sort: read.sort, limit: deps.maxRows });
  return found.map(({ blob_key: blobKey, ...row }) => ({ row, blobKey: String(blobKey) }));
}

/**
 * What a GDPR ZIP holds of replays, profiles and attachments, which are not GQL sources: their metadata as JSON lines
 * (the query service's answer fields, each file at most `maxRows` rows, newest first) and their bodies byte for byte,
 * all read under the guard's project and retention. Bodies are added in that order (replay chunks, profiles,
 * attachments) until the next would take them past `maxBodyBytes`; that one and every later one, and any missing from
 * the blob store, are listed in `missing_bodies.jsonl` instead. `rows` counts the metadata rows.
 */
export async function chunkFiles(deps: ChunkExportDeps, guard: Guard): Promise<{ files: Record<string, string | Uint8Array>; rows: number }> {
  const [sessions, chunks, profiles, attached] = await Promise.all([
    findRows(deps.analytics, replaySessions, guard, { equals: {}, fields: SESSION_FIELDS, sort: [['started_at', 'desc'], ['id', 'asc']], limit: deps.maxRows }),
    rowsWithBodies(deps, guard, {
      source: replayChunks,
      fields: { session_id: 'session_id', ...CHUNK_FIELDS },
      sort: [['start_ts', 'desc'], ['session_id', 'asc'], ['seq', 'asc']],
    }),
    rowsWithBodies(deps, guard, { source: profileChunks, fields: PROFILE_FIELDS, sort: [['started_at', 'desc'], ['id', 'asc']] }),
    rowsWithBodies(deps, guard, { source: attachments, fields: ATTACHMENT_FIELDS, sort: [['updated_at', 'desc'], ['id', 'asc']] }),
  ]);
  // Ids are single path segments already (CHUNK_ID_PATTERN, UUIDs); only a file name is the client's own text.
  const bodies: StoredBody[] = [
    // A stored replay chunk is always gzip: the ingest keeps a gzip body as sent and gzips any other.
    ...chunks.map(({ row, blobKey }) => ({
      kind: 'replay_chunk' as const,
      id: `${String(row['session_id'])}/${String(row['seq'])}`,
      path: `replays/${String(row['session_id'])}/${String(row['seq'])}.json.gz`,
      blobKey,
    })),
    ...profiles.map(({ row, blobKey }) => ({ kind: 'profile_chunk' as const, id: String(row['chunk_id']), path: `profiles/${String(row['chunk_id'])}.json`, blobKey })),
    ...attached.map(({ row, blobKey }) => ({
      kind: 'attachment' as const,
      id: String(row['id']),
      path: `attachments/${String(row['event_id'])}/${String(row['id'])}-${safeName(String(row['filename']))}`,
      blobKey,
    })),
  ];
  const files: Record<string, string | Uint8Array> = {
    'replay_sessions.jsonl': jsonLines(sessions),
    'replay_chunks.jsonl': jsonLines(chunks.map(({ row }) => row)),
    'profile_chunks.jsonl': jsonLines(profiles.map(({ row }) => row)),
    'attachments.jsonl': jsonLines(attached.map(({ row }) => row)),
  };
  const missing: MissingBody[] = [];
  let totalBytes = 0;
  let full = false;
  for (const body of bodies) {
    if (full) {
      missing.push({ kind: body.kind, id: body.id, reason: 'size_limit' });
      continue;
    }
    const bytes = await deps.blobs.get(body.blobKey);
    if (!bytes) {
      missing.push({ kind: body.kind, id: body.id, reason: 'not_found' });
    } else if (totalBytes + bytes.length > deps.maxBodyBytes) {
      // None after the first that does not fit is read, so which bodies a ZIP holds follows from their order alone.
      full = true;
      missing.push({ kind: body.kind, id: body.id, reason: 'size_limit' });
    } else {
      totalBytes += bytes.length;
      files[body.path] = bytes;
    }
  }
  files['missing_bodies.jsonl'] = jsonLines(missing);
  return { files, rows: sessions.length + chunks.length + profiles.length + attached.length };
}
