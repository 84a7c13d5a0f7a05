import { randomUUID } from 'node:crypto';
import { ANALYTICS_TABLES, DuckDBStore, type AnalyticsStore, type TableDefinition } from '@tlm/analytics-store';
import { EmbeddedBus, Topics, type BatchHandler, type Bus, type MessagePosition, type Subscription } from '@tlm/bus';
import { createLogger } from '@tlm/core';
import { IssueCounter, groupError } from '@tlm/issues';
import { type PGliteStore, type MetadataStore, type SqlClient } from '@tlm/metadata-store';
import { openMigratedPGlite } from '@tlm/testkit/metadata';
import type { ErrorRecord } from '@tlm/signals';
import { eventually } from '@tlm/testkit';
import { startIssuesProcessor, type IssuesProcessor } from '../src/index';

/**
 * The processor's group commit, its counts behind the rows and its snapshot writer on real stores (PGlite, DuckDB, the
 * embedded bus). The stores are wrapped only to count transactions and inserts and to hold or fail chosen writes.
 */
let metadata: PGliteStore;
let duck: DuckDBStore;
const logger = createLogger('test', 'silent');

let disposeMetadata: () => Promise<void>;

beforeAll(async () => {
  ({ store: metadata, dispose: disposeMetadata } = await openMigratedPGlite());
  duck = await DuckDBStore.open(':memory:');
  await duck.migrate(ANALYTICS_TABLES);
});
afterAll(async () => {
  await duck.close();
  await disposeMetadata();
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

/**
 * A bus that keeps a log, as Kafka does: it hands each value's position to the handler and answers `deliver` with the
 * handler's outcome (Kafka would commit the offsets, or deliver the batch again).
 */
class LogBus implements Bus {
  readonly redelivers = true;
  private handler: BatchHandler<unknown> | undefined;

  async publish(): Promise<void> {
    throw new Error('the test delivers directly');
  }

  async subscribe<T>(_topic: string, _options: unknown, handler: BatchHandler<T>): Promise<Subscription> {
    this.handler = handler as BatchHandler<unknown>;
    return { close: async () => undefined };
  }

  deliver(values: ErrorRecord[], positions: MessagePosition[]): Promise<void> {
    return this.handler!(values, positions);
  }

  async ping(): Promise<void> {}
  async close(): Promise<void> {}
}

interface Harness<B extends Bus> {
  bus: B;
  processor: IssuesProcessor;
  transactions(): number;
  /** Inserts into `table` so far, failed ones too. */
  inserts(table: string): number;
  /** Makes the next insert into `table` (one insert) tell it is reached, wait for `hold`, then fail with `fail`. */
  interceptNext(table: string, behaviour: Intercept): void;
  /** Makes metadata transactions wait until the returned function is called. */
  holdTransactions(): () => void;
}

async function harness<B extends Bus = EmbeddedBus>(options: { bus?: B; countIntervalMs?: number; snapshotIntervalMs?: number } = {}): Promise<Harness<B>> {
  let transactions = 0;
  let held: Promise<void> | undefined;
  const counting: MetadataStore = {
    kind: metadata.kind,
    query: (text, params) => metadata.query(text, params),
    transaction: async <T>(work: (tx: SqlClient) => Promise<T>) => {
      transactions += 1;
      await held;
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
  const bus = options.bus ?? (new EmbeddedBus() as unknown as B);
  const processor = await startIssuesProcessor({ bus, analytics, metadata: counting, logger, countIntervalMs: options.countIntervalMs, snapshotIntervalMs: options.snapshotIntervalMs });
  return {
    bus,
    processor,
    transactions: () => transactions,
    inserts: (table) => inserted.get(table) ?? 0,
    interceptNext: (table, behaviour) => intercepts.set(table, behaviour),
    holdTransactions: () => {
      const { open, opened } = gate();
      held = opened;
      return () => {
        held = undefined;
        open();
      };
    },
  };
}

const T0 = Date.parse('2026-06-01T10:00:00.000Z');

function errorOf(projectId: string, type: string): ErrorRecord {
  return {
    id: randomUUID(),
    projectId,
    timestamp: T0,
    receivedAt: Date.now(),
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

/** Settles a promise's state without waiting for it: 'pending' when it has not settled after the current turns. */
async function state(promise: Promise<unknown>): Promise<'pending' | 'resolved' | 'rejected'> {
  let settled: 'pending' | 'resolved' | 'rejected' = 'pending';
  promise.then(
    () => (settled = 'resolved'),
    () => (settled = 'rejected'),
  );
  await new Promise((resolve) => setTimeout(resolve, 20));
  return settled;
}

async function counts(projectId: string) {
  const issues = await metadata.query<{ title: string; event_count: number }>('select title, event_count from issues where project_id = $1 order by title', [projectId]);
  const snapshots = await duck.query('SELECT title, event_count FROM issues WHERE project_id = $project ORDER BY title', { project: projectId });
  const [rows] = await duck.query('SELECT count(*) AS n FROM errors WHERE project_id = $project', { project: projectId });
  return { issues: issues.map((issue) => ({ title: issue.title, event_count: Number(issue.event_count) })), snapshots, rows: rows!['n'] };
}

describe('the issues processor pipeline', () => {
  it('stores a burst of deliveries in fewer writes than deliveries, and counts each error exactly once', async () => {
    const { bus, processor, inserts } = await harness();
    const projectId = randomUUID();
    const writesBefore = inserts('errors');
    const deliveries = Array.from({ length: 40 }, (_, index) => Array.from({ length: 5 }, () => errorOf(projectId, index % 2 ? 'OddError' : 'EvenError')));
    await Promise.all(deliveries.map((records) => publish(bus, records)));
    // One delivery per write would take 40: the bus hands over 32 at once and the last 8 together.
    expect(inserts('errors') - writesBefore).toBeLessThan(10);
    await processor.stop();
    const expected = [
      { title: 'EvenError: EvenError happened', event_count: 100 },
      { title: 'OddError: OddError happened', event_count: 100 },
    ];
    expect(await counts(projectId)).toEqual({ issues: expected, snapshots: expected, rows: 200 });
  });

  it('answers a delivery of an issue that exists once its rows are stored, and counts it behind the answer', async () => {
    const { bus, processor, holdTransactions } = await harness();
    const projectId = randomUUID();
    await publish(bus, [errorOf(projectId, 'KnownError')]);
    const release = holdTransactions();
    await publish(bus, [errorOf(projectId, 'KnownError'), errorOf(projectId, 'KnownError')]);
    expect(await counts(projectId)).toMatchObject({ issues: [{ title: 'KnownError: KnownError happened', event_count: 1 }], rows: 3 });
    release();
    await eventually(async () => expect((await counts(projectId)).issues).toEqual([{ title: 'KnownError: KnownError happened', event_count: 3 }]));
    await processor.stop();
  });

  it('answers the first delivery of a new issue only once the issue is stored and counted', async () => {
    const { bus, processor, holdTransactions } = await harness();
    const projectId = randomUUID();
    const release = holdTransactions();
    const first = publish(bus, [errorOf(projectId, 'BrandNewError')]);
    // Its row is stored (a new stack and a row: 20 to 100 ms here), and the answer still waits for the count.
    await eventually(async () => expect(await counts(projectId)).toMatchObject({ issues: [], rows: 1 }));
    expect(await state(first)).toBe('pending');
    release();
    await first;
    expect((await counts(projectId)).issues).toEqual([{ title: 'BrandNewError: BrandNewError happened', event_count: 1 }]);
    await processor.stop();
  });

  it('counts the deliveries nobody waits for at most once per interval', async () => {
    const { bus, processor, transactions } = await harness({ countIntervalMs: 60_000 });
    const projectId = randomUUID();
    await publish(bus, [errorOf(projectId, 'IntervalError')]);
    const afterFirst = transactions();
    for (let delivery = 0; delivery < 5; delivery++) await publish(bus, [errorOf(projectId, 'IntervalError')]);
    expect(transactions()).toBe(afterFirst);
    expect((await counts(projectId)).issues).toEqual([{ title: 'IntervalError: IntervalError happened', event_count: 1 }]);
    // Stopping counts what is tallied, in one transaction.
    await processor.stop();
    expect(transactions()).toBe(afterFirst + 1);
    expect((await counts(projectId)).issues).toEqual([{ title: 'IntervalError: IntervalError happened', event_count: 6 }]);
  });

  it('gathers the small deliveries that follow a larger write into one write', async () => {
    const { bus, processor, inserts } = await harness();
    const projectId = randomUUID();
    await publish(bus, Array.from({ length: 10 }, () => errorOf(projectId, 'BulkError')));
    const writesBefore = inserts('errors');
    // Sent together, as the clients answered by that write send their next events: alone, the first would be
    // written at once and the second after it.
    await Promise.all([publish(bus, [errorOf(projectId, 'NextError')]), publish(bus, [errorOf(projectId, 'NextError')])]);
    expect(inserts('errors') - writesBefore).toBe(1);
    await processor.stop();
    expect((await counts(projectId)).issues).toEqual([
      { title: 'BulkError: BulkError happened', event_count: 10 },
      { title: 'NextError: NextError happened', event_count: 2 },
    ]);
  });

  it('fails the deliveries of a batch whose rows cannot be stored, counts nothing of them, and goes on with the next batch', async () => {
    const { bus, processor, interceptNext } = await harness();
    const projectId = randomUUID();
    const failed = [errorOf(projectId, 'LostError')];
    const storing = { held: gate(), reached: gate() };
    interceptNext('errors', { hold: storing.held.opened, reached: storing.reached.open, fail: new Error('disk full') });
    const lost = publish(bus, failed);
    await storing.reached.opened;
    const next = publish(bus, [errorOf(projectId, 'NextError')]);
    storing.held.open();
    await expect(lost).rejects.toThrow('disk full');
    await next;
    // The failed delivery, sent again, is stored and counted in full.
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

  it('stops when its last snapshot write fails, and the next start writes that snapshot', async () => {
    const projectId = randomUUID();
    // The next write waits for the interval after the held one began; long enough that only the stop writes again.
    const before = await harness({ snapshotIntervalMs: 60_000 });
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
    const counter = new IssueCounter(metadata, logger, () => undefined, () => undefined);
    counter.learnPosition(9, -1);
    const lost = groupError(errorOf(projectId, 'LostSnapshotError'));
    void counter.add(
      [
        {
          projectId,
          issueId: lost.issueId,
          fingerprint: lost.fingerprint.hash,
          title: lost.title,
          culprit: lost.culprit,
          level: 'error',
          timestamp: T0,
          receivedAt: T0,
          release: null,
          userKey: null,
          partition: 9,
          offset: 0,
        },
      ],
      false,
    );
    await counter.close();
    expect((await counts(projectId)).snapshots).toEqual([{ title: 'WrittenError: WrittenError happened', event_count: 1 }]);
    const { processor } = await harness();
    expect((await counts(projectId)).snapshots).toEqual([
      { title: 'LostSnapshotError: LostSnapshotError happened', event_count: 1 },
      { title: 'WrittenError: WrittenError happened', event_count: 1 },
    ]);
    await processor.stop();
  });

  it('counts on start the errors a crash left stored but uncounted after it answered them', async () => {
    const projectId = randomUUID();
    const crashed = await harness();
    await publish(crashed.bus, [errorOf(projectId, 'CrashError')]);
    crashed.holdTransactions();
    // Answered: the rows are stored. The process dies before its count (never stopped).
    await publish(crashed.bus, [errorOf(projectId, 'CrashError'), errorOf(projectId, 'CrashError')]);
    expect(await counts(projectId)).toMatchObject({ issues: [{ title: 'CrashError: CrashError happened', event_count: 1 }], rows: 3 });
    const { processor } = await harness();
    const expected = [{ title: 'CrashError: CrashError happened', event_count: 3 }];
    expect(await counts(projectId)).toEqual({ issues: expected, snapshots: expected, rows: 3 });
    await processor.stop();
  });
});

describe('the issues processor on a bus that redelivers (Kafka)', () => {
  it('acknowledges a delivery only once it is counted, and skips what a redelivery brings again', async () => {
    const bus = new LogBus();
    const { processor, holdTransactions } = await harness({ bus });
    const projectId = randomUUID();
    const records = [errorOf(projectId, 'KafkaError'), errorOf(projectId, 'KafkaError')];
    const positions = [
      { partition: 41, offset: 7 },
      { partition: 41, offset: 8 },
    ];
    await bus.deliver(records.slice(0, 1), positions.slice(0, 1));
    const release = holdTransactions();
    const second = bus.deliver(records.slice(1), positions.slice(1));
    // Its rows are stored, but it is not counted while the metadata store is held: not acknowledged yet.
    await eventually(async () => expect((await counts(projectId)).rows).toBe(2));
    expect(await state(second)).toBe('pending');
    release();
    await second;
    // Both again, as Kafka delivers a batch whose offsets were not committed.
    await bus.deliver(records, positions);
    await processor.stop();
    const expected = [{ title: 'KafkaError: KafkaError happened', event_count: 2 }];
    expect(await counts(projectId)).toEqual({ issues: expected, snapshots: expected, rows: 2 });
  });
});
