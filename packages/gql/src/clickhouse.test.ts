import { randomBytes, randomUUID } from 'node:crypto';
import { ANALYTICS_TABLES, ClickHouseStore, DuckDBStore, eventsTable, logsTable, type AnalyticsStore, type LogRow } from '@tlm/analytics-store';
import { clickhouseConnection, liveSuite } from '@tlm/testkit';
import { decodeResults, emit } from './emit';
import { compileQuery } from './plan';
import { runPlan } from './run';

/** The same rows in both engines must give the same answers: one plan, two emitters. */
liveSuite('GQL on a live ClickHouse answers like DuckDB', 'CLICKHOUSE_URL', (target) => {
  const database = `tlm_gql_${randomBytes(6).toString('hex')}`;
  const projectA = randomUUID();
  const projectB = randomUUID();
  // Recent times: rows past their retention TTL may be dropped by the server at any merge.
  const now = Math.floor(Date.now() / 60_000) * 60_000;
  let clickhouse: ClickHouseStore;
  let duckdb: DuckDBStore;

  const log = (projectId: string, minutesAgo: number, fields: Partial<LogRow>): LogRow => ({
    project_id: projectId,
    timestamp: now - minutesAgo * 60_000,
    id: randomUUID(),
    severity: 'info',
    message: 'ok',
    properties: {},
    trace_id: null,
    span_id: null,
    received_at: now,
    retention_days: 30,
    ...fields,
  });

  beforeAll(async () => {
    clickhouse = await ClickHouseStore.connect(clickhouseConnection(target(), database));
    duckdb = await DuckDBStore.open(':memory:');
    const logs = [
      log(projectA, 5, { severity: 'error', message: 'Payment FAILED for order 42', properties: { route: '/checkout', 'user.plan': 'pro', amount: 12.5 }, trace_id: 't1' }),
      log(projectA, 15, { severity: 'error', message: 'payment failed: card declined', properties: { route: '/checkout', amount: 3 } }),
      log(projectA, 25, { severity: 'warn', message: 'slow query', properties: { route: '/search', amount: 40 } }),
      log(projectA, 65, { severity: 'fatal', message: 'out of memory', properties: {} }),
      // SDKs that stringify every property send numbers as text.
      log(projectA, 300, { severity: 'error', message: 'upstream 503', properties: { status: '503' }, trace_id: 't2' }),
      log(projectA, 2_000, { severity: 'info', message: 'yesterday', properties: { status: 200 } }),
      log(projectA, 20_000, { severity: 'info', message: 'two weeks ago', properties: {} }),
      log(projectB, 5, { severity: 'error', message: 'PROJECT-B payment failed', properties: { route: '/checkout', amount: 999 } }),
    ];
    const events = [projectA, projectA, projectB].map((projectId, index) => ({
      project_id: projectId,
      timestamp: now - (index + 1) * 60_000,
      id: randomUUID(),
      event_name: index === 1 ? 'pageview' : 'signup',
      distinct_id: `u${index}`,
      properties: { plan: 'pro' },
      received_at: now,
      retention_days: 30,
    }));
    for (const store of [clickhouse, duckdb] as AnalyticsStore[]) {
      await store.migrate(ANALYTICS_TABLES);
      await store.insert(logsTable, logs);
      await store.insert(eventsTable, events);
    }
  }, 120_000);

  afterAll(async () => {
    await clickhouse?.execute(`DROP DATABASE IF EXISTS ${database}`);
    await clickhouse?.close();
    await duckdb?.close();
  });

  async function answer(store: AnalyticsStore, text: string) {
    const { plan } = compileQuery(text);
    const compiled = emit(plan, store.dialect, { projectId: projectA, retentionDays: 30, now: new Date(now) }, store.promotedColumns?.(plan.source.table));
    return decodeResults(compiled, await store.query(compiled.sql, compiled.params));
  }

  const QUERIES = [
    'count',
    'severity:error | count by message | top 10',
    '"payment failed" | fields message, severity',
    'count by route',
    'count by time(1h) | last 3h',
    'p50(amount) by route | sort route asc',
    'count by route | top 2 | sort route desc',
    'sum(amount)',
    'level:[error, fatal] -route:/checkout',
    'user.plan:* OR amount >= 40 | fields message',
    '-user.plan:pro | fields message, user.plan, amount',
    'route:/chec* NOT "declined" | fields message',
    'trace_id:t1 | fields message, trace_id',
    'from:events | count_distinct(distinct_id)',
    'from:events plan:pro | count by event_name',
    // Buckets that do not divide a day, counted from the epoch in both (ClickHouse counts hours from each midnight).
    'count by time(5h) | last 2d',
    'count by time(7m) | last 6h',
    'count by time(2w) | last 30d',
    // Aggregates over no rows have no value in both (ClickHouse's own answer would be 0 or nan).
    'from:events event_name:nothing-at-all | max(amount)',
    'from:events event_name:nothing-at-all | avg(amount)',
    'from:events event_name:nothing-at-all | p95(amount)',
    // Numbers sent as text compare and add up as numbers.
    'status >= 500 | fields message, status',
    'sum(status)',
    // A missing text is no value below every other ('' in ClickHouse, NULL in DuckDB).
    'trace_id < t2 | fields message',
    '-trace_id < t2 | fields message',
  ];

  it.each(QUERIES)('%s', async (text) => {
    const [fromClickHouse, fromDuckDB] = await Promise.all([answer(clickhouse, text), answer(duckdb, text)]);
    expect(fromClickHouse).toEqual(fromDuckDB);
    expect(JSON.stringify(fromClickHouse)).not.toContain('PROJECT-B');
  });

  // Filtered searches read newest slice first (runPlan): a limit the newest slice fills, and one it does not.
  it.each(['severity:error last:1d limit:1', 'severity:error last:1d limit:50', '"payment failed" last:1d | fields message, severity'])('%s, read in time slices', async (text) => {
    const guard = { projectId: projectA, retentionDays: 30, now: new Date(now) };
    const read = (store: AnalyticsStore) => {
      const { query, plan } = compileQuery(text);
      return runPlan(store, query, plan, guard).then((answer) => answer.data);
    };
    const [fromClickHouse, fromDuckDB] = await Promise.all([read(clickhouse), read(duckdb)]);
    expect(fromClickHouse).toEqual(fromDuckDB);
    expect(fromDuckDB.results).toEqual((await answer(duckdb, text)).results);
  });

  it('answers every query the same once keys are promoted to MATERIALIZED columns, for rows stored before and after', async () => {
    const keys = [['route', false], ['amount', true], ['user.plan', false], ['status', true]] as const;
    for (const [key, numeric] of keys) {
      const promotion = await clickhouse.promote(logsTable, 'properties', key, numeric);
      expect(promotion).toMatchObject({ table: 'logs', bag: 'properties', key, ready: true });
      // A second promotion of the key changes nothing.
      expect(await clickhouse.promote(logsTable, 'properties', key, numeric)).toEqual(promotion);
    }
    await clickhouse.promote(eventsTable, 'properties', 'plan', false);
    expect(emit(compileQuery('count by route').plan, 'clickhouse', { projectId: projectA, retentionDays: 30, now: new Date(now) }, clickhouse.promotedColumns('logs')).sql).not.toContain('mapContains');
    const later = [
      log(projectA, 2, { severity: 'error', message: 'payment failed after promotion', properties: { route: '/checkout', amount: 7, status: '502' } }),
      log(projectB, 2, { severity: 'error', message: 'PROJECT-B later', properties: { route: '/checkout', amount: 1 } }),
    ];
    for (const store of [clickhouse, duckdb] as AnalyticsStore[]) await store.insert(logsTable, later);
    for (const text of QUERIES) {
      const [fromClickHouse, fromDuckDB] = await Promise.all([answer(clickhouse, text), answer(duckdb, text)]);
      expect({ text, answer: fromClickHouse }).toEqual({ text, answer: fromDuckDB });
    }
    // Another process's store reads the ready promotions from the database.
    const other = await ClickHouseStore.connect(clickhouseConnection(target(), database));
    try {
      expect([...other.promotedColumns('logs').keys()].sort()).toEqual(['properties\u0000amount', 'properties\u0000route', 'properties\u0000status', 'properties\u0000user.plan']);
      expect(other.promotedColumns('events').size).toBe(1);
    } finally {
      await other.close();
    }
  }, 120_000);
});
