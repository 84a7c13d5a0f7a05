import { formatDuration } from '../src/components/formats';
import {
  buildWaterfall,
  formatRate,
  joinOperationStats,
  matchingTraceIds,
  matchingTracesQuery,
  MATCHING_TRACES,
  rootsOfTracesQuery,
  rootsQuery,
  serviceChartQuery,
  spanCountQuery,
  traceErrorsQuery,
  visibleRows,
  type SpanRow,
} from '../src/pages/traces/traces';

const T0 = Date.parse('2024-05-10T12:00:00.000Z');
const span = (span_id: string, parent: string | null, startMs: number, duration_ms: number, extra: Partial<SpanRow> = {}): SpanRow => ({
  trace_id: '4bf92f3577b34da6a3ce929d0e0e4736',
  span_id,
  parent_span_id: parent,
  name: span_id,
  op: null,
  kind: null,
  status: 'ok',
  duration_ms,
  timestamp: new Date(T0 + startMs).toISOString(),
  end_timestamp: new Date(T0 + startMs + duration_ms).toISOString(),
  service: 'shop',
  release: null,
  environment: null,
  ...extra,
});

describe('buildWaterfall', () => {
  it('nests spans under their parents, depth first, each level by start time, and draws them to scale', () => {
    const waterfall = buildWaterfall([
      span('db', 'charge', 50, 25),
      span('root', null, 0, 200),
      span('render', 'root', 150, 40),
      span('charge', 'root', 20, 100, { status: 'error', service: 'payments' }),
    ]);
    expect(waterfall.rows.map((row) => [row.span.span_id, row.depth])).toEqual([
      ['root', 0],
      ['charge', 1],
      ['db', 2],
      ['render', 1],
    ]);
    expect(waterfall.durationMs).toBe(200);
    expect(waterfall.rootDurationMs).toBe(200);
    expect(waterfall.errorCount).toBe(1);
    expect(waterfall.serviceCount).toBe(2);
    const db = waterfall.rows[2]!;
    expect(db.offsetPct).toBeCloseTo(25);
    expect(db.widthPct).toBeCloseTo(12.5);
    expect(db.ancestors).toEqual(['root', 'charge']);
    expect(waterfall.rows[0]!.childCount).toBe(2);
  });

  it('shows a span whose parent is missing at the top level, marked, and survives a cycle of parents', () => {
    const waterfall = buildWaterfall([span('root', null, 0, 10), span('orphan', 'gone', 5, 5), span('a', 'b', 1, 1), span('b', 'a', 2, 1)]);
    expect(waterfall.rows).toHaveLength(4);
    const orphan = waterfall.rows.find((row) => row.span.span_id === 'orphan')!;
    expect(orphan.depth).toBe(0);
    expect(orphan.parentMissing).toBe(true);
  });

  it('folds the descendants of collapsed spans', () => {
    const { rows } = buildWaterfall([span('root', null, 0, 10), span('child', 'root', 1, 5), span('grandchild', 'child', 2, 1), span('sibling', 'root', 6, 2)]);
    expect(visibleRows(rows, new Set(['child'])).map((row) => row.span.span_id)).toEqual(['root', 'child', 'sibling']);
    expect(visibleRows(rows, new Set(['root'])).map((row) => row.span.span_id)).toEqual(['root']);
  });

  it("tells the root span's duration apart from the trace's when a span ends after the root", () => {
    const waterfall = buildWaterfall([span('root', null, 0, 120), span('flush', 'root', 100, 400)]);
    expect(waterfall.durationMs).toBe(500);
    expect(waterfall.rootDurationMs).toBe(120);
    expect(buildWaterfall([span('orphan', 'gone', 0, 10)]).rootDurationMs).toBeNull();
    // Two roots: the list has a row for each, so neither is the trace's.
    expect(buildWaterfall([span('root', null, 0, 120), span('other', null, 10, 50)]).rootDurationMs).toBeNull();
  });

  it('is empty for no spans', () => {
    expect(buildWaterfall([]).rows).toEqual([]);
    expect(buildWaterfall([]).rootDurationMs).toBeNull();
  });
});

describe('the GQL of the trace pages', () => {
  it('writes the list filters as conditions on root spans, quoting values', () => {
    expect(rootsQuery({ range: '24h' })).toBe(
      'from:spans -parent_span_id:* last:24h | sort timestamp desc | limit 100 | fields timestamp, trace_id, span_id, name, service, op, status, duration_ms',
    );
    expect(rootsQuery({ service: "o'brien", op: 'http.server', name: 'GET "x"', status: 'error', minMs: 100, maxMs: 2500, range: '1h' })).toMatch(
      /^from:spans -parent_span_id:\* service:'o\\'brien' op:'http\.server' "GET \\"x\\"" status:error duration_ms >= 100 duration_ms <= 2500 last:1h \|/,
    );
    expect(matchingTracesQuery({ status: 'error', name: 'fraud', range: '24h' })).toBe('from:spans "fraud" status:error last:24h | sort timestamp desc | limit 1000 | fields trace_id');
    expect(rootsOfTracesQuery(['a1'], '7d')).toBe(
      "from:spans -parent_span_id:* trace_id in ['a1'] last:7d | sort timestamp desc | limit 100 | fields timestamp, trace_id, span_id, name, service, op, status, duration_ms",
    );
    expect(spanCountQuery(['a1', 'b2'], '15m', true)).toBe("from:spans trace_id in ['a1', 'b2'] status:error last:15m | count by trace_id | limit 1000");
    expect(traceErrorsQuery('abc')).toContain("from:errors trace_id:'abc'");
    expect(serviceChartQuery('7d', 'p95', 'name')).toBe('from:spans last:7d | p95(duration_ms) by time(6h), service');
    expect(serviceChartQuery('1h', 'requests', 'op', 'cart')).toBe("from:spans service:'cart' last:1h | count by time(1m), op");
  });

  it('lists the traces of the newest matching spans once each, and few enough for a query of their roots', () => {
    const id = (n: number) => n.toString(16).padStart(32, '0');
    // Spans newest first: traces 0 and 1 hold several; 1,000 spans of 600 traces in all.
    const rows = [0, 1, 0, 1, ...Array.from({ length: 996 }, (_, n) => 2 + (n % 598))].map((n) => ({ trace_id: id(n) }));
    const ids = matchingTraceIds(rows);
    expect(ids.slice(0, 3)).toEqual([id(0), id(1), id(2)]);
    expect(ids).toHaveLength(MATCHING_TRACES);
    expect(new Set(ids).size).toBe(ids.length);
    // GQL refuses queries over 16,384 characters (the list went past it at about 450 matching traces).
    expect(rootsOfTracesQuery(ids, '7d').length).toBeLessThan(16_384);
    expect(matchingTraceIds(rows.slice(0, 4))).toEqual([id(0), id(1)]);
  });

  it('joins the services aggregates per service and operation', () => {
    const stats = joinOperationStats('name', {
      requests: [
        { service: 'shop', name: 'GET /', value: 10 },
        { service: 'api', name: 'SELECT', value: 4 },
        { service: 'shop', name: 'POST /pay', value: 20 },
      ],
      errors: [{ service: 'shop', name: 'POST /pay', value: 5 }],
      p50: [{ service: 'shop', name: 'POST /pay', value: 12.5 }],
      p95: [{ service: 'shop', name: 'POST /pay', value: 40 }],
      p99: [{ service: 'shop', name: 'POST /pay', value: null }],
    });
    expect(stats.map((row) => [row.service, row.operation, row.requests, row.errors])).toEqual([
      ['api', 'SELECT', 4, 0],
      ['shop', 'POST /pay', 20, 5],
      ['shop', 'GET /', 10, 0],
    ]);
    expect(stats[1]).toMatchObject({ p50: 12.5, p95: 40, p99: null });
  });
});

describe('formatting', () => {
  it('writes durations and rates for people', () => {
    expect(formatDuration(0.423)).toBe('0.42 ms');
    expect(formatDuration(12.34)).toBe('12.3 ms');
    expect(formatDuration(250.4)).toBe('250 ms');
    expect(formatDuration(1240)).toBe('1.24 s');
    expect(formatDuration(125_000)).toBe('2 min 5 s');
    expect(formatDuration(120_000)).toBe('2 min');
    expect(formatDuration(62_453_000)).toBe('17 h 20 min');
    expect(formatDuration(3_600_000)).toBe('1 h');
    expect(formatDuration(277_200_000)).toBe('3 d 5 h');
    expect(formatDuration(-79_056_000)).toBe('−21 h 57 min');
    expect(formatDuration(null)).toBe('–');
    expect(formatRate(1, 40)).toBe('2.5%');
    expect(formatRate(0, 3)).toBe('0%');
    expect(formatRate(1, 0)).toBe('–');
  });
});
