import { randomUUID } from 'node:crypto';
import { DuckDBStore } from './duckdb';
import { deleteExpiredRows, deleteProjectRows } from './purge';
import {
  ANALYTICS_TABLES,
  profileChunksTable,
  replayChunksTable,
  replaySessionsTable,
  type ProfileChunkRow,
  type ReplayChunkRow,
  type ReplaySessionRow,
} from './tables';

const T0 = Date.parse('2026-03-04T05:06:07.089Z');
const CHUNK_TABLES = [replaySessionsTable, replayChunksTable, profileChunksTable];

const session = (projectId: string, overrides: Partial<ReplaySessionRow> = {}): ReplaySessionRow => ({
  project_id: projectId,
  id: 'session-1',
  distinct_id: 'user-1',
  started_at: T0,
  url: 'https://shop.example/',
  user_agent: null,
  properties: { plan: 'pro', width: 1280 },
  updated_at: T0 + 1,
  retention_days: 14,
  ...overrides,
});

const chunk = (projectId: string, seq: number, overrides: Partial<ReplayChunkRow> = {}): ReplayChunkRow => ({
  project_id: projectId,
  id: `session-1/${seq}`,
  session_id: 'session-1',
  seq,
  start_ts: T0 + seq * 5_000,
  end_ts: T0 + seq * 5_000 + 4_000,
  event_count: 12,
  size_bytes: 2_048,
  blob_key: `${projectId}/replays/2026-03-04/session-1/${seq}`,
  updated_at: T0 + 1,
  retention_days: 14,
  ...overrides,
});

const profile = (projectId: string, overrides: Partial<ProfileChunkRow> = {}): ProfileChunkRow => ({
  project_id: projectId,
  id: 'chunk-1',
  profiler_id: 'profiler-1',
  profile_type: 'cpu',
  platform: 'node',
  release: null,
  environment: 'production',
  sample_count: 6_060,
  started_at: T0,
  ended_at: T0 + 60_000,
  size_bytes: 9_000,
  blob_key: `${projectId}/profiles/2026-03-04/chunk-1`,
  updated_at: T0 + 1,
  retention_days: 14,
  ...overrides,
});

describe('replay and profile tables in ClickHouse', () => {
  it.each(CHUNK_TABLES.map((table) => [table.name, table] as const))(
    '%s: a snapshot table (ReplacingMergeTree by updated_at) sorted project first, expiring by retention_days',
    (_name, table) => {
      const ddl = table.ddl.clickhouse[0]!;
      expect(table.mode).toBe('replace');
      expect(ddl).toContain('ENGINE = ReplacingMergeTree(updated_at)');
      expect(ddl).toMatch(/\nORDER BY \(project_id, /);
      expect(ddl).toContain(`TTL toDateTime(${table.timeColumn}) + toIntervalDay(retention_days)`);
      expect(ddl).toContain('project_id UUID,');
      expect(ddl).not.toContain('PARTITION BY');
    },
  );

  it('sorts replay chunks by (project_id, session_id, seq): the read order of a session and the identity of a retry', () => {
    expect(replayChunksTable.ddl.clickhouse[0]).toContain('ORDER BY (project_id, session_id, seq)');
  });
});

describe('replay and profile tables in DuckDB', () => {
  let store: DuckDBStore;
  beforeAll(async () => {
    store = await DuckDBStore.open(':memory:');
    await store.migrate(ANALYTICS_TABLES);
  });
  afterAll(() => store.close());

  const rows = (table: string, projectId: string) =>
    store.query(`SELECT * FROM ${table} WHERE project_id = $project ORDER BY id`, { project: projectId });

  it('keeps the newest upsert of a session and ignores an older one that arrives late', async () => {
    const projectId = randomUUID();
    await store.insert(replaySessionsTable, [session(projectId)]);
    await store.insert(replaySessionsTable, [session(projectId, { url: 'https://shop.example/cart', updated_at: T0 + 3 })]);
    await store.insert(replaySessionsTable, [session(projectId, { url: 'https://shop.example/stale', updated_at: T0 + 2 })]);
    const stored = await rows('replay_sessions', projectId);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ url: 'https://shop.example/cart', started_at: new Date(T0).toISOString(), updated_at: new Date(T0 + 3).toISOString() });
    expect(JSON.parse(stored[0]!['properties'] as string)).toEqual({ plan: 'pro', width: 1280 });
  });

  it('keeps one row per (session, seq) when a chunk is sent again, within one batch and across batches', async () => {
    const projectId = randomUUID();
    await store.insert(replayChunksTable, [chunk(projectId, 0), chunk(projectId, 1), chunk(projectId, 1, { event_count: 20, updated_at: T0 + 2 })]);
    await store.insert(replayChunksTable, [chunk(projectId, 0, { size_bytes: 4_096, updated_at: T0 + 5 })]);
    const stored = await rows('replay_chunks', projectId);
    expect(stored.map((row) => [row['seq'], row['event_count'], row['size_bytes']])).toEqual([
      [0, 12, 4_096],
      [1, 20, 2_048],
    ]);
  });

  it('replaces a profile chunk sent again and round-trips its nullable columns', async () => {
    const projectId = randomUUID();
    await store.insert(profileChunksTable, [profile(projectId), profile(projectId, { sample_count: 7_000, updated_at: T0 + 9 })]);
    expect(await rows('profile_chunks', projectId)).toEqual([
      expect.objectContaining({ id: 'chunk-1', sample_count: 7_000, release: null, environment: 'production', ended_at: new Date(T0 + 60_000).toISOString() }),
    ]);
  });

  it('purges these tables with a project and past its retention like every telemetry table', async () => {
    const projectId = randomUUID();
    await store.insert(replaySessionsTable, [session(projectId), session(projectId, { id: 'recent', started_at: T0 + 86_400_000 })]);
    await store.insert(replayChunksTable, [chunk(projectId, 0)]);
    await store.insert(profileChunksTable, [profile(projectId)]);
    await deleteExpiredRows(store, projectId, new Date(T0 + 1));
    expect((await rows('replay_sessions', projectId)).map((row) => row['id'])).toEqual(['recent']);
    expect(await rows('replay_chunks', projectId)).toEqual([]);
    expect(await rows('profile_chunks', projectId)).toEqual([]);
    await deleteProjectRows(store, projectId);
    expect(await rows('replay_sessions', projectId)).toEqual([]);
  });
});
