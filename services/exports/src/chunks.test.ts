import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  ANALYTICS_TABLES,
  DuckDBStore,
  attachmentsTable,
  profileChunksTable,
  replayChunksTable,
  type AttachmentRow,
  type ProfileChunkRow,
  type ReplayChunkRow,
} from '@tlm/analytics-store';
import { FileSystemBlobStore } from '@tlm/blob-store';
import type { Guard } from '@tlm/gql';
import { chunkFiles, safeName, type ChunkExportDeps } from './chunks';

const PROJECT_A = '0190a0e0-0000-7000-8000-00000000000a';
const PROJECT_B = '0190a0e0-0000-7000-8000-00000000000b';
const EVENT = '0190a0e0-0000-7000-8000-0000000000e1';
const NOW = Date.parse('2024-05-10T12:00:00.000Z');
const MINUTE = 60_000;
const GUARD: Guard = { projectId: PROJECT_A, retentionDays: 3, now: new Date(NOW) };

let analytics: DuckDBStore;
let blobs: FileSystemBlobStore;
let blobDir: string;

/** A body of `size` bytes, every byte naming its body, so a mix-up shows. */
const bodyOf = (mark: number, size: number) => Buffer.alloc(size, mark);

const chunk = (projectId: string, seq: number, size: number): ReplayChunkRow => ({
  project_id: projectId,
  id: `s-1/${seq}`,
  session_id: 's-1',
  seq,
  start_ts: NOW - (10 - seq) * MINUTE,
  end_ts: NOW - (10 - seq) * MINUTE + 1_000,
  event_count: 1,
  size_bytes: size,
  blob_key: `${projectId}/replays/2024-05-10/s-1/${seq}`,
  updated_at: NOW,
  retention_days: 30,
});

const profile = (id: string, size: number, startedAt: number): ProfileChunkRow => ({
  project_id: PROJECT_A,
  id,
  profiler_id: 'prof-1',
  profile_type: 'cpu',
  platform: 'node',
  release: null,
  environment: null,
  sample_count: 3,
  started_at: startedAt,
  ended_at: startedAt + 1_000,
  size_bytes: size,
  blob_key: `${PROJECT_A}/profiles/2024-05-10/${id}`,
  updated_at: NOW,
  retention_days: 30,
});

const attachment: AttachmentRow = {
  project_id: PROJECT_A,
  id: '0190a0e0-0000-7000-8000-0000000000a1',
  event_id: EVENT,
  filename: '../../etc/passwd',
  content_type: 'text/plain',
  attachment_type: 'event.attachment',
  size_bytes: 5,
  blob_key: `${PROJECT_A}/attachments/2024-05-10/${EVENT}/0190a0e0-0000-7000-8000-0000000000a1`,
  updated_at: NOW,
  retention_days: 30,
};

beforeAll(async () => {
  analytics = await DuckDBStore.open(':memory:');
  await analytics.migrate(ANALYTICS_TABLES);
  blobDir = mkdtempSync(path.join(tmpdir(), 'tlm-export-chunks-'));
  blobs = await FileSystemBlobStore.open(blobDir);
  // Replay chunks of 10, 10 and 10 bytes (seq 0 oldest), a profile of 4 bytes and one whose body is gone, an
  // attachment of 5 bytes; project B's chunk at the same session id and seq must never show.
  const rows = [chunk(PROJECT_A, 0, 10), chunk(PROJECT_A, 1, 10), chunk(PROJECT_A, 2, 10), chunk(PROJECT_B, 0, 7)];
  await analytics.insert(replayChunksTable, rows);
  await analytics.insert(profileChunksTable, [profile('p-kept', 4, NOW - 5 * MINUTE), profile('p-gone', 6, NOW - 6 * MINUTE)]);
  await analytics.insert(attachmentsTable, [attachment]);
  for (const [index, row] of rows.entries()) await blobs.put(row.blob_key, bodyOf(index + 1, row.size_bytes));
  await blobs.put(`${PROJECT_A}/profiles/2024-05-10/p-kept`, bodyOf(0x70, 4));
  await blobs.put(attachment.blob_key, Buffer.from('root\u0000'));
});
afterAll(async () => {
  await analytics.close();
  await blobs.close();
  rmSync(blobDir, { recursive: true, force: true });
});

const deps = (limits: { maxRows?: number; maxBodyBytes?: number }): ChunkExportDeps => ({
  analytics,
  blobs,
  maxRows: limits.maxRows ?? 100,
  maxBodyBytes: limits.maxBodyBytes ?? 1_000,
});
const lines = (file: string | Uint8Array | undefined) => (file === '' ? [] : String(file).split('\n').map((line) => JSON.parse(line) as Record<string, unknown>));
const bodyPaths = (files: Record<string, unknown>) => Object.keys(files).filter((name) => !name.endsWith('.jsonl')).sort();

describe('chunkFiles', () => {
  it("holds the project's bodies byte for byte beside their metadata and lists a body gone from the blob store", async () => {
    const { files, rows } = await chunkFiles(deps({}), GUARD);
    expect(rows).toBe(3 + 2 + 1);
    expect(bodyPaths(files)).toEqual([
      `attachments/${EVENT}/${attachment.id}-passwd`,
      'profiles/p-kept.json',
      'replays/s-1/0.json.gz',
      'replays/s-1/1.json.gz',
      'replays/s-1/2.json.gz',
    ]);
    expect(Buffer.from(files['replays/s-1/0.json.gz'] as Uint8Array).equals(bodyOf(1, 10))).toBe(true);
    expect(Buffer.from(files['replays/s-1/2.json.gz'] as Uint8Array).equals(bodyOf(3, 10))).toBe(true);
    expect(Buffer.from(files['profiles/p-kept.json'] as Uint8Array).equals(bodyOf(0x70, 4))).toBe(true);
    expect(lines(files['replay_chunks.jsonl']).map((row) => [row['session_id'], row['seq'], row['size_bytes']])).toEqual([
      ['s-1', 2, 10],
      ['s-1', 1, 10],
      ['s-1', 0, 10],
    ]);
    expect(lines(files['missing_bodies.jsonl'])).toEqual([{ kind: 'profile_chunk', id: 'p-gone', reason: 'not_found' }]);
    expect(lines(files['replay_sessions.jsonl'])).toEqual([]);
  });

  it('stops adding bodies at the first that would take them past maxBodyBytes, listing it and every later one', async () => {
    // Newest first: seq 2 and 1 fit in 25 bytes, seq 0 would make 30.
    const { files, rows } = await chunkFiles(deps({ maxBodyBytes: 25 }), GUARD);
    expect(rows).toBe(6);
    expect(bodyPaths(files)).toEqual(['replays/s-1/1.json.gz', 'replays/s-1/2.json.gz']);
    expect(lines(files['missing_bodies.jsonl'])).toEqual([
      { kind: 'replay_chunk', id: 's-1/0', reason: 'size_limit' },
      { kind: 'profile_chunk', id: 'p-kept', reason: 'size_limit' },
      { kind: 'profile_chunk', id: 'p-gone', reason: 'size_limit' },
      { kind: 'attachment', id: attachment.id, reason: 'size_limit' },
    ]);
    expect(lines(files['profile_chunks.jsonl'])).toHaveLength(2);
  });

  it('holds no body with maxBodyBytes 0, and at most maxRows metadata rows and their bodies per file', async () => {
    const none = await chunkFiles(deps({ maxBodyBytes: 0 }), GUARD);
    expect(bodyPaths(none.files)).toEqual([]);
    expect(lines(none.files['missing_bodies.jsonl'])).toHaveLength(6);
    const bounded = await chunkFiles(deps({ maxRows: 1 }), GUARD);
    expect(bounded.rows).toBe(3);
    expect(lines(bounded.files['replay_chunks.jsonl']).map((row) => row['seq'])).toEqual([2]);
    expect(lines(bounded.files['profile_chunks.jsonl']).map((row) => row['chunk_id'])).toEqual(['p-kept']);
    expect(bodyPaths(bounded.files)).toEqual([`attachments/${EVENT}/${attachment.id}-passwd`, 'profiles/p-kept.json', 'replays/s-1/2.json.gz']);
  });
});

describe('safeName', () => {
  it.each([
    ['app.log', 'app.log'],
    ['../../x', 'x'],
    ['..\\..\\windows\\x.ini', 'x.ini'],
    ['/etc/passwd', 'passwd'],
    ['..', '_'],
    ['dir/', '_'],
    ['', '_'],
    ['a\u0000b:c?.txt', 'a_b_c_.txt'],
    ['caf\u00e9 report.pdf', 'caf\u00e9 report.pdf'],
  ])('keeps %j as %j', (name, safe) => {
    expect(safeName(name)).toBe(safe);
  });
});
