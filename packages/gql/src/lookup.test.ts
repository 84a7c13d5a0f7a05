import { ANALYTICS_TABLES, DuckDBStore, replayChunksTable, replaySessionsTable, type ReplayChunkRow, type ReplaySessionRow } from '@tlm/analytics-store';
import { CHUNK_FIELDS, SESSION_FIELDS, replayChunks, replaySessions } from './chunkSources';
import type { Guard } from './emit';
import { aggregateBy, findRows } from './lookup';

const PROJECT_A = '0190a0e0-0000-7000-8000-00000000000a';
const PROJECT_B = '0190a0e0-0000-7000-8000-00000000000b';
const NOW = Date.parse('2024-05-10T12:00:00.000Z');
const MINUTE = 60_000;
const DAY = 86_400_000;
const GUARD: Guard = { projectId: PROJECT_A, retentionDays: 3, now: new Date(NOW) };

let store: DuckDBStore;

const session = (projectId: string, id: string, startedAt: number, distinctId: string | null): ReplaySessionRow => ({
  project_id: projectId,
  id,
  distinct_id: distinctId,
  started_at: startedAt,
  url: `https://shop.example/${id}`,
  user_agent: null,
  properties: { plan: 'pro' },
  updated_at: NOW,
  retention_days: 30,
});

const chunk = (projectId: string, sessionId: string, seq: number, startTs: number): ReplayChunkRow => ({
  project_id: projectId,
  id: `${sessionId}/${seq}`,
  session_id: sessionId,
  seq,
  start_ts: startTs,
  end_ts: startTs + 5_000,
  event_count: seq + 1,
  size_bytes: 100 + seq,
  blob_key: `${projectId}/replays/2024-05-10/${sessionId}/${seq}`,
  updated_at: NOW,
  retention_days: 30,
});

beforeAll(async () => {
  store = await DuckDBStore.open(':memory:');
  await store.migrate(ANALYTICS_TABLES);
  await store.insert(replaySessionsTable, [
    session(PROJECT_A, 'older', NOW - 20 * MINUTE, 'user-1'),
    session(PROJECT_A, 'newer', NOW - 10 * MINUTE, 'user-2'),
    // Past the guard's 3-day retention, inside the row's own 30 days.
    session(PROJECT_A, 'expired', NOW - 5 * DAY, 'user-1'),
    session(PROJECT_B, 'theirs', NOW - 5 * MINUTE, 'user-1'),
  ]);
  await store.insert(replayChunksTable, [
    chunk(PROJECT_A, 'older', 0, NOW - 20 * MINUTE),
    chunk(PROJECT_A, 'older', 1, NOW - 19 * MINUTE),
    chunk(PROJECT_A, 'newer', 0, NOW - 10 * MINUTE),
    chunk(PROJECT_A, 'expired', 0, NOW - 5 * DAY),
    chunk(PROJECT_B, 'older', 0, NOW - 5 * MINUTE),
  ]);
});
afterAll(() => store.close());

describe('findRows', () => {
  it("answers the guard's project's rows inside its retention, under the fields' keys, sorted and limited", async () => {
    const rows = await findRows(store, replaySessions, GUARD, { equals: {}, fields: SESSION_FIELDS, sort: [['started_at', 'desc']], limit: 10 });
    expect(rows).toEqual([
      {
        session_id: 'newer',
        distinct_id: 'user-2',
        started_at: new Date(NOW - 10 * MINUTE).toISOString(),
        url: 'https://shop.example/newer',
        user_agent: null,
        properties: { plan: 'pro' },
        updated_at: new Date(NOW).toISOString(),
      },
      expect.objectContaining({ session_id: 'older' }),
    ]);
    const limited = await findRows(store, replaySessions, GUARD, { equals: {}, fields: { session_id: 'id' }, sort: [['started_at', 'asc']], limit: 1 });
    expect(limited).toEqual([{ session_id: 'older' }]);
  });

  it('filters by equalities, an array meaning any of its values', async () => {
    const rows = await findRows(store, replayChunks, GUARD, {
      equals: { session_id: ['older', 'newer', 'expired'], seq: 0 },
      fields: { session_id: 'session_id', ...CHUNK_FIELDS },
      sort: [['start_ts', 'asc']],
      limit: 10,
    });
    expect(rows.map((row) => [row['session_id'], row['seq'], row['event_count'], row['size_bytes']])).toEqual([
      ['older', 0, 1, 100],
      ['newer', 0, 1, 100],
    ]);
  });

  it('refuses a column the source does not have, and never reads the project or retention columns', async () => {
    expect(() => findRows(store, replayChunks, GUARD, { equals: {}, fields: { project: 'project_id' }, sort: [['seq', 'asc']], limit: 1 })).toThrow(
      'source replay_chunks has no column project_id',
    );
  });
});

describe('aggregateBy', () => {
  it("counts and takes the latest value per group over the guard's project's rows", async () => {
    const equals = { session_id: ['older', 'newer', 'expired'] };
    const counts = await aggregateBy(store, replayChunks, GUARD, { equals, groupBy: 'session_id', func: 'count', limit: 10 });
    expect([...counts].map(([id, count]) => [id, Number(count)])).toEqual([
      ['newer', 1],
      ['older', 2],
    ]);
    const ends = await aggregateBy(store, replayChunks, GUARD, { equals, groupBy: 'session_id', func: 'max', column: 'end_ts', limit: 10 });
    expect(Object.fromEntries(ends)).toEqual({ newer: new Date(NOW - 10 * MINUTE + 5_000).toISOString(), older: new Date(NOW - 19 * MINUTE + 5_000).toISOString() });
  });
});
