import { randomUUID } from 'node:crypto';
import { ANALYTICS_TABLES, DuckDBStore, type AnalyticsStore, type TableDefinition } from '@tlm/analytics-store';
import { EmbeddedBus, Topics } from '@tlm/bus';
import { createLogger } from '@tlm/core';
import { PGliteStore, migrate, type MetadataStore, type SqlClient } from '@tlm/metadata-store';
import type { ErrorRecord } from '@tlm/signals';
import { startIssuesProcessor, type IssuesProcessor } from '../src/index';

/**
 * The processor's two-stage group commit on real stores (PGlite, DuckDB, the embedded bus). The stores are wrapped
 * only to count transactions and to hold or fail chosen writes.
 */
let metadata: PGliteStore;
let duck: DuckDBStore;

beforeAll(async () => {
  metadata = await PGliteStore.open();
  await migrate(metadata);
  duck = await DuckDBStore.open(':memory:');
  await duck.migrate(ANALYTICS_TABLES);
});
afterAll(async () => {
  await duck.close();
  await metadata.close();
});

/** A gate a write waits at until the test opens it. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

interface Intercept {
  reached?(): void;
  hold?: Promise<void>;
  fail?: Error;
}

interface Harness {
  bus: EmbeddedBus;
  processor: IssuesProcessor;
  transactions(): number;
  /** Makes the next insert into `table` (one insert) tell it is reached, wait for `hold`, then fail with `fail`. */
  interceptNext(table: string, behaviour: Intercept): void;
}

async function harness(): Promise<Harness> {
  let transactions = 0;
  const counting: MetadataStore = {
    kind: metadata.kind,
    query: (text, params) => metadata.query(text, params),
    transaction: <T>(work: (tx: SqlClient) => Promise<T>) => {
      transactions += 1;
      return metadata.transaction(work);
    },
    ping: () => metadata.ping(),
    close: async () => undefined,
  };
  const intercepts = new Map<string, Intercept>();
  const analytics: AnalyticsStore = {
    dialect: duck.dialect,
    migrate: (tables) => duck.migrate(tables),
    query: (sql, params) => duck.query(sql, params),
    execute: (sql, params) => duck.execute(sql, params),
    ping: () => duck.ping(),
    close: async () => undefined,
    insert: async <Row extends object>(table: TableDefinition<Row>, rows: readonly Row[]) => {
      const intercept = intercepts.get(table.name);
      intercepts.delete(table.name);
      intercept?.reached?.();
      await intercept?.hold;
      if (intercept?.fail) throw intercept.fail;
      await duck.insert(table, rows);
    },
  };
  const bus = new EmbeddedBus();
  const processor = await startIssuesProcessor({ bus, analytics, metadata: counting, logger: createLogger('test', 'silent') });
  return {
    bus,
    processor,
    transactions: () => transactions,
    interceptNext: (table, behaviour) => intercepts.set(table, behaviour),
  };
}

const T0 = Date.parse('2026-06-01T10:00:00.000Z');

function errorOf(projectId: string, type: string): ErrorRecord {
  return {
    id: randomUUID(),
    projectId,
    timestamp: T0,
    receivedAt: T0,
    type,
    value: `${type} happened`,
    level: 'error',
    release: 'web@1.0.0',
    environment: 'production',
    platform: 'node',
    source: null,
    traceId: null,
    spanId: null,
    user: { id: `user-${type}` },
    tags: {},
    extra: {},
    frames: [{ function: 'charge', filename: 'src/billing.ts', module: null, lineno: 3, colno: 1, in_app: true, abs_path: null, context_line: null }],
    breadcrumbs: [],
    fingerprint: null,
    retentionDays: 30,
  };
}

const publish = (bus: EmbeddedBus, records: ErrorRecord[]) => bus.publish(Topics.errors, records.map((record) => ({ key: record.projectId, value: record })));

async function counts(projectId: string) {
  const issues = await metadata.query<{ title: string; event_count: number }>('select title, event_count from issues where project_id = $1 order by title', [projectId]);
  const snapshots = await duck.query('SELECT title, event_count FROM issues WHERE project_id = $project ORDER BY title', { project: projectId });
  const [rows] = await duck.query('SELECT count(*) AS n FROM errors WHERE project_id = $project', { project: projectId });
  return { issues: issues.map((issue) => ({ title: issue.title, event_count: Number(issue.event_count) })), snapshots, rows: rows!['n'] };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 100));

describe('the issues processor pipeline', () => {
  it('counts a burst of deliveries exactly once each, gathering them into fewer transactions than deliveries', async () => {
    const { bus, processor, transactions } = await harness();
    const projectId = randomUUID();
    const deliveries = Array.from({ length: 40 }, (_, index) => Array.from({ length: 5 }, () => errorOf(projectId, index % 2 ? 'OddError' : 'EvenError')));
    await Promise.all(deliveries.map((records) => publish(bus, records)));
    const expected = [
      { title: 'EvenError: EvenError happened', event_count: 100 },
      { title: 'OddError: OddError happened', event_count: 100 },
    ];
    expect(await counts(projectId)).toEqual({ issues: expected, snapshots: expected, rows: 200 });
    // One delivery per transaction would take 33: the bus hands over 32 at once and the last 8 together.
    expect(transactions()).toBeLessThan(10);
    await processor.stop();
  });

  it("counts the batch that waited during a count while that count's snapshots are being written", async () => {
    const { bus, processor, interceptNext } = await harness();
    const projectId = randomUUID();
    const counting = { held: gate(), reached: gate() };
    const snapshotting = { held: gate(), reached: gate() };
    interceptNext('errors', { hold: counting.held.opened, reached: counting.reached.open });
    interceptNext('issues', { hold: snapshotting.held.opened, reached: snapshotting.reached.open });
    const first = publish(bus, [errorOf(projectId, 'FirstError')]);
    await counting.reached.opened;
    const second = publish(bus, [errorOf(projectId, 'SecondError'), errorOf(projectId, 'SecondError')]);
    counting.held.open();
    await snapshotting.reached.opened;
    // Counted and answered while the first batch's snapshot write is still held.
    await second;
    expect((await counts(projectId)).snapshots).toEqual([{ title: 'SecondError: SecondError happened', event_count: 2 }]);
    snapshotting.held.open();
    await first;
    expect((await counts(projectId)).snapshots).toEqual([
      { title: 'FirstError: FirstError happened', event_count: 1 },
      { title: 'SecondError: SecondError happened', event_count: 2 },
    ]);
    await processor.stop();
  });

  it('holds a batch smaller than the one being snapshotted until those snapshots are written, then counts it', async () => {
    const { bus, processor, transactions, interceptNext } = await harness();
    const projectId = randomUUID();
    const held = gate();
    const reached = gate();
    interceptNext('issues', { hold: held.opened, reached: reached.open });
    const first = publish(bus, [errorOf(projectId, 'FirstError'), errorOf(projectId, 'FirstError')]);
    await reached.opened;
    const second = publish(bus, [errorOf(projectId, 'SecondError')]);
    await settle();
    expect(transactions()).toBe(1);
    held.open();
    await Promise.all([first, second]);
    expect(transactions()).toBe(2);
    expect((await counts(projectId)).issues).toEqual([
      { title: 'FirstError: FirstError happened', event_count: 2 },
      { title: 'SecondError: SecondError happened', event_count: 1 },
    ]);
    await processor.stop();
  });

  it('fails the deliveries of a batch whose count fails, counts nothing of them, and goes on with the next batch', async () => {
    const { bus, processor, interceptNext } = await harness();
    const projectId = randomUUID();
    const failed = [errorOf(projectId, 'LostError')];
    const counting = { held: gate(), reached: gate() };
    interceptNext('errors', { hold: counting.held.opened, reached: counting.reached.open, fail: new Error('disk full') });
    const lost = publish(bus, failed);
    await counting.reached.opened;
    const next = publish(bus, [errorOf(projectId, 'NextError')]);
    counting.held.open();
    await expect(lost).rejects.toThrow('disk full');
    await next;
    // The failed delivery, sent again, is counted in full.
    await publish(bus, failed);
    const expected = [
      { title: 'LostError: LostError happened', event_count: 1 },
      { title: 'NextError: NextError happened', event_count: 1 },
    ];
    expect(await counts(projectId)).toEqual({ issues: expected, snapshots: expected, rows: 2 });
    await processor.stop();
  });

  it('fails a delivery whose snapshots fail; sent again, it writes the snapshot without counting twice', async () => {
    const { bus, processor, interceptNext } = await harness();
    const projectId = randomUUID();
    const records = [errorOf(projectId, 'SnapshotError'), errorOf(projectId, 'SnapshotError')];
    interceptNext('issues', { fail: new Error('disk full') });
    await expect(publish(bus, records)).rejects.toThrow('disk full');
    expect(await counts(projectId)).toEqual({ issues: [{ title: 'SnapshotError: SnapshotError happened', event_count: 2 }], snapshots: [], rows: 2 });
    await publish(bus, records);
    const expected = [{ title: 'SnapshotError: SnapshotError happened', event_count: 2 }];
    expect(await counts(projectId)).toEqual({ issues: expected, snapshots: expected, rows: 2 });
    // The failed snapshots no longer hold back a batch smaller than theirs.
    await publish(bus, [errorOf(projectId, 'LaterError')]);
    expect((await counts(projectId)).rows).toBe(3);
    await processor.stop();
  });
});
