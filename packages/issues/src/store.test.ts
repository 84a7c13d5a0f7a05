import { randomUUID } from 'node:crypto';
import { ANALYTICS_TABLES, DuckDBStore, issuesTable } from '@tlm/analytics-store';
import { PGliteStore, PostgresStore, insertNewIssues, migrate, type IssueStateRow, type MetadataStore } from '@tlm/metadata-store';
import type { ErrorRecord, StackFrame } from '@tlm/signals';
import { groupError, issueIdOf } from './grouping';
import { fingerprintOf } from './fingerprint';
import { snapshotRecentIssues } from './snapshots';
import { applyIssueAction, countErrors, forgetIssueUser, issueSnapshot, recordErrors, type IssueStores } from './store';
import { openIsolatedPostgres, postgresUnavailableReason } from '@tlm/testkit';


interface OpenedMetadata {
  store: MetadataStore;
  /** Another client of the same database, as another process would hold (Postgres only). */
  another?(): Promise<MetadataStore>;
  dispose(): Promise<void>;
}

async function openPglite(): Promise<OpenedMetadata> {
  const store = await PGliteStore.open();
  return { store, dispose: () => store.close() };
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

/** `manyClients`: the database takes clients of other processes (Postgres; one PGlite database has one). */
function suite(label: string, openMetadata: () => Promise<OpenedMetadata>, manyClients: boolean): void {
  describe(label, () => {
    let metadata: OpenedMetadata;
    let analytics: DuckDBStore;
    let stores: IssueStores;
    let projectId: string;

    beforeAll(async () => {
      metadata = await openMetadata();
      await migrate(metadata.store);
      analytics = await DuckDBStore.open(':memory:');
      await analytics.migrate(ANALYTICS_TABLES);
      stores = { metadata: metadata.store, analytics };
    });
    afterAll(async () => {
      await analytics.close();
      await metadata.dispose();
    });
    beforeEach(() => {
      projectId = randomUUID();
    });

    const error = (overrides: Partial<ErrorRecord> = {}): ErrorRecord => ({
      id: randomUUID(),
      projectId,
      timestamp: T0,
      receivedAt: T0,
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

    async function snapshot(issueId: string) {
      const rows = await analytics.query('SELECT * FROM issues WHERE project_id = $project AND id = $id', { project: projectId, id: issueId });
      expect(rows).toHaveLength(1);
      return rows[0]!;
    }

    async function errorRows() {
      return analytics.query('SELECT id, issue_id, fingerprint_hash, type FROM errors WHERE project_id = $project ORDER BY id', { project: projectId });
    }

    it('counts errors into an issue stored under an id of the older version 8 layout instead of opening a second one', async () => {
      const first = error({ user: { id: 'u1' } });
      const derived = issueOf(first);
      const legacy = `${derived.slice(0, 14)}8${derived.slice(15)}`;
      await metadata.store.transaction((tx) =>
        insertNewIssues(tx, [
          { id: legacy, projectId, fingerprint: fingerprintOf(first).hash, title: 'TypeError: old', culprit: 'charge in src/billing.ts', level: 'error', firstSeen: T0 },
        ]),
      );
      const outcome = await recordErrors(stores, [first, error({ user: { id: 'u2' } })]);
      expect(outcome.recorded).toBe(2);
      expect(outcome.issues.map((issue) => [issue.id, Number(issue.event_count), Number(issue.user_count)])).toEqual([[legacy, 2, 2]]);
      expect((await errorRows()).map((row) => row['issue_id'])).toEqual([legacy, legacy]);
      expect(await metadata.store.query('select id from issues where project_id = $1', [projectId])).toEqual([{ id: legacy }]);
    });

    it('creates an unresolved issue with event_count 1 for a new fingerprint, numbered per project', async () => {
      const first = error({ release: 'web@1.0.0', user: { id: 'u1' } });
      const outcome = await recordErrors(stores, [first]);
      expect(outcome).toMatchObject({ recorded: 1, duplicates: 0 });
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
      await recordErrors(stores, [other]);
      expect((await snapshot(issueOf(other)))['short_id']).toBe(2);
    });

    it('counts events and distinct users, and follows the newest event for last_seen, level and release_last', async () => {
      await recordErrors(stores, [error({ release: 'web@1.0.0', user: { id: 'u1' }, timestamp: T0 })]);
      await recordErrors(stores, [
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
        release_first: 'web@1.0.0',
        release_last: 'web@1.1.0',
      });
    });

    it('counts an event id once: a retry in a later batch and a repeat within one batch are skipped', async () => {
      const original = error();
      await recordErrors(stores, [original]);
      const retried = await recordErrors(stores, [{ ...original, receivedAt: T0 + 60_000 }]);
      expect(retried).toMatchObject({ recorded: 0, duplicates: 1 });
      const twice = error();
      expect(await recordErrors(stores, [twice, { ...twice }])).toMatchObject({ recorded: 1, duplicates: 1 });
      expect((await snapshot(issueOf(original)))['event_count']).toBe(2);
      expect(await errorRows()).toHaveLength(2);
    });

    it('creates exactly one issue for 50 simultaneous events of a new fingerprint, with event_count 50', async () => {
      const events = Array.from({ length: 50 }, (_, index) => error({ type: 'ConcurrencyError', user: { id: `u${index % 7}` } }));
      const outcomes = await Promise.all(events.map((event) => recordErrors(stores, [event])));
      expect(outcomes.reduce((sum, outcome) => sum + outcome.recorded, 0)).toBe(50);
      const issues = await metadata.store.query<{ id: string; short_id: number; event_count: number; user_count: number }>(
        'select id, short_id, event_count, user_count from issues where project_id = $1',
        [projectId],
      );
      expect(issues).toEqual([{ id: issueOf(events[0]!), short_id: 1, event_count: 50, user_count: 7 }]);
      expect(await snapshot(issueOf(events[0]!))).toMatchObject({ event_count: 50, user_count: 7 });
      expect(await errorRows()).toHaveLength(50);
    });

    it('follows SPEC.md transitions: resolve in a release, regress on another release, ignore, unresolve', async () => {
      const first = error({ release: 'web@1.0.0' });
      const issueId = issueOf(first);
      await recordErrors(stores, [first]);

      expect(await applyIssueAction(stores, projectId, issueId, { action: 'resolve', release: 'web@1.0.0' })).toMatchObject({
        status: 'resolved',
        resolved_in_release: 'web@1.0.0',
      });
      expect(await snapshot(issueId)).toMatchObject({ status: 'resolved', resolved_in_release: 'web@1.0.0' });

      await recordErrors(stores, [error({ release: 'web@1.0.0' })]);
      expect(await snapshot(issueId)).toMatchObject({ status: 'resolved', event_count: 2 });

      await recordErrors(stores, [error({ release: 'web@1.1.0' })]);
      expect(await snapshot(issueId)).toMatchObject({ status: 'regressed', event_count: 3, resolved_in_release: 'web@1.0.0', release_last: 'web@1.1.0' });

      await recordErrors(stores, [error({ release: 'web@1.2.0' })]);
      expect((await snapshot(issueId))['status']).toBe('regressed');

      await applyIssueAction(stores, projectId, issueId, { action: 'ignore' });
      await recordErrors(stores, [error({ release: 'web@1.3.0' })]);
      expect(await snapshot(issueId)).toMatchObject({ status: 'ignored', event_count: 5, resolved_in_release: null });

      await applyIssueAction(stores, projectId, issueId, { action: 'unresolve' });
      expect((await snapshot(issueId))['status']).toBe('unresolved');
      await recordErrors(stores, [error({ release: 'web@1.3.0' })]);
      expect((await snapshot(issueId))['status']).toBe('unresolved');
    });

    it('regresses an issue resolved without a release on any later error, with or without a release', async () => {
      for (const release of [null, 'web@2.0.0']) {
        const first = error({ type: `NoRelease${String(release)}` });
        const issueId = issueOf(first);
        await recordErrors(stores, [first]);
        await applyIssueAction(stores, projectId, issueId, { action: 'resolve', release: null });
        expect(await snapshot(issueId)).toMatchObject({ status: 'resolved', resolved_in_release: null });
        await recordErrors(stores, [error({ type: first.type, release })]);
        expect((await snapshot(issueId))['status']).toBe('regressed');
      }
    });

    it('regresses an issue resolved in a release on an error without a release', async () => {
      const first = error({ type: 'Unreleased' });
      await recordErrors(stores, [first]);
      await applyIssueAction(stores, projectId, issueOf(first), { action: 'resolve', release: 'web@1.0.0' });
      await recordErrors(stores, [error({ type: 'Unreleased', release: null })]);
      expect((await snapshot(issueOf(first)))['status']).toBe('regressed');
    });

    it("answers undefined for an issue that is not the project's", async () => {
      const first = error();
      await recordErrors(stores, [first]);
      expect(await applyIssueAction(stores, randomUUID(), issueOf(first), { action: 'ignore' })).toBeUndefined();
      expect(await applyIssueAction(stores, projectId, randomUUID(), { action: 'ignore' })).toBeUndefined();
      expect((await snapshot(issueOf(first)))['status']).toBe('unresolved');
    });

    it('counts a user again after a GDPR erasure forgot them, though this processor had seen them before', async () => {
      const first = error({ user: { id: 'u1' } });
      await recordErrors(stores, [first, error({ user: { id: 'u2' } })]);
      await recordErrors(stores, [error({ user: { id: 'u1' } })]);
      expect(await snapshot(issueOf(first))).toMatchObject({ event_count: 3, user_count: 2 });
      expect(await forgetIssueUser(stores, projectId, 'u1')).toBe(1);
      expect(await snapshot(issueOf(first))).toMatchObject({ event_count: 3, user_count: 1 });
      await recordErrors(stores, [error({ user: { id: 'u1' } }), error({ user: { id: 'u2' } })]);
      expect(await snapshot(issueOf(first))).toMatchObject({ event_count: 5, user_count: 2 });
    });

    it('does not send the metadata store a user pair it has seen stored', async () => {
      const first = error({ user: { id: 'u1' } });
      await recordErrors(stores, [first]);
      // Removed behind the processor's back (no erasure count): only a processor that asks again would re-add it.
      await metadata.store.query('delete from issue_users where project_id = $1', [projectId]);
      await recordErrors(stores, [error({ user: { id: 'u1' } })]);
      expect(await metadata.store.query('select user_key from issue_users where project_id = $1', [projectId])).toEqual([]);
      expect(await snapshot(issueOf(first))).toMatchObject({ event_count: 2, user_count: 1 });
    });

    (manyClients ? it : it.skip)('counts a user again after an erasure made by another process', async () => {
      const elsewhere: IssueStores = { metadata: await metadata.another!(), analytics };
      const first = error({ user: { id: 'u1' } });
      await recordErrors(stores, [first]);
      await recordErrors(stores, [error({ user: { id: 'u1' } })]);
      expect(await forgetIssueUser(elsewhere, projectId, 'u1')).toBe(1);
      await recordErrors(stores, [error({ user: { id: 'u1' } })]);
      expect(await snapshot(issueOf(first))).toMatchObject({ event_count: 3, user_count: 1 });
    });

    it('keeps the newest snapshot when an older one is written after it', async () => {
      const first = error();
      const issueId = issueOf(first);
      await recordErrors(stores, [first]);
      const unresolved = (await metadata.store.query<IssueStateRow>('select * from issues where id = $1', [issueId]))[0]!;
      await applyIssueAction(stores, projectId, issueId, { action: 'resolve', release: null });
      await analytics.insert(issuesTable, [issueSnapshot(unresolved)]);
      expect((await snapshot(issueId))['status']).toBe('resolved');
    });

    it('writes again, page by page, the snapshots of issues changed since shortly before the newest snapshot', async () => {
      const records = ['AError', 'BError', 'CError', 'DError', 'EError'].map((type) => error({ type }));
      // Counted, never snapshotted: what a crash leaves.
      await countErrors(stores, records.map(groupError));
      await countErrors(stores, [error({ type: 'AError' })].map(groupError));
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

suite('issues on PGlite and DuckDB', openPglite, false);

const unavailable = postgresUnavailableReason();
if (unavailable) {
  console.log(`skipping the Postgres issues suite: ${unavailable}`);
  describe.skip('issues on Postgres and DuckDB', () => undefined);
} else {
  suite('issues on Postgres and DuckDB', openPostgres, true);
}
