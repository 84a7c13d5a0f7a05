import { randomBytes, randomUUID } from 'node:crypto';
import { ANALYTICS_TABLES, ClickHouseStore, DuckDBStore, issuesTable, type AnalyticsStore, type TableDefinition } from '@tlm/analytics-store';
import { createLogger } from '@tlm/core';
import { PostgresStore, insertNewIssues, migrate, type IssueStateRow, type MetadataStore, type PGliteStore } from '@tlm/metadata-store';
import { openMigratedPGlite } from '@tlm/testkit/metadata';
import type { ErrorRecord, StackFrame } from '@tlm/signals';
import { clickhouseConnection, liveSuite, openIsolatedPostgres, postgresUnavailableReason } from '@tlm/testkit';
import { IssueCounter, PartitionTakenError } from './counter';
import { fingerprintOf } from './fingerprint';
import { groupError, issueIdOf } from './grouping';
import { ErrorRecorder, type ErrorRecorderOptions } from './recorder';
import { snapshotRecentIssues } from './snapshots';
import { applyIssueAction, forgetIssueUser, issueSnapshot, type IssueStores } from './store';

const logger = createLogger('test', 'silent');

interface OpenedMetadata {
  store: MetadataStore;
  /** Another client of the same database, as another process would hold (Postgres only). */
  another?(): Promise<MetadataStore>;
  dispose(): Promise<void>;
}

const T0 = Date.parse('2026-05-01T12:00:00.000Z');

/** Ten connections, so transactions really run at once. */
async function openPostgres(): Promise<OpenedMetadata> {
  const opened = await openIsolatedPostgres(10);
  const others: MetadataStore[] = [];
  return {
    store: opened.store,
    another: async () => {
      const other = await PostgresStore.connect(opened.url, 2);
      others.push(other);
      return other;
    },
    dispose: async () => {
      for (const other of others) await other.close();
      await opened.dispose();
    },
  };
}

const frame = (fn: string, filename: string): StackFrame => ({
  function: fn,
  filename,
  module: null,
  lineno: 12,
  colno: 4,
  in_app: true,
  abs_path: null,
  context_line: null,
});

const errorAt = (projectId: string, overrides: Partial<ErrorRecord> = {}): ErrorRecord => ({
  id: randomUUID(),
  projectId,
  timestamp: T0,
  receivedAt: Date.now(),
  type: 'TypeError',
  value: "Cannot read properties of undefined (reading 'total')",
  level: 'error',
  release: null,
  environment: 'production',
  platform: 'node',
  source: 'generic',
  traceId: null,
  spanId: null,
  user: {},
  tags: {},
  extra: {},
  frames: [frame('charge', 'src/billing.ts')],
  breadcrumbs: [],
  fingerprint: null,
  retentionDays: 30,
  ...overrides,
});

const issueOf = (record: ErrorRecord) => issueIdOf(record.projectId, fingerprintOf(record).hash);

/** An analytics store whose inserts into one table can be made to fail, as a full disk would. */
function failable(store: AnalyticsStore): AnalyticsStore & { failNext(table: string): void } {
  const failing = new Set<string>();
  return {
    dialect: store.dialect,
    migrate: (tables) => store.migrate(tables),
    query: (sql, params) => store.query(sql, params),
    execute: (sql, params) => store.execute(sql, params),
    ping: () => store.ping(),
    close: async () => undefined,
    insert: async <Row extends object>(table: TableDefinition<Row>, rows: readonly Row[]) => {
      if (failing.delete(table.name)) throw new Error('disk full');
      await store.insert(table, rows);
    },
    failNext: (table) => failing.add(table),
  };
}

/** `manyClients`: the database takes clients of other processes (Postgres; one PGlite database has one). */
function suite(label: string, openMetadata: () => Promise<OpenedMetadata>, manyClients: boolean): void {
  describe(label, () => {
    let metadata: OpenedMetadata;
    let analytics: DuckDBStore;
    let stores: IssueStores;
    /** The suite's standalone processor: it numbers partition 0 of the stream itself. */
    let recorder: ErrorRecorder;
    let projectId: string;
    /** Tests that record as Kafka consumers each take partitions of their own. */
    let nextPartition = 1;

    beforeAll(async () => {
      metadata = await openMetadata();
      await migrate(metadata.store);
      analytics = await DuckDBStore.open(':memory:');
      await analytics.migrate(ANALYTICS_TABLES);
      stores = { metadata: metadata.store, analytics };
      recorder = await ErrorRecorder.start(stores, logger, { positions: 'own' });
    });
    afterAll(async () => {
      await recorder.close();
      await analytics.close();
      await metadata.dispose();
    });
    beforeEach(() => {
      projectId = randomUUID();
    });

    const error = (overrides: Partial<ErrorRecord> = {}) => errorAt(projectId, overrides);

    /** Stores errors, then counts them and writes their snapshots. */
    async function recordErrors(records: ErrorRecord[], by = recorder) {
      const recorded = await by.record(records.map(groupError));
      await by.flush();
      return recorded;
    }

    async function snapshot(issueId: string) {
      const rows = await analytics.query('SELECT * FROM issues WHERE project_id = $project AND id = $id', { project: projectId, id: issueId });
      expect(rows).toHaveLength(1);
      return rows[0]!;
    }

    async function storedIssues() {
      const rows = await metadata.store.query<{ id: string; short_id: number; event_count: number; user_count: number }>(
        'select id, short_id, event_count, user_count from issues where project_id = $1 order by short_id',
        [projectId],
      );
      return rows.map((row) => ({ id: row.id, short_id: Number(row.short_id), event_count: Number(row.event_count), user_count: Number(row.user_count) }));
    }

    async function errorRows() {
      return analytics.query('SELECT id, issue_id, fingerprint_hash, type FROM errors WHERE project_id = $project ORDER BY id', { project: projectId });
    }

    const kafkaRecorder = (options: Partial<ErrorRecorderOptions> = {}) => ErrorRecorder.start(stores, logger, { positions: 'bus', ...options });

    it('counts errors into an issue stored under an id of the older version 8 layout instead of opening a second one', async () => {
      const first = error({ user: { id: 'u1' } });
      const derived = issueOf(first);
      const legacy = `${derived.slice(0, 14)}8${derived.slice(15)}`;
      await metadata.store.transaction((tx) =>
        insertNewIssues(tx, [
          { id: legacy, projectId, fingerprint: fingerprintOf(first).hash, title: 'TypeError: old', culprit: 'charge in src/billing.ts', level: 'error', firstSeen: T0 },
        ]),
      );
      const outcome = await recordErrors([first, error({ user: { id: 'u2' } })]);
      expect(outcome).toMatchObject({ recorded: 2, duplicates: 0, createsIssues: false });
      expect(await storedIssues()).toEqual([{ id: legacy, short_id: 1, event_count: 2, user_count: 2 }]);
      expect((await errorRows()).map((row) => row['issue_id'])).toEqual([legacy, legacy]);
    });

    it('creates an unresolved issue with event_count 1 for a new fingerprint, numbered per project', async () => {
      const first = error({ release: 'web@1.0.0', user: { id: 'u1' } });
      const outcome = await recordErrors([first]);
      expect(outcome).toMatchObject({ recorded: 1, duplicates: 0, createsIssues: true });
      const issue = await snapshot(issueOf(first));
      expect(issue).toMatchObject({
        short_id: 1,
        title: "TypeError: Cannot read properties of undefined (reading 'total')",
        culprit: 'charge in src/billing.ts',
        fingerprint: fingerprintOf(first).hash,
        status: 'unresolved',
        level: 'error',
        event_count: 1,
        user_count: 1,
        first_seen: new Date(T0).toISOString(),
        last_seen: new Date(T0).toISOString(),
        release_first: 'web@1.0.0',
        release_last: 'web@1.0.0',
        resolved_in_release: null,
      });
      expect(await errorRows()).toEqual([{ id: first.id, issue_id: issueOf(first), fingerprint_hash: fingerprintOf(first).hash, type: 'TypeError' }]);

      const other = error({ type: 'RangeError' });
      await recordErrors([other]);
      expect((await snapshot(issueOf(other)))['short_id']).toBe(2);
      // Stored now: the next error of the fingerprint needs no new issue.
      expect(await recordErrors([error({ type: 'RangeError' })])).toMatchObject({ createsIssues: false });
    });

    it('counts events and distinct users, and follows the newest event for last_seen, level and release_last', async () => {
      await recordErrors([error({ release: 'web@1.0.0', user: { id: 'u1' }, timestamp: T0 })]);
      await recordErrors([
        error({ release: 'web@1.1.0', user: { id: 'u1' }, timestamp: T0 + 2_000, level: 'fatal' }),
        error({ release: null, user: { email: 'b@example.com' }, timestamp: T0 + 1_000 }),
        error({ release: 'web@0.9.0', timestamp: T0 - 5_000, level: 'warning' }),
      ]);
      const issue = await snapshot(issueOf(error()));
      expect(issue).toMatchObject({
        event_count: 4,
        user_count: 2,
        level: 'fatal',
        first_seen: new Date(T0 - 5_000).toISOString(),
        last_seen: new Date(T0 + 2_000).toISOString(),
        // The earliest error (a late one, dated before the first) names the first release.
        release_first: 'web@0.9.0',
        release_last: 'web@1.1.0',
      });
    });

    it('stores and counts an event id once: a retry in a later batch and a repeat within one batch are skipped', async () => {
      const original = error();
      await recordErrors([original]);
      const retried = await recordErrors([{ ...original, receivedAt: Date.now() + 60_000 }]);
      expect(retried).toMatchObject({ recorded: 0, duplicates: 1 });
      const twice = error();
      expect(await recordErrors([twice, { ...twice }])).toMatchObject({ recorded: 1, duplicates: 1 });
      expect((await snapshot(issueOf(original)))['event_count']).toBe(2);
      expect(await errorRows()).toHaveLength(2);
    });

    it('takes the rows from the records as the bus journaled them when it stores every error of the batch, else from the records', async () => {
      const inserts: string[] = [];
      const watched: AnalyticsStore = {
        ...failable(analytics),
        insert: async (table, rows) => {
          inserts.push(`${table.name} from rows`);
          await analytics.insert(table, rows);
        },
        insertRecords: async (table, fields, encoded, computed) => {
          inserts.push(`${table.name} from records`);
          await analytics.insertRecords(table, fields, encoded, computed);
        },
      };
      const own = await ErrorRecorder.start({ metadata: metadata.store, analytics: watched }, logger, { positions: 'bus' });
      const partition = nextPartition++;
      const at = (offset: number) => ({ partition, offset });
      try {
        const crumbs = [{ category: 'ui.click', message: 'pay', timestamp: new Date(T0 - 1_000).toISOString() }, { message: 'loaded' }];
        const journaledErrors = [
          error({ type: 'JournaledError', user: { id: 'u1' }, tags: { route: '/pay' }, breadcrumbs: crumbs }),
          error({ type: 'JournaledError', frames: [], extra: { 'sdk.name': 'sentry.javascript.node' } }),
        ];
        const encoded = [Buffer.from(JSON.stringify(journaledErrors.slice(0, 1))), Buffer.from(JSON.stringify(journaledErrors.slice(1)))];
        await (await own.record(journaledErrors.map(groupError), [at(0), at(1)], false, encoded)).counted;
        expect(inserts.filter((insert) => insert.startsWith('errors'))).toEqual(['errors from records']);
        const stored = await analytics.query(
          'SELECT id, issue_id, type, "user", tags, extra, breadcrumbs, frames, stack_id, stream_partition, stream_offset FROM errors WHERE project_id = $project ORDER BY stream_offset',
          { project: projectId },
        );
        expect(stored.map((row) => ({ ...row, user: JSON.parse(String(row['user'])), tags: JSON.parse(String(row['tags'])), extra: JSON.parse(String(row['extra'])), breadcrumbs: JSON.parse(String(row['breadcrumbs'])) }))).toMatchObject([
          { id: journaledErrors[0]!.id, issue_id: issueOf(journaledErrors[0]!), type: 'JournaledError', user: { id: 'u1' }, tags: { route: '/pay' }, extra: {}, breadcrumbs: crumbs, frames: null, stream_partition: partition, stream_offset: 0 },
          { id: journaledErrors[1]!.id, issue_id: issueOf(journaledErrors[1]!), user: {}, extra: { 'sdk.name': 'sentry.javascript.node' }, breadcrumbs: [], frames: '[]', stack_id: null, stream_offset: 1 },
        ]);
        expect(stored[0]!['stack_id']).toEqual(expect.any(String));

        // A batch holding an error stored before is written from its records: the journaled bytes hold the repeat too.
        inserts.length = 0;
        const fresh = error({ type: 'JournaledError' });
        const again = [journaledErrors[0]!, fresh];
        await (await own.record(again.map(groupError), [at(2), at(3)], false, [Buffer.from(JSON.stringify(again))])).counted;
        expect(inserts.filter((insert) => insert.startsWith('errors'))).toEqual(['errors from rows']);
        expect((await errorRows()).map((row) => row['id']).sort()).toEqual([...journaledErrors, fresh].map((record) => record.id).sort());
        // The repeat is not counted twice: the first fingerprint's two errors, the second's one.
        expect((await storedIssues()).map((issue) => issue.event_count).sort()).toEqual([1, 2]);
      } finally {
        await own.close();
      }
    });

    it('remembers nothing of a batch whose rows could not be stored, so its retry is stored and counted in full', async () => {
      const store = failable(analytics);
      const own = await ErrorRecorder.start({ metadata: metadata.store, analytics: store }, logger, { positions: 'bus' });
      const partition = nextPartition++;
      try {
        const lost = [error({ type: 'LostError' }), error({ type: 'LostError' })];
        store.failNext('errors');
        await expect(own.record(lost.map(groupError), [{ partition, offset: 0 }, { partition, offset: 1 }])).rejects.toThrow('disk full');
        const retried = await own.record(lost.map(groupError), [{ partition, offset: 0 }, { partition, offset: 1 }]);
        await retried.counted;
        expect(retried).toMatchObject({ recorded: 2, duplicates: 0 });
        expect((await storedIssues()).map((issue) => issue.event_count)).toEqual([2]);
        expect(await errorRows()).toHaveLength(2);
      } finally {
        await own.close();
      }
    });

    it('stores a stack once per project however many errors share it, each row naming it instead of holding the frames', async () => {
      const shared = [frame('charge', 'src/billing.ts'), frame('checkout', 'src/cart.ts')];
      const records = [error({ frames: shared }), error({ frames: [...shared] }), error({ frames: [frame('other', 'src/other.ts')] }), error({ type: 'Message', frames: [] })];
      await recordErrors(records);
      await recordErrors([error({ frames: shared })]);
      const stacks = await analytics.query('SELECT id, frames FROM stacks WHERE project_id = $project ORDER BY frames', { project: projectId });
      expect(stacks.map((row) => JSON.parse(String(row['frames'])).map((stored: { function: string }) => stored.function))).toEqual([
        ['charge', 'checkout'],
        ['other'],
      ]);
      const rows = await analytics.query(
        `SELECT e.id, e.frames AS own, e.stack_id, coalesce(e.frames, s.frames) AS frames FROM errors e
         LEFT JOIN stacks s ON s.project_id = e.project_id AND s.id = e.stack_id WHERE e.project_id = $project`,
        { project: projectId },
      );
      const byId = new Map(rows.map((row) => [row['id'], row]));
      expect(byId.get(records[0]!.id)).toMatchObject({ own: null, stack_id: byId.get(records[1]!.id)!['stack_id'] });
      expect(JSON.parse(String(byId.get(records[0]!.id)!['frames']))).toEqual([
        { function: 'charge', filename: 'src/billing.ts', lineno: 12, colno: 4, in_app: true },
        { function: 'checkout', filename: 'src/cart.ts', lineno: 12, colno: 4, in_app: true },
      ]);
      expect(byId.get(records[3]!.id)).toMatchObject({ own: '[]', stack_id: null });
    });

    it('writes no row of a batch whose new stacks could not be stored', async () => {
      const store = failable(analytics);
      const own = await ErrorRecorder.start({ metadata: metadata.store, analytics: store }, logger, { positions: 'bus' });
      const partition = nextPartition++;
      try {
        store.failNext('stacks');
        const lost = error({ type: 'StacklessError', frames: [frame('unique', `src/${randomUUID()}.ts`)] });
        await expect(own.record([groupError(lost)], [{ partition, offset: 0 }])).rejects.toThrow('disk full');
        expect(await errorRows()).toEqual([]);
        await (await own.record([groupError(lost)], [{ partition, offset: 0 }])).counted;
        expect(await analytics.query('SELECT count(*) AS n FROM stacks WHERE project_id = $project', { project: projectId })).toEqual([{ n: 1 }]);
        expect(await errorRows()).toHaveLength(1);
      } finally {
        await own.close();
      }
    });

    it('creates exactly one issue for 50 simultaneous events of a new fingerprint on five processors, with event_count 50', async () => {
      const processors = await Promise.all(Array.from({ length: 5 }, () => kafkaRecorder()));
      const partitions = processors.map(() => nextPartition++);
      try {
        const events = Array.from({ length: 50 }, (_, index) => error({ type: 'ConcurrencyError', user: { id: `u${index % 7}` } }));
        const recorded = await Promise.all(
          processors.map((processor, index) => {
            const mine = events.slice(index * 10, index * 10 + 10);
            return processor.record(mine.map(groupError), mine.map((_, offset) => ({ partition: partitions[index]!, offset })));
          }),
        );
        await Promise.all(recorded.map((outcome) => outcome.counted));
        expect(recorded.reduce((sum, outcome) => sum + outcome.recorded, 0)).toBe(50);
        expect(await storedIssues()).toEqual([{ id: issueOf(events[0]!), short_id: 1, event_count: 50, user_count: 7 }]);
        await Promise.all(processors.map((processor) => processor.flush()));
        expect(await snapshot(issueOf(events[0]!))).toMatchObject({ event_count: 50, user_count: 7 });
        expect(await errorRows()).toHaveLength(50);
      } finally {
        await Promise.all(processors.map((processor) => processor.close()));
      }
    });

    /** The metadata store of a processor whose transactions wait while the gate is shut: a stalled or dying process. */
    function gated() {
      let opened: Promise<void> | undefined;
      let open = () => undefined as void;
      const store: MetadataStore = {
        kind: metadata.store.kind,
        query: (text, params) => metadata.store.query(text, params),
        transaction: async (work) => {
          await opened;
          return metadata.store.transaction(work);
        },
        ping: () => metadata.store.ping(),
        close: async () => undefined,
      };
      return {
        stores: { metadata: store, analytics },
        shut: () => {
          opened = new Promise<void>((resolve) => (open = resolve));
        },
        open: () => open(),
      };
    }

    it('skips what a redelivery brings at or below the stored position, and the ids of those counted after a restart; stored rows are not written twice', async () => {
      const partition = nextPartition++;
      const events = Array.from({ length: 6 }, () => error({ type: 'RedeliveredError' }));
      const positions = events.map((_, offset) => ({ partition, offset: 100 + offset }));
      const dying = gated();
      const first = await ErrorRecorder.start(dying.stores, logger, { positions: 'bus' });
      await (await first.record(events.slice(0, 4).map(groupError), positions.slice(0, 4))).counted;
      // Stored but never counted: the process dies in its count. Kafka delivers offsets 103 to 105 again.
      dying.shut();
      expect(await first.record(events.slice(3).map(groupError), positions.slice(3))).toMatchObject({ recorded: 2, duplicates: 1 });
      const restarted = await kafkaRecorder();
      try {
        const redelivered = await restarted.record(events.map(groupError), positions, true);
        expect(redelivered).toMatchObject({ recorded: 2, duplicates: 4 });
        await redelivered.counted;
        // Offsets 104 and 105 were stored before the crash: counted now, their rows not written again.
        const [rows] = await analytics.query('SELECT count(*) AS n, count(DISTINCT id) AS ids FROM errors WHERE stream_partition = $partition', { partition });
        expect(rows).toEqual({ n: 6, ids: 6 });
        // An SDK's retry of a counted event, at a new offset.
        expect(await restarted.record([groupError(events[0]!)], [{ partition, offset: 200 }])).toMatchObject({ recorded: 0, duplicates: 1 });
        expect((await storedIssues()).map((issue) => issue.event_count)).toEqual([6]);
      } finally {
        await restarted.close();
      }
    });

    it('refuses to count a partition another processor has counted further, and the other counts it exactly', async () => {
      const partition = nextPartition++;
      const events = Array.from({ length: 10 }, () => error({ type: 'RebalancedError' }));
      const positions = events.map((_, offset) => ({ partition, offset }));
      const stalled = gated();
      const old = await ErrorRecorder.start(stalled.stores, logger, { positions: 'bus' });
      await (await old.record(events.slice(0, 5).map(groupError), positions.slice(0, 5))).counted;
      // The old owner stores 5 to 7 and stalls in their count while a rebalance hands the partition to a new owner.
      stalled.shut();
      const stale = await old.record(events.slice(5, 8).map(groupError), positions.slice(5, 8));
      const taker = await kafkaRecorder();
      try {
        const taken = await taker.record(events.map(groupError), positions);
        await taken.counted;
        expect(taken).toMatchObject({ recorded: 5, duplicates: 5 });
        stalled.open();
        await expect(stale.counted).rejects.toBeInstanceOf(PartitionTakenError);
        expect((await storedIssues()).map((issue) => issue.event_count)).toEqual([10]);
        // Back with the partition later, the old owner reads it again and skips what the taker counted.
        expect(await old.record(events.slice(5).map(groupError), positions.slice(5))).toMatchObject({ recorded: 0, duplicates: 5 });
      } finally {
        await taker.close();
        await old.close();
      }
    });

    it('follows SPEC.md transitions: resolve in a release, regress on another release, ignore, unresolve', async () => {
      const first = error({ release: 'web@1.0.0' });
      const issueId = issueOf(first);
      await recordErrors([first]);

      expect(await applyIssueAction(stores, projectId, issueId, { action: 'resolve', release: 'web@1.0.0' })).toMatchObject({
        status: 'resolved',
        resolved_in_release: 'web@1.0.0',
      });
      expect(await snapshot(issueId)).toMatchObject({ status: 'resolved', resolved_in_release: 'web@1.0.0' });

      await recordErrors([error({ release: 'web@1.0.0' })]);
      expect(await snapshot(issueId)).toMatchObject({ status: 'resolved', event_count: 2 });

      await recordErrors([error({ release: 'web@1.1.0' })]);
      expect(await snapshot(issueId)).toMatchObject({ status: 'regressed', event_count: 3, resolved_in_release: 'web@1.0.0', release_last: 'web@1.1.0' });

      await recordErrors([error({ release: 'web@1.2.0' })]);
      expect((await snapshot(issueId))['status']).toBe('regressed');

      await applyIssueAction(stores, projectId, issueId, { action: 'ignore' });
      await recordErrors([error({ release: 'web@1.3.0' })]);
      expect(await snapshot(issueId)).toMatchObject({ status: 'ignored', event_count: 5, resolved_in_release: null });

      await applyIssueAction(stores, projectId, issueId, { action: 'unresolve' });
      expect((await snapshot(issueId))['status']).toBe('unresolved');
      await recordErrors([error({ release: 'web@1.3.0' })]);
      expect((await snapshot(issueId))['status']).toBe('unresolved');
    });

    it('regresses an issue resolved without a release on any later error, with or without a release', async () => {
      for (const release of [null, 'web@2.0.0']) {
        const first = error({ type: `NoRelease${String(release)}` });
        const issueId = issueOf(first);
        await recordErrors([first]);
        await applyIssueAction(stores, projectId, issueId, { action: 'resolve', release: null });
        expect(await snapshot(issueId)).toMatchObject({ status: 'resolved', resolved_in_release: null });
        await recordErrors([error({ type: first.type, release })]);
        expect((await snapshot(issueId))['status']).toBe('regressed');
      }
    });

    it('regresses an issue resolved in a release on an error without a release', async () => {
      const first = error({ type: 'Unreleased' });
      await recordErrors([first]);
      await applyIssueAction(stores, projectId, issueOf(first), { action: 'resolve', release: 'web@1.0.0' });
      await recordErrors([error({ type: 'Unreleased', release: null })]);
      expect((await snapshot(issueOf(first)))['status']).toBe('regressed');
    });

    it('does not regress a resolved issue on an error received before the resolve and counted after it', async () => {
      const first = error({ type: 'InFlightError', release: 'web@1.0.0' });
      await recordErrors([first]);
      const receivedBefore = Date.now() - 1;
      await applyIssueAction(stores, projectId, issueOf(first), { action: 'resolve', release: 'web@1.0.0' });
      await recordErrors([error({ type: 'InFlightError', release: 'web@1.1.0', receivedAt: receivedBefore })]);
      expect(await snapshot(issueOf(first))).toMatchObject({ status: 'resolved', event_count: 2 });
    });

    it("answers undefined for an issue that is not the project's", async () => {
      const first = error();
      await recordErrors([first]);
      expect(await applyIssueAction(stores, randomUUID(), issueOf(first), { action: 'ignore' })).toBeUndefined();
      expect(await applyIssueAction(stores, projectId, randomUUID(), { action: 'ignore' })).toBeUndefined();
      expect((await snapshot(issueOf(first)))['status']).toBe('unresolved');
    });

    it('counts a user again after a GDPR erasure forgot them, though this processor had seen them before', async () => {
      const first = error({ user: { id: 'u1' } });
      await recordErrors([first, error({ user: { id: 'u2' } })]);
      await recordErrors([error({ user: { id: 'u1' } })]);
      expect(await snapshot(issueOf(first))).toMatchObject({ event_count: 3, user_count: 2 });
      expect(await forgetIssueUser(stores, projectId, 'u1')).toBe(1);
      expect(await snapshot(issueOf(first))).toMatchObject({ event_count: 3, user_count: 1 });
      await recordErrors([error({ user: { id: 'u1' } }), error({ user: { id: 'u2' } })]);
      expect(await snapshot(issueOf(first))).toMatchObject({ event_count: 5, user_count: 2 });
    });

    it('does not send the metadata store a user pair it has seen stored', async () => {
      const first = error({ user: { id: 'u1' } });
      await recordErrors([first]);
      // Removed behind the processor's back (no erasure count): only a processor that asks again would re-add it.
      await metadata.store.query('delete from issue_users where project_id = $1', [projectId]);
      await recordErrors([error({ user: { id: 'u1' } })]);
      expect(await metadata.store.query('select user_key from issue_users where project_id = $1', [projectId])).toEqual([]);
      expect(await snapshot(issueOf(first))).toMatchObject({ event_count: 2, user_count: 1 });
    });

    (manyClients ? it : it.skip)('counts a user again after an erasure made by another process', async () => {
      const elsewhere: IssueStores = { metadata: await metadata.another!(), analytics };
      const first = error({ user: { id: 'u1' } });
      await recordErrors([first]);
      await recordErrors([error({ user: { id: 'u1' } })]);
      expect(await forgetIssueUser(elsewhere, projectId, 'u1')).toBe(1);
      await recordErrors([error({ user: { id: 'u1' } })]);
      expect(await snapshot(issueOf(first))).toMatchObject({ event_count: 3, user_count: 1 });
    });

    it('keeps the newest snapshot when an older one is written after it', async () => {
      const first = error();
      const issueId = issueOf(first);
      await recordErrors([first]);
      const unresolved = (await metadata.store.query<IssueStateRow>('select * from issues where id = $1', [issueId]))[0]!;
      await applyIssueAction(stores, projectId, issueId, { action: 'resolve', release: null });
      await analytics.insert(issuesTable, [issueSnapshot({ ...unresolved, status_changed_at: null })]);
      expect((await snapshot(issueId))['status']).toBe('resolved');
    });

    it('writes again, page by page, the snapshots of issues changed since shortly before the newest snapshot', async () => {
      // Counted, never snapshotted: what a crash leaves.
      const counter = new IssueCounter(metadata.store, logger, () => undefined, () => undefined);
      const partition = nextPartition++;
      counter.learnPosition(partition, -1);
      const records = ['AError', 'BError', 'CError', 'DError', 'EError', 'AError'].map((type) => groupError(error({ type })));
      void counter.add(
        records.map((grouped, offset) => ({
          projectId,
          issueId: grouped.issueId,
          fingerprint: grouped.fingerprint.hash,
          title: grouped.title,
          culprit: grouped.culprit,
          level: grouped.record.level,
          timestamp: grouped.record.timestamp,
          receivedAt: grouped.record.receivedAt,
          release: null,
          userKey: null,
          partition,
          offset,
        })),
        false,
      );
      await counter.close();
      expect(await analytics.query('SELECT id FROM issues WHERE project_id = $project', { project: projectId })).toEqual([]);
      expect(await snapshotRecentIssues(stores, 2)).toBeGreaterThanOrEqual(5);
      const snapshots = await analytics.query('SELECT title, event_count FROM issues WHERE project_id = $project ORDER BY title', { project: projectId });
      expect(snapshots.map((row) => [String(row['title']).split(':')[0], row['event_count']])).toEqual([
        ['AError', 2],
        ['BError', 1],
        ['CError', 1],
        ['DError', 1],
        ['EError', 1],
      ]);
    });
  });
}

suite('issues on PGlite and DuckDB', openMigratedPGlite, false);

const unavailable = postgresUnavailableReason();
if (unavailable) {
  console.log(`skipping the Postgres issues suite: ${unavailable}`);
  describe.skip('issues on Postgres and DuckDB', () => undefined);
} else {
  suite('issues on Postgres and DuckDB', openPostgres, true);
}

/**
 * A standalone processor's restarts over an analytics store from `openAnalytics` (a fresh one per test, dropped by
 * `dropAnalytics` before it is closed): DuckDB, and ClickHouse in its live suite, whose reads of the stream differ.
 */
const restarts = (openAnalytics: () => Promise<AnalyticsStore>, dropAnalytics: (store: AnalyticsStore) => Promise<void> = async () => undefined) => () => {
  let metadata: PGliteStore;
  let analytics: AnalyticsStore;
  let stores: IssueStores;
  // Recent: ClickHouse may drop rows past their retention at any merge.
  const errorOf = (projectId: string, overrides: Partial<ErrorRecord> = {}) => errorAt(projectId, { timestamp: Date.now() - 60_000, ...overrides });
  const issueTitled = (pattern: string) =>
    analytics.dialect === 'clickhouse'
      ? analytics.query('SELECT title, user_count, culprit FROM issues FINAL WHERE title LIKE {t:String}', { t: pattern })
      : analytics.query('SELECT title, user_count, culprit FROM issues WHERE title LIKE $t', { t: pattern });

  let disposeMetadata: () => Promise<void>;

  beforeEach(async () => {
    ({ store: metadata, dispose: disposeMetadata } = await openMigratedPGlite());
    analytics = await openAnalytics();
    await analytics.migrate(ANALYTICS_TABLES);
    stores = { metadata, analytics };
  });
  afterEach(async () => {
    await dropAnalytics(analytics);
    await analytics.close();
    await disposeMetadata();
  });

  const counts = async () =>
    (await metadata.query<{ title: string; event_count: number }>('select title, event_count from issues order by title')).map((issue) => [
      issue.title.split(':')[0],
      Number(issue.event_count),
    ]);

  it('counts on start the rows a crash left stored but uncounted, once, then numbers new errors after them', async () => {
    const projectId = randomUUID();
    let crashing = false;
    // The process dies while counting: its transactions from then on never end.
    const dying: MetadataStore = {
      kind: metadata.kind,
      query: (text, params) => metadata.query(text, params),
      transaction: (work) => (crashing ? new Promise(() => undefined) : metadata.transaction(work)),
      ping: () => metadata.ping(),
      close: async () => undefined,
    };
    const crashed = await ErrorRecorder.start({ metadata: dying, analytics }, logger, { positions: 'own' });
    const counted = errorOf(projectId, { type: 'CountedError' });
    await (await crashed.record([groupError(counted)])).counted;
    crashing = true;
    // Answered once stored, never counted.
    const uncounted = [errorOf(projectId, { type: 'CountedError' }), errorOf(projectId, { type: 'NewError', user: { id: 'u1' } })];
    expect(await crashed.record(uncounted.map(groupError))).toMatchObject({ recorded: 2 });
    expect(await counts()).toEqual([['CountedError', 1]]);

    const restarted = await ErrorRecorder.start(stores, logger, { positions: 'own' });
    try {
      expect(await counts()).toEqual([
        ['CountedError', 2],
        ['NewError', 1],
      ]);
      expect((await issueTitled('NewError%'))[0]).toMatchObject({
        user_count: 1,
        // The culprit frame read back through the stack the row names.
        culprit: 'charge in src/billing.ts',
      });
      // The SDK retries what it was answered for or not, and sends something new.
      const retried = await restarted.record([...uncounted, counted, errorOf(projectId, { type: 'NewError' })].map(groupError));
      expect(retried).toMatchObject({ recorded: 1, duplicates: 3 });
      await restarted.flush();
      expect(await counts()).toEqual([
        ['CountedError', 2],
        ['NewError', 2],
      ]);
      const offsets = await analytics.query('SELECT stream_partition, stream_offset FROM errors ORDER BY stream_offset');
      expect(offsets.map((row) => [row['stream_partition'], Number(row['stream_offset'])])).toEqual([
        [0, 0],
        [0, 1],
        [0, 2],
        [0, 3],
      ]);
    } finally {
      await restarted.close();
    }
  });

  it('answers a batch once its rows are stored and counts it after the interval, several batches in one count', async () => {
    const projectId = randomUUID();
    const slow = await ErrorRecorder.start(stores, logger, { positions: 'own', countIntervalMs: 60_000 });
    try {
      await (await slow.record([groupError(errorOf(projectId, { type: 'SlowError' }))])).counted;
      const later = [await slow.record([groupError(errorOf(projectId, { type: 'SlowError' }))]), await slow.record([groupError(errorOf(projectId, { type: 'SlowError' }))])];
      expect(later.map((recorded) => recorded.createsIssues)).toEqual([false, false]);
      expect(await analytics.query('SELECT id FROM errors')).toHaveLength(3);
      expect(await counts()).toEqual([['SlowError', 1]]);
      await slow.flush();
      await Promise.all(later.map((recorded) => recorded.counted));
      expect(await counts()).toEqual([['SlowError', 3]]);
    } finally {
      await slow.close();
    }
  });

  it('leaves a failed count at close to the next start', async () => {
    const projectId = randomUUID();
    const failing: MetadataStore = {
      kind: metadata.kind,
      query: (text, params) => metadata.query(text, params),
      transaction: () => Promise.reject(new Error('metadata store unavailable')),
      ping: () => metadata.ping(),
      close: async () => undefined,
    };
    const closing = await ErrorRecorder.start({ metadata: failing, analytics }, logger, { positions: 'own', countIntervalMs: 60_000 });
    const recorded = await closing.record([groupError(errorOf(projectId, { type: 'LateError' }))]);
    await closing.close();
    await expect(recorded.counted).rejects.toThrow();
    expect(await counts()).toEqual([]);
    const restarted = await ErrorRecorder.start(stores, logger, { positions: 'own' });
    await restarted.close();
    expect(await counts()).toEqual([['LateError', 1]]);
  });
};

describe('a standalone restart (PGlite and DuckDB)', restarts(() => DuckDBStore.open(':memory:')));

liveSuite('a standalone restart (PGlite and a live ClickHouse)', 'CLICKHOUSE_URL', (target) => {
  const database = () => `tlm_issues_${randomBytes(6).toString('hex')}`;
  let opened = '';
  restarts(
    () => ClickHouseStore.connect(clickhouseConnection(target(), (opened = database()))),
    (store) => store.execute(`DROP DATABASE IF EXISTS ${opened}`),
  )();
});
