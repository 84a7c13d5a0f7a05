import { ANALYTICS_TABLES, DuckDBStore, logsTable, type AnalyticsStore, type LogRow } from '@tlm/analytics-store';
import { decodeResults, emit, type Guard } from './emit';
import { compileQuery } from './plan';
import { NEWEST_SLICE, runPlan } from './run';

const PROJECT = '0190a0e0-0000-7000-8000-00000000000b';
const NOW = Date.parse('2024-05-10T12:00:00.000Z');
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const guard: Guard = { projectId: PROJECT, retentionDays: 90, now: new Date(NOW) };
/** Where the newest slice of `last:32d` starts: its newest 32nd is the last day. */
const SPLIT = NOW - 32 * DAY * NEWEST_SLICE;

let sequence = 0;
const row = (timestamp: number, severity: string, message: string): LogRow => ({
  project_id: PROJECT,
  timestamp,
  id: `0190a0e0-0000-7000-8000-${String((sequence += 1)).padStart(12, '0')}`,
  severity,
  message,
  properties: { n: sequence },
  trace_id: null,
  span_id: null,
  received_at: NOW,
  retention_days: 90,
});

/** The rows: errors in the last day (one stamped at the slice's first instant, one an hour ahead), warnings only older. */
const ROWS: LogRow[] = [
  row(NOW + HOUR, 'error', 'stamped ahead by its client'),
  ...Array.from({ length: 4 }, (_, index) => row(NOW - (index + 1) * HOUR, 'error', `recent error ${index}`)),
  row(SPLIT, 'error', 'at the first instant of the newest slice'),
  row(SPLIT - 1, 'error', 'just before the newest slice'),
  ...Array.from({ length: 6 }, (_, index) => row(NOW - (3 + index) * DAY, 'error', `older error ${index}`)),
  ...Array.from({ length: 5 }, (_, index) => row(NOW - (2 + index * 5) * DAY, 'warn', `older warning ${index}`)),
  row(NOW - 40 * DAY, 'error', 'before the range'),
];

describe('a filtered search read newest slice first', () => {
  let store: DuckDBStore;
  let statements: string[];
  /** The real store, each statement it runs recorded. */
  let recorded: AnalyticsStore;

  beforeAll(async () => {
    store = await DuckDBStore.open(':memory:');
    await store.migrate(ANALYTICS_TABLES);
    await store.insert(logsTable, ROWS);
    recorded = new Proxy(store, {
      get(target, name, receiver) {
        if (name !== 'query') return Reflect.get(target, name, receiver);
        return (sql: string, params?: Parameters<AnalyticsStore['query']>[1]) => {
          statements.push(sql);
          return target.query(sql, params);
        };
      },
    });
  });
  beforeEach(() => {
    statements = [];
  });
  afterAll(() => store.close());

  /** The query's answer as one statement over the whole range. */
  async function inOneGo(text: string) {
    const compiled = emit(compileQuery(text).plan, 'duckdb', guard);
    return decodeResults(compiled, await store.query(compiled.sql, compiled.params)).results;
  }

  async function sliced(text: string) {
    const { query, plan } = compileQuery(text);
    return (await runPlan(recorded, query, plan, guard)).data;
  }

  const messages = (rows: Record<string, unknown>[]) => rows.map((result) => result['message']);

  it('answers from the newest slice alone when it holds the limit', async () => {
    const text = 'from:logs severity:error last:32d limit:4';
    const data = await sliced(text);
    expect(messages(data.results)).toEqual(['stamped ahead by its client', 'recent error 0', 'recent error 1', 'recent error 2']);
    expect(data.results).toEqual(await inOneGo(text));
    expect(data.total_groups).toBe(4);
    expect(statements).toHaveLength(1);
    expect(statements[0]).toContain('timestamp >= $slice_from');
  });

  it('reads the older rows for the rest of the limit, and the rows at the split come once, in order', async () => {
    const text = 'from:logs severity:error last:32d limit:9';
    const data = await sliced(text);
    expect(messages(data.results).slice(4)).toEqual(['recent error 3', 'at the first instant of the newest slice', 'just before the newest slice', 'older error 0', 'older error 1']);
    expect(data.results).toEqual(await inOneGo(text));
    expect(data.total_groups).toBe(9);
    expect(statements).toHaveLength(2);
    expect(statements[1]).toContain('timestamp < $slice_before');
    expect(statements[1]).not.toContain('$slice_from');
  });

  it('answers every limit and filter as the one statement does, and nothing from before the range', async () => {
    for (const text of [
      'from:logs severity:error last:32d limit:100',
      'from:logs severity:warn last:32d limit:3',
      'from:logs severity:warn last:32d',
      'from:logs severity:fatal last:32d',
      'from:logs "older" last:32d limit:7',
      'from:logs severity:error | sort timestamp desc, message asc | limit 6 | last:32d',
      `from:logs severity:error since:${new Date(NOW - 20 * DAY).toISOString()} until:${new Date(NOW - 2 * HOUR).toISOString()} limit:4`,
    ]) {
      expect([text, await sliced(text).then((data) => data.results)]).toEqual([text, await inOneGo(text)]);
    }
    expect(messages((await sliced('from:logs severity:error last:32d limit:100')).results)).not.toContain('before the range');
  });

  it('reads in one statement a search without filters, one sorted by something else, an aggregate, and issues', async () => {
    for (const text of [
      'from:logs last:32d limit:3',
      'from:logs severity:error | sort message asc | last:32d',
      'from:logs severity:error | count | last:32d',
      // Issues are snapshots whose last_seen moves: a row could pass from one slice to the other between the reads.
      'from:issues status:unresolved last:32d',
    ]) {
      statements = [];
      const data = await sliced(text);
      expect([text, data.results]).toEqual([text, await inOneGo(text)]);
      expect([text, statements.length, statements[0]!.includes('slice_')]).toEqual([text, 1, false]);
    }
  });

  it('reads the live tail in one statement', async () => {
    const { query, plan } = compileQuery('from:logs severity:error last:32d limit:2');
    const tail = { ...guard, receivedAfter: new Date(NOW - 1) };
    const data = (await runPlan(recorded, query, plan, tail)).data;
    expect(data.results).toHaveLength(2);
    expect(statements).toHaveLength(1);
    expect(statements[0]).not.toContain('slice_');
  });
});
