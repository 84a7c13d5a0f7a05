import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DuckDBStore } from './duckdb';
import { deleteExpiredRows, deleteProjectRows } from './purge';
import type { TableDefinition } from './store';
import {
  ANALYTICS_TABLES,
  alertEventsTable,
  alertsTable,
  attachmentsTable,
  errorsTable,
  eventsTable,
  issuesTable,
  newestIssueSnapshot,
  logsTable,
  profileChunksTable,
  replayChunksTable,
  replaySessionsTable,
  spansTable,
  sessionsTable,
  stacksTable,
  vitalsTable,
  type AlertEventRow,
  type AlertRuleSnapshotRow,
  type ErrorRow,
  type EventRow,
  type IssueRow,
  type LogRow,
  type SpanRow,
  type VitalRow,
} from './tables';

const T0 = Date.parse('2026-03-04T05:06:07.089Z');

const logRow = (projectId: string, overrides: Partial<LogRow> = {}): LogRow => ({
  project_id: projectId,
  timestamp: T0,
  id: randomUUID(),
  severity: 'error',
  message: 'payment failed',
  properties: { route: '/checkout', amount: 12.5, retried: true, tags: ['a', 'b'] },
  trace_id: '0af7651916cd43dd8448eb211c80319c',
  span_id: null,
  received_at: T0 + 1,
  retention_days: 14,
  ...overrides,
});

const eventRow = (projectId: string): EventRow => ({
  project_id: projectId,
  timestamp: T0,
  id: randomUUID(),
  event_name: 'signup',
  distinct_id: 'user-1',
  properties: { plan: 'pro' },
  received_at: T0,
  retention_days: 3,
});

const errorRow = (projectId: string): ErrorRow => ({
  project_id: projectId,
  timestamp: T0,
  id: randomUUID(),
  issue_id: randomUUID(),
  fingerprint_hash: 'f'.repeat(64),
  type: 'TypeError',
  value: "Cannot read properties of undefined (reading 'id')",
  level: 'fatal',
  release: 'web@1.2.3',
  environment: null,
  platform: 'javascript',
  source: 'window.onerror',
  trace_id: null,
  span_id: null,
  user: { id: 'user-1' },
  tags: { browser: 'Chrome' },
  extra: { synthetic: 'logs', chain: [{ type: 'Error' }] },
  frames: [{ function: 'charge', filename: 'app.js', lineno: 10, colno: 5, in_app: true }],
  breadcrumbs: [],
  received_at: T0 + 5,
  retention_days: 90,
  stream_partition: 0,
  stream_offset: 1,
  stack_id: null,
});

const rows600 = (projectId: string): ErrorRow[] => Array.from({ length: 600 }, () => errorRow(projectId));

const issueRow = (projectId: string, id: string, overrides: Partial<IssueRow> = {}): IssueRow => ({
  project_id: projectId,
  id,
  short_id: 1,
  title: 'TypeError: x is undefined',
  culprit: 'charge(app.js)',
  fingerprint: 'f'.repeat(64),
  status: 'unresolved',
  level: 'error',
  event_count: 1,
  user_count: 1,
  first_seen: T0,
  last_seen: T0,
  release_first: 'web@1.0.0',
  release_last: 'web@1.0.0',
  resolved_in_release: null,
  updated_at: T0,
  ...overrides,
});

const alertRuleRow = (projectId: string, overrides: Partial<AlertRuleSnapshotRow> = {}): AlertRuleSnapshotRow => ({
  project_id: projectId,
  id: randomUUID(),
  name: 'error spike',
  metric: 'from:logs severity:error | count',
  threshold: 10.5,
  comparator: 'gt',
  window_minutes: 5,
  severity: 'critical',
  enabled: true,
  muted_until: null,
  created_at: T0,
  deleted: false,
  updated_at: T0,
  ...overrides,
});

const alertEventRow = (projectId: string): AlertEventRow => ({
  project_id: projectId,
  triggered_at: T0,
  id: randomUUID(),
  rule_id: randomUUID(),
  rule_name: 'error spike',
  value: 42,
  threshold: 10.5,
  severity: 'critical',
});

const spanRow = (projectId: string): SpanRow => ({
  project_id: projectId,
  timestamp: T0,
  id: randomUUID(),
  trace_id: '4bf92f3577b34da6a3ce929d0e0e4736',
  span_id: '00f067aa0ba902b7',
  parent_span_id: null,
  name: 'GET /cart',
  op: 'http.server',
  kind: 'server',
  status: 'ok',
  duration_ms: 1.5,
  end_timestamp: T0 + 1,
  service: null,
  release: null,
  environment: null,
  attributes: {},
  events: [],
  received_at: T0,
  retention_days: 14,
});

const vitalRow = (projectId: string): VitalRow => ({
  project_id: projectId,
  timestamp: T0,
  id: randomUUID(),
  name: 'lcp',
  value: 1200,
  route: '/',
  rating: 'good',
  trace_id: null,
  release: null,
  environment: null,
  properties: {},
  received_at: T0,
  retention_days: 14,
});

let store: DuckDBStore;

beforeAll(async () => {
  store = await DuckDBStore.open(':memory:');
  await store.migrate(ANALYTICS_TABLES);
});
afterAll(() => store.close());

const count = async (table: string, projectId: string) =>
  (await store.query(`SELECT count(*) AS n FROM ${table} WHERE project_id = $project`, { project: projectId }))[0]!['n'];

describe('migrate', () => {
  it('creates every table of ANALYTICS_TABLES', async () => {
    const rows = await store.query(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'main' ORDER BY table_name`);
    const names = ['alert_events', 'alerts', 'attachments', 'errors', 'events', 'issues', 'logs', 'profile_chunks', 'replay_chunks', 'replay_sessions', 'sessions', 'spans', 'stacks', 'vitals'];
    // Beside them, the store's own record of promoted properties.
    expect(rows.map((row) => row['table_name'])).toEqual([...names, 'promoted_properties'].sort());
    expect(ANALYTICS_TABLES.map((table) => table.name).sort()).toEqual(names);
  });

  it('is idempotent: running it again keeps tables and rows', async () => {
    const projectId = randomUUID();
    await store.insert(logsTable, [logRow(projectId)]);
    await store.migrate(ANALYTICS_TABLES);
    expect(await count('logs', projectId)).toBe(1);
  });

  it.each(ANALYTICS_TABLES.map((table) => [table.name, table] as const))(
    'gives %s its columns in the order of its column list, which the appender relies on',
    async (name, table) => {
      const described = await store.query(`DESCRIBE ${name}`);
      expect(described.map((column) => column['column_name'])).toEqual(table.columns.map((column) => column.name));
    },
  );
});

describe('insert and query', () => {
  it('round-trips a log row: ISO timestamps with ms, numbers, properties as JSON text, nulls', async () => {
    const projectId = randomUUID();
    const row = logRow(projectId);
    await store.insert(logsTable, [row]);
    const [stored] = await store.query('SELECT * FROM logs WHERE project_id = $project', { project: projectId });
    expect(stored).toEqual({
      project_id: projectId,
      timestamp: '2026-03-04T05:06:07.089Z',
      id: row.id,
      severity: 'error',
      message: 'payment failed',
      properties: '{"route":"/checkout","amount":12.5,"retried":true,"tags":["a","b"]}',
      trace_id: '0af7651916cd43dd8448eb211c80319c',
      span_id: null,
      received_at: '2026-03-04T05:06:07.090Z',
      retention_days: 14,
      // Written by something other than the ingest writer: no place in a counted stream.
      stream_partition: null,
      stream_offset: null,
      // No trigram signature given: every bit, so full-text search tests the row by the scan.
      message_trigrams: 2 ** 53 - 1,
    });
  });

  it('lets queries read into properties with JSON functions', async () => {
    const projectId = randomUUID();
    await store.insert(logsTable, [logRow(projectId)]);
    const [stored] = await store.query(
      `SELECT properties->>'route' AS route, CAST(properties->>'amount' AS DOUBLE) AS amount FROM logs WHERE project_id = $project`,
      { project: projectId },
    );
    expect(stored).toEqual({ route: '/checkout', amount: 12.5 });
  });

  it('round-trips an event row', async () => {
    const projectId = randomUUID();
    const row = eventRow(projectId);
    await store.insert(eventsTable, [row]);
    expect(await store.query('SELECT * FROM events WHERE project_id = $project', { project: projectId })).toEqual([
      {
        project_id: projectId,
        timestamp: '2026-03-04T05:06:07.089Z',
        id: row.id,
        event_name: 'signup',
        distinct_id: 'user-1',
        properties: '{"plan":"pro"}',
        received_at: '2026-03-04T05:06:07.089Z',
        retention_days: 3,
        stream_partition: null,
        stream_offset: null,
      },
    ]);
  });

  it('round-trips an error row with its JSON columns and null strings', async () => {
    const projectId = randomUUID();
    const row = errorRow(projectId);
    await store.insert(errorsTable, [row]);
    const [stored] = await store.query('SELECT * FROM errors WHERE project_id = $project', { project: projectId });
    expect(stored).toEqual({
      project_id: projectId,
      timestamp: '2026-03-04T05:06:07.089Z',
      id: row.id,
      issue_id: row.issue_id,
      fingerprint_hash: 'f'.repeat(64),
      type: 'TypeError',
      value: "Cannot read properties of undefined (reading 'id')",
      level: 'fatal',
      release: 'web@1.2.3',
      environment: null,
      platform: 'javascript',
      source: 'window.onerror',
      trace_id: null,
      span_id: null,
      user: '{"id":"user-1"}',
      tags: '{"browser":"Chrome"}',
      extra: '{"synthetic":"logs","chain":[{"type":"Error"}]}',
      frames: '[{"function":"charge","filename":"app.js","lineno":10,"colno":5,"in_app":true}]',
      breadcrumbs: '[]',
      received_at: '2026-03-04T05:06:07.094Z',
      retention_days: 90,
      stream_partition: 0,
      stream_offset: 1,
      stack_id: null,
    });
  });

  it('adds the stream and stack columns to an errors table made before them, and stores rows in it with them', async () => {
    const old = await DuckDBStore.open(':memory:');
    try {
      const before = errorsTable.ddl.duckdb[0]!.replace(',\n  stream_partition USMALLINT,\n  stream_offset UBIGINT,\n  stack_id VARCHAR', '');
      expect(before).not.toContain('stream_');
      expect(before).not.toContain('stack_id');
      await old.execute(before);
      await old.migrate([errorsTable as unknown as TableDefinition<object>]);
      const row = errorRow(randomUUID());
      await old.insert(errorsTable, [{ ...row, stream_partition: 2, stream_offset: 41, frames: null, stack_id: 'abc' }]);
      expect(await old.query('SELECT id, stream_partition, stream_offset, frames, stack_id FROM errors')).toEqual([
        { id: row.id, stream_partition: 2, stream_offset: 41, frames: null, stack_id: 'abc' },
      ]);
    } finally {
      await old.close();
    }
  });

  it('keeps one row per stack, the last written, and expires stacks by when they were last written', async () => {
    const projectId = randomUUID();
    const stack = (id: string, updatedAt: number) => ({ project_id: projectId, id, frames: [{ function: `f${updatedAt}` }], updated_at: updatedAt, retention_days: 30 });
    await store.insert(stacksTable, [stack('a', T0), stack('b', T0 - 10 * 86_400_000)]);
    await store.insert(stacksTable, [stack('a', T0 + 1_000)]);
    await store.insert(stacksTable, [stack('a', T0 - 1_000)]);
    const read = () => store.query('SELECT id, frames, epoch_ms(updated_at) AS at FROM stacks WHERE project_id = $project ORDER BY id', { project: projectId });
    expect(await read()).toEqual([
      { id: 'a', frames: `[{"function":"f${T0 + 1_000}"}]`, at: T0 + 1_000 },
      { id: 'b', frames: `[{"function":"f${T0 - 10 * 86_400_000}"}]`, at: T0 - 10 * 86_400_000 },
    ]);
    await deleteExpiredRows(store, projectId, new Date(T0 - 86_400_000));
    expect((await read()).map((row) => row['id'])).toEqual(['a']);
  });

  it('keeps an expired stack while an error inside retention still names it (a later error of the day it was written)', async () => {
    const projectId = randomUUID();
    // Written once a UTC day, at its first error; the day's later errors name it without writing it again.
    const stack = (id: string) => ({ project_id: projectId, id, frames: [{ function: id }], updated_at: T0, retention_days: 3 });
    await store.insert(stacksTable, [stack('named'), stack('unnamed')]);
    await store.insert(errorsTable, [
      { ...errorRow(projectId), timestamp: T0, frames: null, stack_id: 'named' },
      { ...errorRow(projectId), timestamp: T0 + 6 * 3_600_000, frames: null, stack_id: 'named' },
    ]);
    await deleteExpiredRows(store, projectId, new Date(T0 + 3_600_000));
    const left = await store.query(
      'SELECT e.stack_id, s.frames FROM errors e LEFT JOIN stacks s ON s.project_id = e.project_id AND s.id = e.stack_id WHERE e.project_id = $project',
      { project: projectId },
    );
    expect(left).toEqual([{ stack_id: 'named', frames: '[{"function":"named"}]' }]);
    const stacks = await store.query('SELECT id FROM stacks WHERE project_id = $project', { project: projectId });
    expect(stacks.map((row) => row['id'])).toEqual(['named']);
    await deleteExpiredRows(store, projectId, new Date(T0 + 7 * 3_600_000));
    expect(await store.query('SELECT id FROM stacks WHERE project_id = $project', { project: projectId })).toEqual([]);
  });

  it('stores the rows of a large batch exactly like those of a small one (read_json reads the whole file alike)', async () => {
    const small = randomUUID();
    const large = randomUUID();
    const valueOf = (index: number) => `line ${index}\nwith "quotes", commas and ✓`;
    const rows = (projectId: string, count: number) =>
      Array.from({ length: count }, (_, index) =>
        ({ ...errorRow(projectId), value: valueOf(index), release: index % 2 ? null : 'web@1' }),
      );
    await store.insert(errorsTable, rows(small, 3));
    await store.insert(errorsTable, rows(large, 600));
    const read = (projectId: string) =>
      store.query(
        'SELECT value, release, "user", frames, timestamp FROM errors WHERE project_id = $project AND value IN ($a, $b, $c) ORDER BY value',
        { project: projectId, a: valueOf(0), b: valueOf(1), c: valueOf(2) },
      );
    const [count] = await store.query('SELECT count(*) AS n FROM errors WHERE project_id = $project', { project: large });
    expect(count!['n']).toBe(600);
    expect(await read(large)).toEqual(await read(small));
  });

  it('stores text of every width exactly, in a batch larger than the staging memory it starts with', async () => {
    const projectId = randomUUID();
    // Two-, three- and four-byte UTF-8, a control character JSON escapes, and a 2 MB message.
    const messages = ['café', '支付失败', 'card 💳 declined', 'bell \u0007 tab \t', `long ${'x'.repeat(2_000_000)}`];
    const rows = [...messages, ...messages].map((message, index) => logRow(projectId, { message, trace_id: index < messages.length ? null : 'second' }));
    await store.insert(logsTable, rows);
    await store.insert(logsTable, [logRow(projectId, { message: 'after the large batch ✓', trace_id: 'third' })]);
    const stored = await store.query('SELECT message, trace_id FROM logs WHERE project_id = $project', { project: projectId });
    expect(stored.map((row) => [row['message'], row['trace_id']]).sort()).toEqual(
      [...rows, logRow(projectId, { message: 'after the large batch ✓', trace_id: 'third' })]
        .map((row) => [row.message, row.trace_id])
        .sort(),
    );
  });

  it('round-trips an issue row: uint64 counters come back as numbers', async () => {
    const projectId = randomUUID();
    const row = issueRow(projectId, randomUUID(), { short_id: 4_294_967_296, event_count: 123_456_789_012, resolved_in_release: 'web@2.0.0' });
    await store.insert(issuesTable, [row]);
    const [stored] = await store.query('SELECT * FROM issues WHERE project_id = $project', { project: projectId });
    expect(stored).toEqual({
      ...row,
      first_seen: '2026-03-04T05:06:07.089Z',
      last_seen: '2026-03-04T05:06:07.089Z',
      updated_at: '2026-03-04T05:06:07.089Z',
    });
    expect(typeof stored!['event_count']).toBe('number');
  });

  it('round-trips an alert rule row: float64, uint32, bool and a nullable timestamp', async () => {
    const projectId = randomUUID();
    const unmuted = alertRuleRow(projectId);
    const muted = alertRuleRow(projectId, { muted_until: T0 + 60_000, enabled: false, threshold: 0.25 });
    await store.insert(alertsTable, [unmuted, muted]);
    const rows = await store.query(
      'SELECT id, threshold, window_minutes, enabled, muted_until, deleted FROM alerts WHERE project_id = $project ORDER BY enabled',
      { project: projectId },
    );
    expect(rows).toEqual([
      { id: muted.id, threshold: 0.25, window_minutes: 5, enabled: false, muted_until: '2026-03-04T05:07:07.089Z', deleted: false },
      { id: unmuted.id, threshold: 10.5, window_minutes: 5, enabled: true, muted_until: null, deleted: false },
    ]);
  });

  it('round-trips an alert event row', async () => {
    const projectId = randomUUID();
    const row = alertEventRow(projectId);
    await store.insert(alertEventsTable, [row]);
    expect(await store.query('SELECT * FROM alert_events WHERE project_id = $project', { project: projectId })).toEqual([
      { ...row, triggered_at: '2026-03-04T05:06:07.089Z' },
    ]);
  });

  it('returns aggregates as numbers, not bigints', async () => {
    const projectId = randomUUID();
    await store.insert(logsTable, [logRow(projectId), logRow(projectId), logRow(projectId, { severity: 'info' })]);
    expect(
      await store.query('SELECT severity, count(*) AS value FROM logs WHERE project_id = $project GROUP BY severity ORDER BY severity', {
        project: projectId,
      }),
    ).toEqual([
      { severity: 'error', value: 2 },
      { severity: 'info', value: 1 },
    ]);
  });

  it('keeps every row of an append table, even with a repeated id', async () => {
    const projectId = randomUUID();
    const row = logRow(projectId);
    await store.insert(logsTable, [row]);
    await store.insert(logsTable, [row]);
    expect(await count('logs', projectId)).toBe(2);
  });

  it('resolves an empty insert without writing', async () => {
    await expect(store.insert(logsTable, [])).resolves.toBeUndefined();
  });
});

describe('replace-mode tables', () => {
  const issueStatus = async (projectId: string) =>
    store.query('SELECT id, status, event_count FROM issues WHERE project_id = $project ORDER BY id', { project: projectId });

  it('keeps only the newest snapshot of an issue across writes', async () => {
    const projectId = randomUUID();
    const id = randomUUID();
    await store.insert(issuesTable, [issueRow(projectId, id, { updated_at: T0 })]);
    await store.insert(issuesTable, [issueRow(projectId, id, { status: 'resolved', event_count: 3, updated_at: T0 + 1_000 })]);
    expect(await issueStatus(projectId)).toEqual([{ id, status: 'resolved', event_count: 3 }]);
  });

  it('keeps the newest snapshot when one write holds several versions of an issue', async () => {
    const projectId = randomUUID();
    const id = randomUUID();
    await store.insert(issuesTable, [
      issueRow(projectId, id, { status: 'unresolved', event_count: 1, updated_at: T0 }),
      issueRow(projectId, id, { status: 'regressed', event_count: 9, updated_at: T0 + 2_000 }),
      issueRow(projectId, id, { status: 'resolved', event_count: 5, updated_at: T0 + 1_000 }),
    ]);
    expect(await issueStatus(projectId)).toEqual([{ id, status: 'regressed', event_count: 9 }]);
  });

  it('does not let an older snapshot that arrives late replace a newer one', async () => {
    const projectId = randomUUID();
    const id = randomUUID();
    await store.insert(issuesTable, [issueRow(projectId, id, { status: 'resolved', event_count: 7, updated_at: T0 + 5_000 })]);
    await store.insert(issuesTable, [issueRow(projectId, id, { status: 'unresolved', event_count: 6, updated_at: T0 + 4_000 })]);
    expect(await issueStatus(projectId)).toEqual([{ id, status: 'resolved', event_count: 7 }]);
  });

  it('applies writes of equal versions in the order they were asked for, when the first is staged in several slices', async () => {
    const projectId = randomUUID();
    const id = randomUUID();
    // About 3 MB of text: staged a slice at a time, with turns of the event loop in between.
    const others = Array.from({ length: 1_500 }, () => issueRow(projectId, randomUUID(), { title: `TypeError: ${'x'.repeat(2_000)}`, updated_at: T0 }));
    const large = store.insert(issuesTable, [...others, issueRow(projectId, id, { status: 'unresolved', event_count: 1, updated_at: T0 })]);
    const small = store.insert(issuesTable, [issueRow(projectId, id, { status: 'resolved', event_count: 2, updated_at: T0 })]);
    await Promise.all([large, small]);
    const [row] = await store.query('SELECT status, event_count FROM issues WHERE project_id = $project AND id = $id', { project: projectId, id });
    expect(row).toEqual({ status: 'resolved', event_count: 2 });
    const [count] = await store.query('SELECT count(*) AS n FROM issues WHERE project_id = $project', { project: projectId });
    expect(count!['n']).toBe(1_501);
  });

  it('keys snapshots by (project_id, id), so one id in two projects is two rows', async () => {
    const first = randomUUID();
    const second = randomUUID();
    const id = randomUUID();
    await store.insert(issuesTable, [issueRow(first, id, { status: 'ignored' }), issueRow(second, id, { status: 'resolved' })]);
    expect(await issueStatus(first)).toEqual([{ id, status: 'ignored', event_count: 1 }]);
    expect(await issueStatus(second)).toEqual([{ id, status: 'resolved', event_count: 1 }]);
  });

  it('tells the version of the newest issue snapshot, none in an empty table', async () => {
    const fresh = await DuckDBStore.open(':memory:');
    try {
      await fresh.migrate(ANALYTICS_TABLES);
      expect(await newestIssueSnapshot(fresh)).toBeUndefined();
      const projectId = randomUUID();
      await fresh.insert(issuesTable, [issueRow(projectId, randomUUID(), { updated_at: T0 + 7 }), issueRow(projectId, randomUUID(), { updated_at: T0 + 3 })]);
      expect(await newestIssueSnapshot(fresh)).toBe(T0 + 7);
    } finally {
      await fresh.close();
    }
  });

  it('replaces alert rule snapshots, tombstones included', async () => {
    const projectId = randomUUID();
    const rule = alertRuleRow(projectId);
    await store.insert(alertsTable, [rule]);
    await store.insert(alertsTable, [{ ...rule, deleted: true, updated_at: T0 + 1 }]);
    expect(await store.query('SELECT id, deleted FROM alerts WHERE project_id = $project', { project: projectId })).toEqual([
      { id: rule.id, deleted: true },
    ]);
  });
});

describe('deleteProjectRows', () => {
  it("removes one project's rows from every table and leaves other projects alone", async () => {
    const removed = randomUUID();
    const kept = randomUUID();
    for (const projectId of [removed, kept]) {
      await store.insert(logsTable, [logRow(projectId)]);
      await store.insert(eventsTable, [eventRow(projectId)]);
      await store.insert(errorsTable, [errorRow(projectId)]);
      await store.insert(stacksTable, [{ project_id: projectId, id: 'stack-1', frames: [{ function: 'f' }], updated_at: T0, retention_days: 30 }]);
      await store.insert(issuesTable, [issueRow(projectId, randomUUID())]);
      await store.insert(alertsTable, [alertRuleRow(projectId)]);
      await store.insert(alertEventsTable, [alertEventRow(projectId)]);
      await store.insert(spansTable, [spanRow(projectId)]);
      await store.insert(vitalsTable, [vitalRow(projectId)]);
      await store.insert(replaySessionsTable, [
        { project_id: projectId, id: 'session-1', distinct_id: 'u', started_at: T0, url: null, user_agent: null, properties: {}, updated_at: T0, retention_days: 30 },
      ]);
      await store.insert(replayChunksTable, [
        { project_id: projectId, id: 'session-1:0', session_id: 'session-1', seq: 0, start_ts: T0, end_ts: T0 + 1, event_count: 1, size_bytes: 10, blob_key: 'k', updated_at: T0, retention_days: 30 },
      ]);
      await store.insert(profileChunksTable, [
        { project_id: projectId, id: 'chunk-1', profiler_id: 'p', profile_type: 'cpu', platform: null, release: null, environment: null, sample_count: 1, started_at: T0, ended_at: T0 + 1, size_bytes: 10, blob_key: 'k', updated_at: T0, retention_days: 30 },
      ]);
      await store.insert(sessionsTable, [
        { project_id: projectId, id: 'sid-1', session_id: 'sid-1', distinct_id: 'u', status: 'exited', outcome: 'healthy', errors: 0, quantity: 1, started: T0, timestamp: T0 + 1, duration_ms: 1, release: 'r@1', environment: null, properties: {}, updated_at: T0 + 1, received_at: T0 + 1, retention_days: 30 },
      ]);
      await store.insert(attachmentsTable, [
        { project_id: projectId, id: randomUUID(), event_id: randomUUID(), filename: 'a.log', content_type: 'text/plain', attachment_type: 'event.attachment', size_bytes: 1, blob_key: 'k', updated_at: T0, retention_days: 30 },
      ]);
    }
    await deleteProjectRows(store, removed);
    for (const table of ANALYTICS_TABLES) {
      expect([table.name, await count(table.name, removed)]).toEqual([table.name, 0]);
      expect([table.name, await count(table.name, kept)]).toEqual([table.name, 1]);
    }
  });
});

describe('concurrency', () => {
  it('answers concurrent queries, more than the reader pool holds, while inserts are running', async () => {
    const small = await DuckDBStore.open(':memory:', { maxReaders: 2 });
    try {
      await small.migrate(ANALYTICS_TABLES);
      const projectId = randomUUID();
      const batches = Array.from({ length: 10 }, (_, batch) =>
        Array.from({ length: 500 }, (_, index) => logRow(projectId, { message: `batch ${batch} row ${index}` })),
      );
      const inserts = batches.map((rows) => small.insert(logsTable, rows));
      const reads = Array.from({ length: 12 }, () =>
        small.query('SELECT count(*) AS n FROM logs WHERE project_id = $project', { project: projectId }),
      );
      const counts = (await Promise.all(reads)).map((rows) => rows[0]!['n'] as number);
      await Promise.all(inserts);
      for (const seen of counts) {
        expect(seen % 500).toBe(0);
        expect(seen).toBeLessThanOrEqual(5_000);
      }
      expect(await small.query('SELECT count(*) AS n FROM logs WHERE project_id = $project', { project: projectId })).toEqual([
        { n: 5_000 },
      ]);
    } finally {
      await small.close();
    }
  });

  it('runs a statement after the inserts begun before it and before those begun after it, whatever their tables', async () => {
    const projectId = randomUUID();
    const before = [store.insert(logsTable, [logRow(projectId)]), store.insert(errorsTable, rows600(projectId))];
    const purge = [
      store.execute('DELETE FROM logs WHERE project_id = $project', { project: projectId }),
      store.execute('DELETE FROM errors WHERE project_id = $project', { project: projectId }),
    ];
    const after = [store.insert(logsTable, [logRow(projectId, { message: 'after the purge' })]), store.insert(errorsTable, [errorRow(projectId)])];
    await Promise.all([...before, ...purge, ...after]);
    expect(await store.query('SELECT message FROM logs WHERE project_id = $project', { project: projectId })).toEqual([{ message: 'after the purge' }]);
    expect(await count('errors', projectId)).toBe(1);
  });

  it("starts a table's first insert after a statement begun before it", async () => {
    const fresh = await DuckDBStore.open(':memory:');
    try {
      await fresh.migrate(ANALYTICS_TABLES);
      const projectId = randomUUID();
      // A slow statement, then a purge, both queued before the logs table has a write lane.
      const slow = fresh.execute('CREATE TABLE slow AS SELECT count(*) AS n FROM range(200000000)');
      const purge = fresh.execute('DELETE FROM logs WHERE project_id = $project', { project: projectId });
      const insert = fresh.insert(logsTable, [logRow(projectId)]);
      await Promise.all([slow, purge, insert]);
      expect((await fresh.query('SELECT count(*) AS n FROM logs WHERE project_id = $project', { project: projectId }))[0]!['n']).toBe(1);
    } finally {
      await fresh.close();
    }
  });

  it('refuses writes once closing has begun, after finishing those begun before', async () => {
    const closing = await DuckDBStore.open(':memory:');
    await closing.migrate(ANALYTICS_TABLES);
    const before = closing.insert(logsTable, [logRow(randomUUID())]);
    const closed = closing.close();
    await expect(closing.insert(logsTable, [logRow(randomUUID())])).rejects.toThrow('the analytics store is closed');
    await expect(closing.execute('DELETE FROM logs')).rejects.toThrow('the analytics store is closed');
    await expect(before).resolves.toBeUndefined();
    await closed;
    await expect(closing.close()).resolves.toBeUndefined();
  });

  it("keeps a table's inserts going after one of them failed", async () => {
    const projectId = randomUUID();
    const negative = (row: IssueRow): IssueRow => ({ ...row, short_id: -1 });
    await expect(store.insert(issuesTable, [negative(issueRow(projectId, randomUUID()))])).rejects.toThrow();
    await expect(store.insert(issuesTable, Array.from({ length: 600 }, () => negative(issueRow(projectId, randomUUID()))))).rejects.toThrow();
    await store.insert(issuesTable, [issueRow(projectId, randomUUID())]);
    await store.insert(issuesTable, Array.from({ length: 600 }, () => issueRow(projectId, randomUUID())));
    expect(await count('issues', projectId)).toBe(601);
  });

  it('leaves no staging file behind, whether the insert succeeded or failed', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'tlm-duckdb-test-'));
    const onFile = await DuckDBStore.open(path.join(dir, 'analytics.duckdb'));
    try {
      await onFile.migrate(ANALYTICS_TABLES);
      const projectId = randomUUID();
      await onFile.insert(errorsTable, rows600(projectId));
      await expect(onFile.insert(errorsTable, rows600(projectId).map((row) => ({ ...row, retention_days: -1 })))).rejects.toThrow();
      expect(await readdir(path.join(dir, 'analytics.duckdb.staging'))).toEqual([]);
      expect((await onFile.query('SELECT count(*) AS n FROM errors WHERE project_id = $project', { project: projectId }))[0]!['n']).toBe(600);
    } finally {
      await onFile.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('keeps writes going after a failed statement', async () => {
    await expect(store.execute('DELETE FROM no_such_table')).rejects.toThrow('no_such_table');
    const projectId = randomUUID();
    await store.insert(logsTable, [logRow(projectId)]);
    expect(await count('logs', projectId)).toBe(1);
  });
});

describe('prepared read statements', () => {
  it('binds new values into a repeated query instead of returning the last answer', async () => {
    const first = randomUUID();
    const second = randomUUID();
    await store.insert(logsTable, [logRow(first), logRow(second), logRow(second)]);
    expect(await count('logs', first)).toBe(1);
    expect(await count('logs', second)).toBe(2);
    expect(await count('logs', first)).toBe(1);
  });

  it('binds a non-integer number as a double where the same query saw an integer before', async () => {
    const sql = 'SELECT $value * 2 AS doubled';
    expect(await store.query(sql, { value: 3 })).toEqual([{ doubled: 6 }]);
    expect(await store.query(sql, { value: 1.25 })).toEqual([{ doubled: 2.5 }]);
  });

  it('sees a column added after the statement was first prepared', async () => {
    const single = await DuckDBStore.open(':memory:', { maxReaders: 1 });
    try {
      await single.execute('CREATE TABLE grows (a INTEGER)');
      await single.execute('INSERT INTO grows VALUES (1)');
      expect(await single.query('SELECT * FROM grows')).toEqual([{ a: 1 }]);
      await single.execute('ALTER TABLE grows ADD COLUMN b VARCHAR');
      expect(await single.query('SELECT * FROM grows')).toEqual([{ a: 1, b: null }]);
    } finally {
      await single.close();
    }
  });

  it('answers correctly after more distinct queries than a connection keeps prepared', async () => {
    const single = await DuckDBStore.open(':memory:', { maxReaders: 1 });
    try {
      for (let index = 0; index < 100; index += 1) {
        expect(await single.query(`SELECT ${index} + $one AS n`, { one: 1 })).toEqual([{ n: index + 1 }]);
      }
      expect(await single.query('SELECT 0 + $one AS n', { one: 5 })).toEqual([{ n: 5 }]);
    } finally {
      await single.close();
    }
  });

  it('reports a query error and keeps the connection usable', async () => {
    await expect(store.query('SELECT * FROM no_such_table')).rejects.toThrow('no_such_table');
    expect(await store.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });
});

describe('open options', () => {
  it('sets the checkpoint threshold, 256MB (DuckDB counts 1000^2 bytes to a MB) unless told otherwise', async () => {
    const threshold = async (options: Parameters<typeof DuckDBStore.open>[1]) => {
      const opened = await DuckDBStore.open(':memory:', options);
      try {
        return (await opened.query("SELECT current_setting('checkpoint_threshold') AS value"))[0]!['value'];
      } finally {
        await opened.close();
      }
    };
    expect(await threshold({})).toBe('244.1 MiB');
    expect(await threshold({ checkpointThreshold: '64MB' })).toBe('61.0 MiB');
  });

  it('refuses a threshold DuckDB cannot read', async () => {
    await expect(DuckDBStore.open(':memory:', { checkpointThreshold: 'lots' })).rejects.toThrow(
      'DuckDB refused to open :memory: with {"checkpoint_threshold":"lots"}',
    );
  });
});
