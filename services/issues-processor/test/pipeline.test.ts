import { randomUUID } from 'node:crypto';
import { ANALYTICS_TABLES, DuckDBStore, type AnalyticsStore, type TableDefinition } from '@tlm/analytics-store';
import { EmbeddedBus, Topics } from '@tlm/bus';
import { createLogger } from '@tlm/core';
import { PGliteStore, migrate, type MetadataStore, type SqlClient } from '@tlm/metadata-store';
import { countErrors, groupError } from '@tlm/issues';
import type { ErrorRecord } from '@tlm/signals';
import { eventually } from '@tlm/testkit';
import { startIssuesProcessor, type IssuesProcessor } from '../src/index';

/**
 * The processor's group commit and its snapshot writer on real stores (PGlite, DuckDB, the embedded bus). The stores
 * are wrapped only to count transactions and inserts and to hold or fail chosen writes.
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
  /** Inserts into `table` so far, failed ones too. */
  inserts(table: string): number;
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
  const inserted = new Map<string, number>();
  const analytics: AnalyticsStore = {
    dialect: duck.dialect,
    migrate: (tables) => duck.migrate(tables),
    query: (sql, params) => duck.query(sql, params),
    execute: (sql, params) => duck.execute(sql, params),
    ping: () => duck.ping(),
    close: async () => undefined,
    insert: async <Row extends object>(table: TableDefinition<Row>, rows: readonly Row[]) => {
      inserted.set(table.name, (inserted.get(table.name) ?? 0) + 1);
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
    inserts: (table) => inserted.get(table) ?? 0,
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
    expect(await counts(projectId)).toMatchObject({ issues: expected, rows: 200 });
    // One delivery per transaction would take 33: the bus hands over 32 at once and the last 8 together.
    expect(transactions()).toBeLessThan(10);
    await processor.stop();
    expect((await counts(projectId)).snapshots).toEqual(expected);
  });

  it('answers deliveries once counted while a snapshot write is held; the snapshots counted meanwhile share the next write', async () => {
    const { bus, processor, interceptNext, inserts } = await harness();
    const projectId = randomUUID();
    const writesBefore = inserts('issues');
    const snapshotting = { held: gate(), reached: gate() };
    interceptNext('issues', { hold: snapshotting.held.opened, reached: snapshotting.reached.open });
    await publish(bus, [errorOf(projectId, 'FirstError')]);
    await snapshotting.reached.opened;
    // Three batches counted and answered while the first batch's snapshot write is held.
    for (let batch = 0; batch < 3; batch++) await publish(bus, [errorOf(projectId, 'SecondError'), errorOf(projectId, 'SecondError')]);
    expect(await counts(projectId)).toEqual({
      issues: [
        { title: 'FirstError: FirstError happened', event_count: 1 },
        { title: 'SecondError: SecondError happened', event_count: 6 },
      ],
      snapshots: [],
      rows: 7,
    });
    snapshotting.held.open();
    await processor.stop();
    expect((await counts(projectId)).snapshots).toEqual([
      { title: 'FirstError: FirstError happened', event_count: 1 },
      { title: 'SecondError: SecondError happened', event_count: 6 },
    ]);
    // The held write and one more, with the newest state of the issue the three batches counted.
    expect(inserts('issues') - writesBefore).toBe(2);
  });

  it('gathers the small deliveries that follow a larger count into one count', async () => {
    const { bus, processor, transactions } = await harness();
    const projectId = randomUUID();
    await publish(bus, Array.from({ length: 10 }, () => errorOf(projectId, 'BulkError')));
    // Sent together, as the clients answered by that count send their next events: alone, the first would be
    // counted at once and the second after it.
    await Promise.all([publish(bus, [errorOf(projectId, 'NextError')]), publish(bus, [errorOf(projectId, 'NextError')])]);
    expect(transactions()).toBe(2);
    expect((await counts(projectId)).issues).toEqual([
      { title: 'BulkError: BulkError happened', event_count: 10 },
      { title: 'NextError: NextError happened', event_count: 2 },
    ]);
    await processor.stop();
  });

  it('counts at once what arrives at an idle processor', async () => {
    const { bus, processor, transactions } = await harness();
    const projectId = randomUUID();
    for (let event = 0; event < 3; event++) await publish(bus, [errorOf(projectId, 'LoneError')]);
    expect(transactions()).toBe(3);
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
    await processor.stop();
    const expected = [
      { title: 'LostError: LostError happened', event_count: 1 },
      { title: 'NextError: NextError happened', event_count: 1 },
    ];
    expect(await counts(projectId)).toEqual({ issues: expected, snapshots: expected, rows: 2 });
  });

  it('answers a delivery whose snapshot write fails, and writes the snapshot again after the interval', async () => {
    const { bus, processor, interceptNext, inserts } = await harness();
    const projectId = randomUUID();
    const writesBefore = inserts('issues');
    interceptNext('issues', { fail: new Error('disk full') });
    await publish(bus, [errorOf(projectId, 'SnapshotError'), errorOf(projectId, 'SnapshotError')]);
    const expected = [{ title: 'SnapshotError: SnapshotError happened', event_count: 2 }];
    await eventually(async () => expect(await counts(projectId)).toEqual({ issues: expected, snapshots: expected, rows: 2 }));
    expect(inserts('issues') - writesBefore).toBe(2);
    await processor.stop();
  });

  it('writes the snapshot of an issue whose errors come again after their count, without counting them twice', async () => {
    const { bus, processor } = await harness();
    const projectId = randomUUID();
    const records = [errorOf(projectId, 'RetriedError'), errorOf(projectId, 'RetriedError')];
    // Counted, and the process gone before the snapshot was written: the SDK sends the events again.
    await countErrors({ metadata, analytics: duck }, records.map(groupError));
    expect((await counts(projectId)).snapshots).toEqual([]);
    await publish(bus, records);
    await processor.stop();
    const expected = [{ title: 'RetriedError: RetriedError happened', event_count: 2 }];
    expect(await counts(projectId)).toEqual({ issues: expected, snapshots: expected, rows: 2 });
  });

  it('stops when its last snapshot write fails, and the next start writes that snapshot', async () => {
    const projectId = randomUUID();
    const before = await harness();
    const snapshotting = { held: gate(), reached: gate() };
    before.interceptNext('issues', { hold: snapshotting.held.opened, reached: snapshotting.reached.open });
    await publish(before.bus, [errorOf(projectId, 'HeldError')]);
    await snapshotting.reached.opened;
    // Counted while the first write is held, so it waits for the next write, which fails at stop.
    await publish(before.bus, [errorOf(projectId, 'UnwrittenError')]);
    snapshotting.held.open();
    before.interceptNext('issues', { fail: new Error('disk full') });
    await before.processor.stop();
    expect((await counts(projectId)).snapshots).toEqual([{ title: 'HeldError: HeldError happened', event_count: 1 }]);
    const { processor } = await harness();
    expect((await counts(projectId)).snapshots).toEqual([
      { title: 'HeldError: HeldError happened', event_count: 1 },
      { title: 'UnwrittenError: UnwrittenError happened', event_count: 1 },
    ]);
    await processor.stop();
  });

  it('writes on start the snapshots of issues changed since shortly before the newest snapshot', async () => {
    const projectId = randomUUID();
    const before = await harness();
    await publish(before.bus, [errorOf(projectId, 'WrittenError')]);
    await before.processor.stop();
    // Counted after the newest snapshot, and never snapshotted: a crash took the process before its write.
    await countErrors({ metadata, analytics: duck }, [errorOf(projectId, 'LostSnapshotError')].map(groupError));
    expect((await counts(projectId)).snapshots).toEqual([{ title: 'WrittenError: WrittenError happened', event_count: 1 }]);
    const { processor } = await harness();
    expect((await counts(projectId)).snapshots).toEqual([
      { title: 'LostSnapshotError: LostSnapshotError happened', event_count: 1 },
      { title: 'WrittenError: WrittenError happened', event_count: 1 },
    ]);
    await processor.stop();
  });
});
