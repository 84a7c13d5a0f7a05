import {
  ANALYTICS_TABLES,
  DuckDBStore,
  alertEventsTable,
  alertsTable,
  errorsTable,
  eventsTable,
  issuesTable,
  logsTable,
  stacksTable,
  type ErrorRow,
  type EventRow,
  type LogRow,
} from '@tlm/analytics-store';
import { decodeResults, emit } from './emit';
import { compileQuery } from './plan';

const PROJECT_A = '0190a0e0-0000-7000-8000-00000000000a';
const PROJECT_B = '0190a0e0-0000-7000-8000-00000000000b';
const NOW = Date.parse('2024-05-10T12:00:00.000Z');
const MINUTE = 60_000;
const DAY = 86_400_000;

let store: DuckDBStore;
let counter = 0;
const uuid = () => `0190a0e0-0000-7000-8000-${String((counter += 1)).padStart(12, '0')}`;

const log = (projectId: string, minutesAgo: number, fields: Partial<LogRow>): LogRow => ({
  project_id: projectId,
  timestamp: NOW - minutesAgo * MINUTE,
  id: uuid(),
  severity: 'info',
  message: 'ok',
  properties: {},
  trace_id: null,
  span_id: null,
  received_at: NOW,
  retention_days: 30,
  ...fields,
});

const event = (projectId: string, minutesAgo: number, fields: Partial<EventRow>): EventRow => ({
  project_id: projectId,
  timestamp: NOW - minutesAgo * MINUTE,
  id: uuid(),
  event_name: 'pageview',
  distinct_id: null,
  properties: {},
  received_at: NOW,
  retention_days: 30,
  ...fields,
});

const error = (projectId: string, fields: Partial<ErrorRow>): ErrorRow => ({
  project_id: projectId,
  timestamp: NOW - 10 * MINUTE,
  id: uuid(),
  issue_id: uuid(),
  fingerprint_hash: 'f1',
  type: 'TypeError',
  value: 'x is undefined',
  level: 'error',
  release: null,
  environment: 'production',
  platform: 'javascript',
  source: null,
  trace_id: null,
  span_id: null,
  user: {},
  tags: {},
  extra: {},
  frames: [],
  breadcrumbs: [],
  received_at: NOW,
  retention_days: 30,
  stream_partition: 0,
  stream_offset: 0,
  stack_id: null,
  ...fields,
});

beforeAll(async () => {
  store = await DuckDBStore.open(':memory:');
  await store.migrate(ANALYTICS_TABLES);
  await store.insert(logsTable, [
    log(PROJECT_A, 5, { severity: 'error', message: 'Payment FAILED for order 42', properties: { route: '/checkout', 'user.plan': 'pro', amount: 12.5 }, trace_id: 't1' }),
    log(PROJECT_A, 15, { severity: 'error', message: 'payment failed: card declined', properties: { route: '/checkout', 'user.plan': 'free', amount: 3 } }),
    log(PROJECT_A, 25, { severity: 'warn', message: 'slow query', properties: { route: '/search', amount: 40, "odd\"key/x": 'yes' } }),
    log(PROJECT_A, 65, { severity: 'info', message: 'user signed in', properties: { route: '/login', 'user.plan': 'pro' } }),
    log(PROJECT_A, 125, { severity: 'fatal', message: 'out of memory', properties: { route: '/api/export' } }),
    log(PROJECT_A, 185, { severity: 'info', message: 'health check', properties: {} }),
    // Past a 3-day retention, inside 30 days.
    log(PROJECT_A, 5 * 24 * 60, { severity: 'error', message: 'old payment failed', properties: { route: '/checkout' } }),
    // Project B: distinctive rows that must never answer a query of project A.
    log(PROJECT_B, 5, { severity: 'error', message: 'PROJECT-B secret payment failed', properties: { route: '/checkout', 'user.plan': 'pro', amount: 999 } }),
    log(PROJECT_B, 6, { severity: 'fatal', message: 'PROJECT-B other', properties: { route: '/b-only' } }),
  ]);
  await store.insert(eventsTable, [
    event(PROJECT_A, 1, { event_name: 'signup', distinct_id: 'u1', properties: { plan: 'pro', amount: 10 } }),
    event(PROJECT_A, 2, { event_name: 'signup', distinct_id: 'u2', properties: { plan: 'free', amount: 0 } }),
    event(PROJECT_A, 3, { event_name: 'pageview', distinct_id: 'u1', properties: { path: '/' } }),
    event(PROJECT_A, 4, { event_name: 'pageview', distinct_id: 'u3', properties: { path: '/pricing' } }),
    event(PROJECT_A, 5, { event_name: 'pageview', distinct_id: 'u1', properties: { path: '/' } }),
    event(PROJECT_B, 1, { event_name: 'signup', distinct_id: 'b1', properties: { plan: 'pro', amount: 500 } }),
  ]);
  await store.insert(errorsTable, [
    error(PROJECT_A, { level: 'fatal', release: '1.0.0', extra: { synthetic: 'logs' }, tags: { browser: 'Chrome' }, user: { id: 'u1' } }),
    error(PROJECT_A, { level: 'fatal', release: '1.1.0', tags: { browser: 'Firefox' } }),
    error(PROJECT_A, { level: 'warning', release: '1.1.0', type: 'RangeError', value: 'bad length' }),
    error(PROJECT_B, { level: 'fatal', release: 'b-release', extra: { synthetic: 'logs' } }),
    // Frames named by a stack; the same stack id in project B holds other frames.
    error(PROJECT_A, { type: 'StackError', value: 'named', frames: null, stack_id: 'stack-1', timestamp: NOW - 12 * MINUTE }),
    error(PROJECT_A, { type: 'StackError', value: 'inline', frames: [{ function: 'inline', in_app: true }], timestamp: NOW - 11 * MINUTE }),
    error(PROJECT_A, { type: 'StackError', value: 'none', frames: [], timestamp: NOW - 13 * MINUTE }),
    error(PROJECT_B, { type: 'StackError', value: 'b', frames: null, stack_id: 'stack-1' }),
  ]);
  await store.insert(stacksTable, [
    { project_id: PROJECT_A, id: 'stack-1', frames: [{ function: 'charge', filename: 'billing.ts', in_app: true }], updated_at: NOW, retention_days: 30 },
    { project_id: PROJECT_B, id: 'stack-1', frames: [{ function: 'PROJECT-B secret' }], updated_at: NOW, retention_days: 30 },
  ]);
  const issue = (projectId: string, status: string, release: string, lastSeenAgo: number, updatedAt = NOW) => ({
    project_id: projectId,
    id: uuid(),
    short_id: counter,
    title: `TypeError in ${status}`,
    culprit: 'app.js',
    fingerprint: 'f',
    status,
    level: 'error',
    event_count: 3,
    user_count: 1,
    first_seen: NOW - 10 * DAY,
    last_seen: NOW - lastSeenAgo,
    release_first: '1.0.0',
    release_last: release,
    resolved_in_release: null,
    updated_at: updatedAt,
  });
  await store.insert(issuesTable, [
    issue(PROJECT_A, 'unresolved', '1.1.0', DAY),
    issue(PROJECT_A, 'regressed', '1.2.0', 2 * DAY),
    issue(PROJECT_A, 'regressed', '1.2.0', 3 * DAY),
    issue(PROJECT_A, 'resolved', '1.0.0', 20 * DAY),
    issue(PROJECT_B, 'regressed', 'b-release', DAY),
  ]);
  const rule = (projectId: string, name: string, deleted: boolean) => ({
    project_id: projectId,
    id: uuid(),
    name,
    metric: 'from:logs severity:error | count',
    threshold: 5,
    comparator: 'gt',
    window_minutes: 5,
    severity: 'critical',
    enabled: true,
    muted_until: null,
    created_at: NOW - DAY,
    deleted,
    updated_at: NOW,
  });
  const live = rule(PROJECT_A, 'errors spike', false);
  await store.insert(alertsTable, [live, rule(PROJECT_A, 'deleted rule', true), rule(PROJECT_B, 'b rule', false)]);
  await store.insert(alertEventsTable, [
    { project_id: PROJECT_A, triggered_at: NOW - 60 * MINUTE, id: uuid(), rule_id: live.id, rule_name: 'errors spike', value: 7, threshold: 5, severity: 'critical' },
    { project_id: PROJECT_A, triggered_at: NOW - 30 * MINUTE, id: uuid(), rule_id: live.id, rule_name: 'errors spike', value: 9, threshold: 5, severity: 'critical' },
    { project_id: PROJECT_B, triggered_at: NOW - 30 * MINUTE, id: uuid(), rule_id: uuid(), rule_name: 'b rule', value: 1, threshold: 0, severity: 'info' },
  ]);
});
afterAll(() => store.close());

/** Runs GQL for a project as the query service does: compile, emit for DuckDB, execute, decode. */
async function run(text: string, projectId = PROJECT_A, retentionDays = 30) {
  const { plan } = compileQuery(text);
  const compiled = emit(plan, 'duckdb', { projectId, retentionDays, now: new Date(NOW) });
  return decodeResults(compiled, await store.query(compiled.sql, compiled.params));
}
const messages = async (text: string) => (await run(text)).results.map((row) => row['message']);

describe('GQL on DuckDB: answers on real rows', () => {
  it('counts, and counts by a column with total_groups before the limit', async () => {
    expect(await run('count')).toEqual({ results: [{ value: 7 }], total_groups: 1 });
    expect(await run('count | last 1h')).toEqual({ results: [{ value: 3 }], total_groups: 1 });
    expect(await run('count by severity | top 2')).toEqual({
      results: [
        { severity: 'error', value: 3 },
        { severity: 'info', value: 2 },
      ],
      total_groups: 4,
    });
  });

  it('keeps the n largest groups for top n, whatever order a sort then puts them in', async () => {
    const largest = { results: [{ severity: 'error', value: 3 }, { severity: 'info', value: 2 }], total_groups: 4 };
    expect(await run('count by severity | top 2 | sort severity asc')).toEqual(largest);
    expect(await run('count by severity | top 2 | sort severity desc')).toEqual({ ...largest, results: [...largest.results].reverse() });
    expect(await run('count by severity | sort value asc | top 2')).toEqual({ ...largest, results: [...largest.results].reverse() });
    // limit cuts in the order asked for.
    expect((await run('count by severity | sort value asc | limit 1')).results[0]!['value']).toBe(1);
  });

  it('counts by a property, with logs missing it as a null group', async () => {
    expect((await run('count by route | last 4h')).results).toEqual([
      { route: '/checkout', value: 2 },
      { route: '/api/export', value: 1 },
      { route: '/login', value: 1 },
      { route: '/search', value: 1 },
      { route: null, value: 1 },
    ]);
  });

  it('searches full text case-insensitively, newest first, without other projects', async () => {
    expect(await messages('"payment failed"')).toEqual(['Payment FAILED for order 42', 'payment failed: card declined', 'old payment failed']);
    expect(await messages('PAYMENT declined')).toEqual(['payment failed: card declined']);
    expect(await messages('-"payment" last:4h')).toEqual(['slow query', 'user signed in', 'out of memory', 'health check']);
  });

  it('clamps to the retention window whatever since: asks for', async () => {
    expect(await messages('"payment failed" since:2000-01-01')).toHaveLength(3);
    expect((await run('"payment failed" since:2000-01-01', PROJECT_A, 3)).results.map((row) => row['message'])).toEqual([
      'Payment FAILED for order 42',
      'payment failed: card declined',
    ]);
    expect((await run('count', PROJECT_A, 3)).results).toEqual([{ value: 6 }]);
  });

  it('applies until: and since: durations', async () => {
    expect(await messages('since:2h until:30m')).toEqual(['user signed in']);
    expect(await messages('since:2024-05-10T11:00:00Z until:2024-05-10T11:50:00Z')).toEqual(['payment failed: card declined', 'slow query']);
  });

  it('compares properties as numbers, text and prefixes; negations keep rows without the property', async () => {
    expect(await messages('amount > 10')).toEqual(['Payment FAILED for order 42', 'slow query']);
    expect(await messages('amount:[3, 40]')).toEqual(['payment failed: card declined', 'slow query']);
    expect(await messages('user.plan:pro')).toEqual(['Payment FAILED for order 42', 'user signed in']);
    expect(await messages('properties.user.plan:pro route:/check*')).toEqual(['Payment FAILED for order 42']);
    expect(await messages('-user.plan:pro last:4h')).toEqual(['payment failed: card declined', 'slow query', 'out of memory', 'health check']);
    expect(await messages('user.plan != pro last:4h')).toEqual(await messages('-user.plan:pro last:4h'));
    expect(await messages('NOT amount > 10 last:4h')).toEqual(['payment failed: card declined', 'user signed in', 'out of memory', 'health check']);
    expect(await messages('user.plan:* last:4h')).toEqual(['Payment FAILED for order 42', 'payment failed: card declined', 'user signed in']);
    expect(await messages('-route:* last:4h')).toEqual(['health check']);
    expect(await messages(`"odd\\"key/x":yes`)).toEqual(['slow query']);
    expect(await messages('amount > 1e20')).toEqual([]);
  });

  it('combines OR, AND, NOT and parentheses', async () => {
    expect(await messages('(severity:fatal OR route:/search) OR (level:error AND amount < 5)')).toEqual([
      'payment failed: card declined',
      'slow query',
      'out of memory',
    ]);
    expect(await messages('severity:[error, fatal] -"old" NOT (route:/checkout amount > 10)')).toEqual(['payment failed: card declined', 'out of memory']);
    expect(await messages('trace_id:t1')).toEqual(['Payment FAILED for order 42']);
    expect(await messages('-trace_id:t1 last:1h')).toEqual(['payment failed: card declined', 'slow query']);
  });

  it('builds a time series with buckets as ISO times', async () => {
    expect(await run('severity:error | count by time(1h) | last 3h')).toEqual({
      results: [{ time: '2024-05-10T11:00:00.000Z', value: 2 }],
      total_groups: 1,
    });
    expect((await run('count by time(1h), severity | last 4h')).results).toEqual([
      { time: '2024-05-10T08:00:00.000Z', severity: 'info', value: 1 },
      { time: '2024-05-10T09:00:00.000Z', severity: 'fatal', value: 1 },
      { time: '2024-05-10T10:00:00.000Z', severity: 'info', value: 1 },
      { time: '2024-05-10T11:00:00.000Z', severity: 'error', value: 2 },
      { time: '2024-05-10T11:00:00.000Z', severity: 'warn', value: 1 },
    ]);
  });

  it('counts day buckets from the Unix epoch like ClickHouse', async () => {
    // 2024-05-09 is an even number of days after 1970-01-01.
    expect((await run('count by time(2d) | last 7d')).results).toEqual([
      { time: '2024-05-05T00:00:00.000Z', value: 1 },
      { time: '2024-05-09T00:00:00.000Z', value: 6 },
    ]);
    // Hours that do not divide a day count from the epoch too: 2024-05-10T00:00 is 476,472 hours after it, two past a
    // multiple of five, so the buckets start at 03:00, 08:00 and 13:00 (from DuckDB's default origin, 09:00).
    expect((await run('count by time(5h) | last 4h')).results).toEqual([{ time: '2024-05-10T08:00:00.000Z', value: 6 }]);
    // 7-minute buckets: 11:55 is 1,715,342,100 s after the epoch, 6 minutes past a multiple of 420 s.
    expect((await run('count by time(7m) | last 6m')).results).toEqual([{ time: '2024-05-10T11:49:00.000Z', value: 1 }]);
    // Weeks start on Monday: the old log of Sunday 2024-05-05 falls in the week of 2024-04-29.
    expect((await run('count by time(1w)')).results).toEqual([
      { time: '2024-04-29T00:00:00.000Z', value: 1 },
      { time: '2024-05-06T00:00:00.000Z', value: 6 },
    ]);
    // Two-week buckets from the first Monday after the epoch, 1970-01-05: 2024-04-29 is 2,834 weeks after it.
    expect((await run('count by time(2w)')).results).toEqual([{ time: '2024-04-29T00:00:00.000Z', value: 7 }]);
  });

  it('computes numeric aggregates over properties', async () => {
    expect((await run('sum(amount)')).results).toEqual([{ value: 55.5 }]);
    expect((await run('max(amount) by route | sort value desc')).results[0]).toEqual({ route: '/search', value: 40 });
    expect((await run('p50(amount)')).results).toEqual([{ value: 12.5 }]);
    expect((await run('avg(amount) by severity | sort severity asc')).results).toEqual([
      { severity: 'error', value: 7.75 },
      { severity: 'fatal', value: null },
      { severity: 'info', value: null },
      { severity: 'warn', value: 40 },
    ]);
  });

  it('projects fields with bag values in their JSON types, and whole bags as objects', async () => {
    expect((await run('fields message, amount, user.plan, properties | sort amount desc | limit 2')).results).toEqual([
      { message: 'slow query', amount: 40, 'user.plan': null, properties: { route: '/search', amount: 40, 'odd"key/x': 'yes' } },
      { message: 'Payment FAILED for order 42', amount: 12.5, 'user.plan': 'pro', properties: { route: '/checkout', 'user.plan': 'pro', amount: 12.5 } },
    ]);
    const [row] = (await run('limit 1')).results;
    expect(row).toEqual({
      timestamp: '2024-05-10T11:55:00.000Z',
      id: expect.any(String),
      severity: 'error',
      message: 'Payment FAILED for order 42',
      properties: { route: '/checkout', 'user.plan': 'pro', amount: 12.5 },
      trace_id: 't1',
      span_id: null,
    });
  });

  it('answers events queries: count by name, distinct users, sums by a property', async () => {
    expect((await run('from:events | count by event_name | top 10 | last:30d')).results).toEqual([
      { event_name: 'pageview', value: 3 },
      { event_name: 'signup', value: 2 },
    ]);
    expect((await run('from:events | count_distinct(distinct_id) | last:1d')).results).toEqual([{ value: 3 }]);
    expect((await run('from:events event:signup | sum(amount) by plan')).results).toEqual([
      { plan: 'pro', value: 10 },
      { plan: 'free', value: 0 },
    ]);
    expect((await run('from:events signup')).results.map((row) => row['distinct_id'])).toEqual(['u1', 'u2']);
  });

  it('answers errors, issues, alerts and alert_events queries', async () => {
    expect((await run('from:errors level:fatal | count by release | last:7d')).results).toEqual([
      { release: '1.0.0', value: 1 },
      { release: '1.1.0', value: 1 },
    ]);
    expect((await run('from:errors extra.synthetic:logs')).results.map((row) => row['release'])).toEqual(['1.0.0']);
    expect((await run('from:errors browser:Firefox OR user.id:u1 | count')).results).toEqual([{ value: 2 }]);
    expect((await run('from:errors rangeerror | fields type, message, tags')).results).toEqual([{ type: 'RangeError', message: 'bad length', tags: {} }]);
    expect((await run('from:issues status:regressed | count by release_last | last:30d')).results).toEqual([{ release_last: '1.2.0', value: 2 }]);
    expect((await run('from:issues status:unresolved | last:7d')).results.map((row) => row['title'])).toEqual(['TypeError in unresolved']);
    expect((await run('from:issues | count', PROJECT_A, 14)).results).toEqual([{ value: 3 }]);
    expect((await run('from:alerts')).results.map((row) => row['name'])).toEqual(['errors spike']);
    expect((await run('from:alert_events | last 7d | sort triggered_at desc | limit 20')).results.map((row) => row['value'])).toEqual([9, 7]);
    expect((await run('from:alert_events | avg(value) by rule_name')).results).toEqual([{ rule_name: 'errors spike', value: 8 }]);
  });

  it("reads an error's frames from its row, or from the project's stack the row names", async () => {
    expect((await run('from:errors type:StackError | fields value, frames | sort timestamp desc')).results).toEqual([
      { value: 'inline', frames: [{ function: 'inline', in_app: true }] },
      { value: 'named', frames: [{ function: 'charge', filename: 'billing.ts', in_app: true }] },
      { value: 'none', frames: [] },
    ]);
    expect((await run('from:errors type:StackError | fields value, frames', PROJECT_B)).results).toEqual([{ value: 'b', frames: [{ function: 'PROJECT-B secret' }] }]);
  });

  it('matches UUIDs written in upper case, as ClickHouse does (RFC 4122: UUIDs are case-insensitive on input)', async () => {
    const [newest] = (await run('fields id | limit 1')).results;
    const id = String(newest!['id']);
    const upper = id.toUpperCase();
    expect(upper).not.toBe(id);
    expect((await run(`id:${upper} | count`)).results).toEqual([{ value: 1 }]);
    expect((await run(`id:[${upper}, ${id}] | count`)).results).toEqual([{ value: 1 }]);
    expect((await run(`-id:${upper} | count`)).results).toEqual([{ value: 6 }]);
    expect((await run(`id:${upper.slice(0, 20)}* | count`)).results).toEqual((await run(`id:${id.slice(0, 20)}* | count`)).results);
    const [firing] = (await run('from:alert_events | fields rule_id | limit 1')).results;
    expect((await run(`from:alert_events rule_id:${String(firing!['rule_id']).toUpperCase()} | count`)).results).toEqual([{ value: 2 }]);
  });

  it("never answers with another project's rows", async () => {
    const queries = [
      'count',
      '"PROJECT-B"',
      'route:/b-only',
      'amount > 100',
      'count by route',
      'fields message, amount',
      'from:events | count by distinct_id',
      'from:events plan:pro',
      'from:errors | count by release',
      'from:issues | count by release_last',
      'from:alerts',
      'from:alert_events',
      'severity:fatal OR "1":1 OR -severity:fatal',
    ];
    for (const text of queries) {
      const answer = JSON.stringify(await run(text));
      expect(answer).not.toContain('PROJECT-B');
      expect(answer).not.toContain('b-only');
      expect(answer).not.toContain('999');
      expect(answer).not.toContain('b-release');
      expect(answer).not.toContain('b rule');
      expect(answer).not.toContain('b1');
    }
    expect((await run('count', PROJECT_B)).results).toEqual([{ value: 2 }]);
  });
});
