import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { waiter } from '@tlm/core';
import { DuckDBStore } from './duckdb';
import { ReadPriority } from './readPriority';
import { ANALYTICS_TABLES, logsTable, type LogRow } from './tables';

/** Settles `promise` into a flag, so a test can see whether it settled yet. */
function watch(promise: Promise<unknown>): { settled: boolean } {
  const state = { settled: false };
  void promise.then(() => (state.settled = true));
  return state;
}

const turns = async (count = 5) => {
  for (let turn = 0; turn < count; turn++) await new Promise((resolve) => setImmediate(resolve));
};

describe('ReadPriority', () => {
  it('lets an insert start at once when no read runs', async () => {
    const reads = new ReadPriority(60_000);
    const settled = watch(reads.readsSettled());
    await turns();
    expect(settled.settled).toBe(true);
  });

  it('holds an insert while reads run, and lets it start when the last one ends', async () => {
    const reads = new ReadPriority(60_000);
    const first = waiter();
    const second = waiter();
    const reading = [reads.read(() => first.promise), reads.read(() => second.promise)];
    const settled = watch(reads.readsSettled());
    first.resolve();
    await turns();
    expect(settled.settled).toBe(false);
    second.resolve();
    await Promise.all(reading);
    await turns();
    expect(settled.settled).toBe(true);
  });

  it('lets an insert start after the longest wait even while a read still runs', async () => {
    const reads = new ReadPriority(20);
    const endless = waiter();
    const reading = reads.read(() => endless.promise);
    await reads.readsSettled();
    expect(watch(reading).settled).toBe(false);
    endless.resolve();
    await reading;
  });

  it('holds nothing with a longest wait of 0, and lets a failed read go as one that succeeded', async () => {
    const none = new ReadPriority(0);
    const endless = waiter();
    const reading = none.read(() => endless.promise);
    await none.readsSettled();
    endless.resolve();
    await reading;

    const reads = new ReadPriority(60_000);
    await expect(reads.read(() => Promise.reject(new Error('bad query')))).rejects.toThrow('bad query');
    const settled = watch(reads.readsSettled());
    await turns();
    expect(settled.settled).toBe(true);
  });
});

describe('DuckDBStore with reads before inserts', () => {
  let dir: string;
  let store: DuckDBStore;
  const row = (index: number): LogRow => ({
    project_id: '0190a0e0-0000-7000-8000-00000000000b',
    timestamp: Date.parse('2026-03-04T05:06:07.000Z') + index,
    id: `0190a0e0-0000-7000-8000-${String(index).padStart(12, '0')}`,
    severity: 'info',
    message: `row ${index}`,
    properties: {},
    trace_id: null,
    span_id: null,
    received_at: Date.parse('2026-03-04T05:06:08.000Z'),
    retention_days: 7,
  });
  const count = async () => Number((await store.query('SELECT count(*) AS n FROM logs'))[0]!['n']);

  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'tlm-read-priority-'));
    store = await DuckDBStore.open(path.join(dir, 'analytics.duckdb'), { insertYieldMs: 60_000 });
    await store.migrate(ANALYTICS_TABLES);
  });
  afterEach(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('starts an insert asked for during a read once the read has answered, and stores every row', async () => {
    await store.insert(logsTable, [row(0)]);
    // A read long enough to be running when the insert is asked for: a count over a generated series. It counts as
    // running from the call, while it waits for a connection too.
    const reading = store.query('SELECT count(*) AS n FROM range(300000000)');
    const inserting = store.insert(logsTable, [row(1), row(2)]);
    const order: string[] = [];
    await Promise.all([reading.then(() => order.push('read')), inserting.then(() => order.push('insert'))]);
    expect(order).toEqual(['read', 'insert']);
    expect(await count()).toBe(3);
  });
});
