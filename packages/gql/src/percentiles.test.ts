import { ANALYTICS_TABLES, DuckDBStore, logsTable, spansTable, type LogRow, type SpanRow } from '@tlm/analytics-store';
import type { Properties } from '@tlm/signals';
import { seededRandom } from '@tlm/testkit';
import { decodeResults, emit, type Guard, type PercentileForm } from './emit';
import { compileQuery } from './plan';
import { percentilesFor, runQuery } from './run';

const PROJECT = '0190a0e0-0000-7000-8000-00000000000a';
const OTHER = '0190a0e0-0000-7000-8000-00000000000b';
const NOW = Date.parse('2024-05-10T12:00:00.000Z');
const MINUTE = 60_000;
const ROWS = 6_000;
const guard: Guard = { projectId: PROJECT, retentionDays: 30, now: new Date(NOW) };

const random = seededRandom(20261130);
let counter = 0;
const uuid = () => `0190a0e0-0000-7000-8000-${String((counter += 1)).padStart(12, '0')}`;

/**
 * Logs whose `duration_ms` holds whole milliseconds (few distinct values, some sent as text, some not numbers at all),
 * `ratio` holds values that are all distinct, and `/admin` has no `duration_ms` at all: a group without a value.
 */
function logs(): LogRow[] {
  const routes = ['/checkout', '/cart', '/search', '/admin', undefined];
  return Array.from({ length: ROWS }, (_, index) => {
    const route = routes[index % routes.length];
    const properties: Properties = { ratio: random() * 1_000 };
    if (route) properties['route'] = route;
    if (route !== '/admin' && index % 13 !== 0) {
      const duration = Math.floor(random() * 400);
      properties['duration_ms'] = index % 17 === 0 ? String(duration) : index % 19 === 0 ? 'slow' : duration;
    }
    return {
      project_id: index % 10 === 9 ? OTHER : PROJECT,
      timestamp: NOW - Math.floor(random() * 24 * 60) * MINUTE,
      id: uuid(),
      severity: index % 3 === 0 ? 'error' : 'info',
      message: `message ${index}`,
      properties,
      trace_id: null,
      span_id: null,
      received_at: NOW,
      retention_days: 30,
    };
  });
}

/** Spans whose `duration_ms` column holds tenths of a millisecond: a column read rather than a bag key. */
function spans(): SpanRow[] {
  return Array.from({ length: 2_000 }, (_, index) => ({
    project_id: PROJECT,
    timestamp: NOW - Math.floor(random() * 24 * 60) * MINUTE,
    id: uuid(),
    trace_id: `trace${index % 50}`,
    span_id: `span${index}`,
    parent_span_id: null,
    name: index % 2 === 0 ? 'GET /checkout' : 'SELECT orders',
    op: index % 2 === 0 ? 'http.server' : 'db',
    kind: null,
    status: 'ok',
    duration_ms: Math.floor(random() * 100) / 10,
    end_timestamp: NOW,
    service: index % 3 === 0 ? 'api' : 'web',
    release: null,
    environment: null,
    attributes: {},
    events: [],
    received_at: NOW,
    retention_days: 30,
  }));
}

/** Every shape a percentile query takes: no group, a group, two, a time bucket, a filter, top n, a sort, no rows. */
const SHAPES = [
  '{f}(duration_ms) | last 1d',
  '{f}(duration_ms) by route | last 1d',
  '{f}(duration_ms) by route, severity | last 1d',
  '{f}(duration_ms) by time(1h) | last 1d',
  '{f}(duration_ms) by route, time(6h) | top 3 | sort route asc | last 1d',
  'severity:error | {f}(duration_ms) by route | last 1d',
  '{f}(duration_ms) by route | sort value asc | limit 2 | last 1d',
  'route:/admin | {f}(duration_ms) | last 1d',
  'route:/nowhere | {f}(duration_ms) by route | last 1d',
  '{f}(ratio) by route | last 1d',
  'from:spans | {f}(duration_ms) by op | last 1d',
  'from:spans | {f}(duration_ms) by service, time(1h) | last 1d',
];
const FUNCTIONS = ['p50', 'p75', 'p90', 'p95', 'p99'];

let store: DuckDBStore;

beforeAll(async () => {
  store = await DuckDBStore.open(':memory:');
  await store.migrate(ANALYTICS_TABLES);
  await store.insert(logsTable, logs());
  await store.insert(spansTable, spans());
});
afterAll(() => store.close());

async function answer(text: string, percentiles: PercentileForm) {
  const { plan } = compileQuery(text);
  const compiled = emit(plan, 'duckdb', guard, store.promotedColumns(plan.source.table), { percentiles });
  return { sql: compiled.sql, answer: decodeResults(compiled, await store.query(compiled.sql, compiled.params)) };
}

describe('percentiles from counts on DuckDB', () => {
  it('answer every percentile bit for bit as quantile_cont does, over bag keys and columns, in every query shape', async () => {
    let valued = 0;
    for (const shape of SHAPES) {
      for (const func of FUNCTIONS) {
        const text = shape.replace('{f}', func);
        const fromValues = await answer(text, 'values');
        const fromCounts = await answer(text, 'counts');
        expect(fromValues.sql).toContain('quantile_cont(');
        expect(fromCounts.sql).not.toContain('quantile_cont(');
        expect({ text, answer: fromCounts.answer }).toEqual({ text, answer: fromValues.answer });
        valued += fromValues.answer.results.filter((row) => typeof row['value'] === 'number' && !Number.isInteger(row['value'])).length;
      }
    }
    // Most answers fall between two values, so the interpolation is what is compared.
    expect(valued).toBeGreaterThan(200);
  });

  it('keep a group whose values are all missing, with no value, as quantile_cont does', async () => {
    const { answer: byRoute } = await answer('p95(duration_ms) by route | sort route asc | last 1d', 'counts');
    expect(byRoute.results.find((row) => row['route'] === '/admin')).toEqual({ route: '/admin', value: null });
    expect(byRoute.total_groups).toBe(5);
    expect((await answer('route:/nowhere | p50(duration_ms) | last 1d', 'counts')).answer).toEqual({ results: [{ value: null }], total_groups: 1 });
  });

  it('come out the same once the keys are promoted to columns of their own', async () => {
    const reference = await answer('p90(duration_ms) by route | last 1d', 'values');
    await store.promote(logsTable, 'properties', 'duration_ms', true);
    await store.promote(logsTable, 'properties', 'route', false);
    for (const func of FUNCTIONS) {
      const text = `${func}(duration_ms) by route | last 1d`;
      const fromCounts = await answer(text, 'counts');
      expect(fromCounts.sql).toContain('"properties__p');
      expect(fromCounts.sql).not.toContain('json_extract');
      expect({ text, answer: fromCounts.answer }).toEqual({ text, answer: (await answer(text, 'values')).answer });
    }
    expect((await answer('p90(duration_ms) by route | last 1d', 'counts')).answer).toEqual(reference.answer);
  });

  it('are chosen for values that repeat, and quantile_cont for values that do not; runQuery answers alike either way', async () => {
    const formOf = (text: string) => percentilesFor(store, compileQuery(text).plan, guard);
    expect(await formOf('p95(duration_ms) by route | last 1d')).toBe('counts');
    expect(await formOf('from:spans | p50(duration_ms) by op | last 1d')).toBe('counts');
    expect(await formOf('p95(ratio) by route | last 1d')).toBe('values');
    // What the counts hold is each group's distinct values: a hundred values in each of 48 groups of 2,000 spans rarely repeat.
    expect(await formOf('from:spans | p50(duration_ms) by op, time(1h) | last 1d')).toBe('values');
    // No value in the range: nothing to hold either way.
    expect(await formOf('p95(duration_ms) | since:2030-01-01')).toBe('values');
    expect(await formOf('count by route | last 1d')).toBeUndefined();
    expect(await formOf('avg(duration_ms) | last 1d')).toBeUndefined();
    for (const text of ['p95(duration_ms) by route | last 1d', 'p95(ratio) by route | last 1d']) {
      expect((await runQuery(store, text, guard)).data).toMatchObject((await answer(text, 'values')).answer);
    }
  });
});
