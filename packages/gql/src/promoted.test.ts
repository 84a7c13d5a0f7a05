import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ANALYTICS_TABLES, DuckDBStore, alertsTable, eventsTable, logsTable, type EventRow, type LogRow } from '@tlm/analytics-store';
import type { Properties } from '@tlm/signals';
import { decodeResults, emit } from './emit';
import { compileQuery } from './plan';

const PROJECT = '0190a0e0-0000-7000-8000-00000000000a';
const OTHER = '0190a0e0-0000-7000-8000-00000000000b';
const NOW = Date.parse('2024-05-10T12:00:00.000Z');
const MINUTE = 60_000;

let counter = 0;
const uuid = () => `0190a0e0-0000-7000-8000-${String((counter += 1)).padStart(12, '0')}`;

const log = (projectId: string, minutesAgo: number, properties: Properties, message = 'ok'): LogRow => ({
  project_id: projectId,
  timestamp: NOW - minutesAgo * MINUTE,
  id: uuid(),
  severity: minutesAgo % 3 === 0 ? 'error' : 'info',
  message,
  properties,
  trace_id: null,
  span_id: null,
  received_at: NOW,
  retention_days: 30,
});

const event = (minutesAgo: number, properties: Properties): EventRow => ({
  project_id: PROJECT,
  timestamp: NOW - minutesAgo * MINUTE,
  id: uuid(),
  event_name: minutesAgo % 2 === 0 ? 'signup' : 'pageview',
  distinct_id: `u${minutesAgo % 4}`,
  properties,
  received_at: NOW,
  retention_days: 30,
});

const ODD_KEY = `it's "odd"/x~y`;

/** Every shape a property value takes: text, numbers, numbers sent as text, booleans, nested values, absent keys. */
function logsOf(offset: number): LogRow[] {
  const routes = ['/checkout', '/cart', '/search', 'Ünïcode ✓', ''];
  const rows: LogRow[] = [];
  for (let index = 0; index < 60; index++) {
    const minutesAgo = offset + index;
    const properties: Properties = {};
    if (index % 7 !== 0) properties['route'] = routes[index % routes.length]!;
    if (index % 5 !== 0) properties['duration_ms'] = index % 4 === 0 ? String(index * 10) : index * 10.5;
    if (index % 6 === 0) properties['duration_ms'] = 'slow';
    if (index % 3 === 0) properties['user.plan'] = index % 2 === 0 ? 'pro' : 'free';
    if (index % 4 === 0) properties['flag'] = index % 8 === 0;
    if (index % 9 === 0) properties['nested'] = { a: index } as unknown as string;
    if (index % 11 === 0) properties[ODD_KEY] = 'yes';
    rows.push(log(index % 10 === 9 ? OTHER : PROJECT, minutesAgo, properties, `message ${index}`));
  }
  return rows;
}

/** Queries over promoted keys in every position: group, filter, aggregate, existence, prefix, lists, negation, fields. */
const QUERIES = [
  'count by route | last 1d',
  'count by route, user.plan | last 1d',
  'route:/checkout | count | last 1d',
  '-route:/checkout | count | last 1d',
  'route:/c* | count by route | last 1d',
  'route in (/cart, /search) | count | last 1d',
  'route:* | count | last 1d',
  '-route:* | count | last 1d',
  'duration_ms > 100 | count | last 1d',
  'duration_ms <= 100 | count by route | last 1d',
  "duration_ms = '40' | count | last 1d",
  'p95(duration_ms) by route | last 1d',
  'sum(duration_ms) by user.plan | last 1d',
  'avg(duration_ms) | last 1d',
  'min(duration_ms) by route | last 1d',
  'max(duration_ms) by flag | last 1d',
  'count_distinct(route) | last 1d',
  'flag:true | count | last 1d',
  'count by flag | last 1d',
  'count by nested | last 1d',
  `"${ODD_KEY.replace(/"/g, '\\"')}":yes | count | last 1d`,
  'fields message, route, duration_ms, flag, nested | sort timestamp desc | limit 200 | last 1d',
  'route:/checkout fields message, duration_ms | sort duration_ms desc | limit 50 | last 1d',
  'count by route, time(1h) | last 1d',
  'from:events | sum(amount) by plan | last 1d',
  'from:events plan:pro | count_distinct(distinct_id) | last 1d',
];

function guard(projectId = PROJECT) {
  return { projectId, retentionDays: 30, now: new Date(NOW) };
}

async function answer(store: DuckDBStore, text: string, projectId = PROJECT) {
  const { plan } = compileQuery(text);
  const compiled = emit(plan, 'duckdb', guard(projectId), store.promotedColumns(plan.source.table));
  return { sql: compiled.sql, answer: decodeResults(compiled, await store.query(compiled.sql, compiled.params)) };
}

describe('promoted properties on DuckDB', () => {
  let dir: string;
  let plain: DuckDBStore;
  let promoted: DuckDBStore;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'tlm-promoted-'));
    plain = await DuckDBStore.open(':memory:');
    promoted = await DuckDBStore.open(path.join(dir, 'analytics.duckdb'));
    const events = Array.from({ length: 30 }, (_, index) =>
      event(index, index % 5 === 0 ? {} : { plan: index % 2 === 0 ? 'pro' : 'free', amount: index % 3 === 0 ? `${index}` : index * 1.25 }),
    );
    for (const store of [plain, promoted]) {
      await store.migrate(ANALYTICS_TABLES);
      await store.insert(logsTable, logsOf(0));
      await store.insert(eventsTable, events);
    }
  });
  afterAll(async () => {
    await plain.close();
    await promoted.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers every query the same once keys are promoted, for rows stored before and after, reading the columns', async () => {
    for (const [key, numeric] of [['route', false], ['duration_ms', true], ['user.plan', false], ['flag', false], ['nested', false], [ODD_KEY, false]] as const) {
      const promotion = await promoted.promote(logsTable, 'properties', key, numeric);
      expect(promotion).toMatchObject({ table: 'logs', bag: 'properties', key, ready: true });
    }
    await promoted.promote(eventsTable, 'properties', 'plan', false);
    await promoted.promote(eventsTable, 'properties', 'amount', true);
    // Rows written after the promotion get the columns from the INSERT itself.
    const later = logsOf(60);
    await Promise.all([plain.insert(logsTable, later), promoted.insert(logsTable, later)]);

    for (const text of QUERIES) {
      const reference = await answer(plain, text);
      const read = await answer(promoted, text);
      expect(reference.answer.results.length).toBeGreaterThan(0);
      expect({ text, answer: read.answer }).toEqual({ text, answer: reference.answer });
      // A search's outputs keep each value's JSON type, so a query of outputs alone reads the bag.
      if (!text.startsWith('fields')) expect({ text, sql: read.sql }).toEqual({ text, sql: expect.stringMatching(/"properties__p\d+(_number)?"/) });
      // Filters, groups and aggregates read no promoted key from the bag.
      if (!/\bfields\b/.test(text)) expect({ text, sql: read.sql }).toEqual({ text, sql: expect.not.stringContaining('json_extract') });
    }
    // Another project's rows stay out of reach through the columns too.
    const other = await answer(promoted, 'count by route | last 1d', OTHER);
    expect(other.answer).toEqual((await answer(plain, 'count by route | last 1d', OTHER)).answer);
    expect(other.answer.results.length).toBe(2);
  });

  it('keeps promotions in the database file, ready, across a reopen; a second promotion of a key changes nothing', async () => {
    const again = await promoted.promote(logsTable, 'properties', 'route', false);
    expect(again.column).toBe(promoted.promotedColumns('logs').get('properties\u0000route')!.text);
    const file = path.join(dir, 'reopened.duckdb');
    const store = await DuckDBStore.open(file);
    try {
      await store.migrate(ANALYTICS_TABLES);
      await store.insert(logsTable, logsOf(0));
      await store.promote(logsTable, 'properties', 'duration_ms', true);
    } finally {
      await store.close();
    }
    const reopened = await DuckDBStore.open(file);
    try {
      expect([...reopened.promotedColumns('logs').entries()]).toEqual([['properties\u0000duration_ms', { text: 'properties__p1', number: 'properties__p1_number' }]]);
      const later = logsOf(60);
      await reopened.insert(logsTable, later);
      const read = await answer(reopened, 'p95(duration_ms) by route | last 1d');
      expect(read.sql).toContain('"properties__p1_number"');
      const fresh = await DuckDBStore.open(':memory:');
      try {
        await fresh.migrate(ANALYTICS_TABLES);
        await fresh.insert(logsTable, [...logsOf(0), ...later]);
        expect(read.answer).toEqual((await answer(fresh, 'p95(duration_ms) by route | last 1d')).answer);
      } finally {
        await fresh.close();
      }
    } finally {
      await reopened.close();
    }
  });

  it('fills every row when inserts run while the column is filled', async () => {
    const store = await DuckDBStore.open(':memory:');
    try {
      await store.migrate(ANALYTICS_TABLES);
      for (let batch = 0; batch < 20; batch++) await store.insert(logsTable, logsOf(batch * 60));
      const writes = Array.from({ length: 20 }, (_, batch) => store.insert(logsTable, logsOf(2_000 + batch * 60)));
      const promotion = store.promote(logsTable, 'properties', 'route', false);
      await Promise.all([...writes, promotion]);
      const [missing] = await store.query(
        `SELECT count(*) AS n FROM logs WHERE properties__p1 IS DISTINCT FROM json_extract_string(properties, '/route')`,
      );
      expect(missing).toEqual({ n: 0 });
      const [filled] = await store.query('SELECT count(properties__p1) AS n FROM logs');
      expect(Number(filled!['n'])).toBeGreaterThan(1_000);
    } finally {
      await store.close();
    }
  });

  it('refuses keys of replace tables and bags a table does not have, adding no column', async () => {
    const store = await DuckDBStore.open(':memory:');
    try {
      await store.migrate(ANALYTICS_TABLES);
      await expect(store.promote(alertsTable, 'properties', 'x', false)).rejects.toThrow('only append tables');
      await expect(store.promote(logsTable, 'message', 'x', false)).rejects.toThrow('no property bag message');
      expect(await store.query("SELECT count(*) AS n FROM duckdb_columns() WHERE contains(column_name, '__p')")).toEqual([{ n: 0 }]);
      expect(await store.query('SELECT count(*) AS n FROM promoted_properties')).toEqual([{ n: 0 }]);
    } finally {
      await store.close();
    }
  });
});
