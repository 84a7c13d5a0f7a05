import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ErrorRecord, EventRecord, LogRecord, Properties } from '@tlm/signals';
import { DuckDBStore } from './duckdb';
import type { RecordMapping, TableDefinition } from './store';
import {
  ANALYTICS_TABLES,
  errorRecordMapping,
  errorRow,
  errorsTable,
  eventRecordMapping,
  eventRow,
  eventsTable,
  issuesTable,
  logRecordMapping,
  logRow,
  logsTable,
  type ErrorGrouping,
  type StreamPosition,
} from './tables';

/**
 * A batch the bus journaled goes to DuckDB as the journal's own JSON of its records (AnalyticsStore.insertRecords):
 * the rows must be exactly those `insert` writes from the table's row function.
 */

const PROJECT = '0190a0e0-0000-7000-8000-00000000000a';
const T0 = Date.parse('2026-03-04T05:06:07.089Z');

const logRecords = (count: number): LogRecord[] =>
  Array.from({ length: count }, (_, index) => ({
    id: `0190a0e0-0000-7000-8000-${String(index).padStart(12, '0')}`,
    projectId: PROJECT,
    timestamp: T0 + index,
    receivedAt: T0 + 1_000 + index,
    severity: index % 3 === 0 ? 'error' : 'info',
    message: index % 4 === 0 ? `payment "failed" for order ${index}\nnext line ✓ é 🎉` : `GET /items/${index}`,
    properties: (index % 5 === 0 ? {} : { route: index % 2 === 0 ? '/checkout' : '/cart', duration_ms: index * 1.5, 'user.plan': 'pro', nested: { a: [1, 'b'] } }) as Properties,
    traceId: index % 2 === 0 ? '0af7651916cd43dd8448eb211c80319c' : null,
    spanId: null,
    retentionDays: 14,
  }));

const eventRecords = (count: number): EventRecord[] =>
  Array.from({ length: count }, (_, index) => ({
    id: `0190a0e0-0000-7000-9000-${String(index).padStart(12, '0')}`,
    projectId: PROJECT,
    timestamp: T0 + index,
    receivedAt: T0 + 2_000,
    event: index % 2 === 0 ? 'signup' : '$pageview',
    distinctId: index % 3 === 0 ? null : `user-${index}`,
    properties: { plan: 'pro', amount: index },
    retentionDays: 30,
  }));

const errorRecords = (count: number): ErrorRecord[] =>
  Array.from({ length: count }, (_, index) => ({
    id: `0190a0e0-0000-7000-a000-${String(index).padStart(12, '0')}`,
    projectId: PROJECT,
    timestamp: T0 + index,
    receivedAt: T0 + 3_000,
    type: index % 3 === 0 ? '' : 'TypeError',
    value: `cannot read "id" of undefined ✓ ${index}`,
    level: index % 2 === 0 ? 'error' : 'fatal',
    release: index % 4 === 0 ? null : 'shop@1.2.0',
    environment: 'production',
    platform: index % 5 === 0 ? null : 'javascript',
    source: index % 2 === 0 ? 'window.onerror' : null,
    traceId: index % 2 === 0 ? '0af7651916cd43dd8448eb211c80319c' : null,
    spanId: index % 2 === 0 ? 'b7ad6b7169203331' : null,
    user: (index % 3 === 0 ? {} : { id: `u${index}`, email: `u${index}@example.com` }) as Properties,
    tags: { route: '/checkout', browser: 'Chrome 120' },
    extra: (index % 2 === 0 ? { 'sdk.name': 'sentry.javascript.browser', chain: [{ type: 'Error', value: 'inner', relation: 'cause' }] } : {}) as Properties,
    frames:
      index % 3 === 0
        ? []
        : [
            { function: 'pay', filename: 'app.js', module: null, lineno: 10, colno: 5, in_app: true, abs_path: null, context_line: null },
            { function: null, filename: 'vendor.js', module: null, lineno: 1, colno: 900, in_app: false, abs_path: 'https://example.com/vendor.js', context_line: 'x()' },
          ],
    breadcrumbs: index % 2 === 0 ? [] : [{ category: 'ui.click', message: 'pay', timestamp: '2026-03-04T05:06:06.000Z' }, { message: 'no time', data: { a: 1 } }],
    fingerprint: null,
    retentionDays: 90,
  }));

/** Errors with a stack name it (`stack_id`), but for every fifth, which keeps its frames in the row. */
const groupingOf = (record: ErrorRecord, index: number): ErrorGrouping => ({
  issueId: `0190a0e0-0000-8000-8000-${String(index % 7).padStart(12, '0')}`,
  fingerprintHash: `fp${index % 7}`,
  partition: 0,
  offset: 40 + index,
  stackId: record.frames.length === 0 || index % 5 === 0 ? null : `stack-${index % 2}`,
});

const positions = (count: number, first: number): StreamPosition[] => Array.from({ length: count }, (_, index) => ({ partition: 0, offset: first + index }));

/** The records as the journal holds them: one JSON array per publish. */
const journaled = (records: readonly object[], cuts: readonly number[]): Buffer[] => {
  const arrays: Buffer[] = [];
  let from = 0;
  for (const to of [...cuts, records.length]) {
    arrays.push(Buffer.from(JSON.stringify(records.slice(from, to))));
    from = to;
  }
  return arrays;
};

let dir: string;
let byRows: DuckDBStore;
let byRecords: DuckDBStore;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'tlm-insert-records-'));
  byRows = await DuckDBStore.open(':memory:');
  byRecords = await DuckDBStore.open(path.join(dir, 'analytics.duckdb'));
  for (const store of [byRows, byRecords]) await store.migrate(ANALYTICS_TABLES);
});
afterEach(async () => {
  await byRows.close();
  await byRecords.close();
  await rm(dir, { recursive: true, force: true });
});

const everyRow = (store: DuckDBStore, table: string) => store.query(`SELECT * FROM ${table} ORDER BY stream_offset`);

async function writeBothWays<R extends object>(table: TableDefinition<object>, mapping: RecordMapping<R>, rowOf: (record: R, position: StreamPosition) => object, records: R[], first: number, cuts: number[]) {
  const at = positions(records.length, first);
  await byRows.insert(table, records.map((record, index) => rowOf(record, at[index]!)));
  await byRecords.insertRecords(table, mapping.fields, journaled(records, cuts), records.map((record, index) => mapping.computed(record, at[index])));
}

describe('DuckDBStore.insertRecords', () => {
  it('stores log rows from the journaled JSON of several publishes exactly as insert stores them from logRow', async () => {
    const records = logRecords(700);
    await writeBothWays(logsTable as unknown as TableDefinition<object>, logRecordMapping, logRow, records, 0, [1, 300, 301]);
    const stored = await everyRow(byRecords, 'logs');
    expect(stored).toHaveLength(700);
    expect(stored).toEqual(await everyRow(byRows, 'logs'));
    expect(stored[4]).toMatchObject({ message: records[4]!.message, stream_offset: 4, trace_id: '0af7651916cd43dd8448eb211c80319c', span_id: null });
    expect(await readdir(path.join(dir, 'analytics.duckdb.staging'))).toEqual([]);
  });

  it('keeps records and computed columns row for row in a batch of many read chunks, joined from many publishes', async () => {
    const records = logRecords(9_000);
    await writeBothWays(logsTable as unknown as TableDefinition<object>, logRecordMapping, logRow, records, 100, [3, 2_047, 2_049, 4_100, 6_001, 8_999]);
    const stored = await everyRow(byRecords, 'logs');
    expect(stored).toHaveLength(9_000);
    expect(stored).toEqual(await everyRow(byRows, 'logs'));
  });

  it('fails a batch whose computed rows are not beside their records, storing nothing', async () => {
    const records = logRecords(30);
    const at = positions(30, 0);
    const computed = records.map((record, index) => logRecordMapping.computed(record, at[index]));
    const attempt = (rows: object[], cuts: number[] = [10]) =>
      byRecords.insertRecords(logsTable as unknown as TableDefinition<object>, logRecordMapping.fields, journaled(rows, cuts), computed);
    // Fewer records than computed rows, more, and two swapped.
    await expect(attempt(records.slice(0, 29))).rejects.toThrow('a computed row is not beside its record');
    await expect(attempt([...records, ...logRecords(31).slice(30)])).rejects.toThrow('a computed row is not beside its record');
    const swapped = [...records];
    [swapped[3], swapped[4]] = [swapped[4]!, swapped[3]!];
    await expect(attempt(swapped)).rejects.toThrow('a computed row is not beside its record');
    expect(await byRecords.query('SELECT count(*) AS n FROM logs')).toEqual([{ n: 0 }]);
    // An empty array among the publishes adds nothing.
    await attempt([...records.slice(0, 10), ...records.slice(10)], [10, 10]);
    expect(await byRecords.query('SELECT count(*) AS n FROM logs')).toEqual([{ n: 30 }]);
  });

  it('stores event rows as insert stores them from eventRow', async () => {
    await writeBothWays(eventsTable as unknown as TableDefinition<object>, eventRecordMapping, eventRow, eventRecords(50), 10, []);
    const stored = await everyRow(byRecords, 'events');
    expect(stored).toHaveLength(50);
    expect(stored).toEqual(await everyRow(byRows, 'events'));
  });

  it('stores error rows from the journaled JSON of their records as insert stores them from errorRow', async () => {
    const records = errorRecords(60);
    await byRows.insert(errorsTable, records.map((record, index) => errorRow(record, groupingOf(record, index))));
    const computed = records.map((record, index) => errorRecordMapping.computed(record, groupingOf(record, index)));
    await byRecords.insertRecords(errorsTable as unknown as TableDefinition<object>, errorRecordMapping.fields, journaled(records, [1, 30]), computed);
    const stored = await everyRow(byRecords, 'errors');
    expect(stored).toHaveLength(60);
    expect(stored).toEqual(await everyRow(byRows, 'errors'));
    // Every column's value is there: the bags, a row's own frames, a named stack, absent breadcrumb fields left out.
    expect(stored[1]).toMatchObject({ type: 'TypeError', release: 'shop@1.2.0', stack_id: 'stack-1', frames: null, span_id: null, source: null });
    expect(JSON.parse(stored[1]!['breadcrumbs'] as string)).toEqual(records[1]!.breadcrumbs);
    expect(JSON.parse(stored[5]!['frames'] as string)).toEqual([
      { function: 'pay', filename: 'app.js', lineno: 10, colno: 5, in_app: true },
      { filename: 'vendor.js', lineno: 1, colno: 900, in_app: false, abs_path: 'https://example.com/vendor.js', context_line: 'x()' },
    ]);
    expect(JSON.parse(stored[2]!['extra'] as string)).toEqual(records[2]!.extra);
  });

  it('writes the promoted columns from the records, as the INSERT from rows does', async () => {
    for (const store of [byRows, byRecords]) {
      await store.promote(logsTable, 'properties', 'route', false);
      await store.promote(logsTable, 'properties', 'duration_ms', true);
    }
    await writeBothWays(logsTable as unknown as TableDefinition<object>, logRecordMapping, logRow, logRecords(40), 0, [20]);
    const promoted = 'SELECT "properties__p1" AS route, "properties__p2_number" AS duration FROM logs ORDER BY stream_offset';
    const stored = await byRecords.query(promoted);
    expect(stored).toEqual(await byRows.query(promoted));
    expect(stored.filter((row) => row['route'] === '/checkout')).toHaveLength(16);
  });

  it('refuses a replace table, storing nothing', async () => {
    await expect(byRecords.insertRecords(issuesTable as unknown as TableDefinition<object>, { project_id: 'projectId' }, [Buffer.from('[{}]')], [{}])).rejects.toThrow(
      'only append tables are written from records, not issues',
    );
    expect(await byRecords.query('SELECT count(*) AS n FROM issues')).toEqual([{ n: 0 }]);
  });

  it('fails a batch whose records the table refuses, storing none of it and leaving no staging file', async () => {
    const records = logRecords(10);
    const broken = records.map((record, index) => (index === 7 ? { ...record, projectId: null } : record));
    await expect(byRecords.insertRecords(logsTable as unknown as TableDefinition<object>, logRecordMapping.fields, journaled(broken, [5]), records.map((record, index) => logRecordMapping.computed(record, positions(10, 0)[index])))).rejects.toThrow(
      /project_id/,
    );
    expect(await byRecords.query('SELECT count(*) AS n FROM logs')).toEqual([{ n: 0 }]);
    expect(await readdir(path.join(dir, 'analytics.duckdb.staging'))).toEqual([]);
  });
});

describe('record mappings', () => {
  it('make the rows logRow, eventRow and errorRow make, with and without a stream position', () => {
    const mapped = <R extends object, Known>(mapping: RecordMapping<R, Known>, record: R, known: Known) => ({
      ...Object.fromEntries(Object.entries(mapping.fields).map(([column, field]) => [column, (record as Record<string, unknown>)[field]])),
      ...mapping.computed(record, known),
    });
    for (const record of logRecords(6)) {
      expect(mapped(logRecordMapping, record, { partition: 0, offset: 3 })).toStrictEqual(logRow(record, { partition: 0, offset: 3 }));
      expect(mapped(logRecordMapping, record, undefined)).toStrictEqual(logRow(record));
    }
    for (const record of eventRecords(3)) {
      expect(mapped(eventRecordMapping, record, { partition: 2, offset: 9 })).toStrictEqual(eventRow(record, { partition: 2, offset: 9 }));
    }
    errorRecords(10).forEach((record, index) => {
      expect(mapped(errorRecordMapping, record, groupingOf(record, index))).toStrictEqual(errorRow(record, groupingOf(record, index)));
    });
  });
});
