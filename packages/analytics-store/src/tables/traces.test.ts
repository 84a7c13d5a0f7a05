import { randomUUID } from 'node:crypto';
import { clickhouseRow } from '../clickhouse';
import { DuckDBStore } from '../duckdb';
import { spanRow, spansTable } from './spans';
import { vitalRow, vitalsTable } from './vitals';
import type { SpanRecord, VitalRecord } from '@tlm/signals';

const T0 = Date.parse('2026-03-04T05:06:07.089Z');

const spanRecord = (projectId: string): SpanRecord => ({
  id: randomUUID(),
  projectId,
  timestamp: T0,
  endTimestamp: T0 + 12,
  durationMs: 12.345,
  receivedAt: T0 + 50,
  traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
  spanId: '00f067aa0ba902b7',
  parentSpanId: null,
  name: 'GET /cart',
  op: 'http.server',
  kind: 'server',
  status: 'error',
  attributes: { 'http.route': '/cart', retries: 2, cached: false },
  events: [{ name: 'exception', timestamp: '2026-03-04T05:06:07.095Z', attributes: { 'exception.type': 'Error' } }],
  service: 'cart',
  release: null,
  environment: 'prod',
  retentionDays: 14,
});

const vitalRecord = (projectId: string): VitalRecord => ({
  id: randomUUID(),
  projectId,
  timestamp: T0,
  receivedAt: T0 + 5,
  name: 'cls',
  value: 0.125,
  route: '/pricing',
  rating: 'needs-improvement',
  traceId: null,
  release: 'web@1',
  environment: null,
  properties: { $browser: 'Firefox' },
  retentionDays: 3,
});

let store: DuckDBStore;

beforeAll(async () => {
  store = await DuckDBStore.open(':memory:');
  await store.migrate([spansTable, vitalsTable] as never[]);
});
afterAll(() => store.close());

describe('spans table', () => {
  it('round-trips a span row in DuckDB: fractional durations, events as JSON, null strings', async () => {
    const projectId = randomUUID();
    const record = spanRecord(projectId);
    await store.insert(spansTable, [spanRow(record)]);
    const [stored] = await store.query('SELECT * FROM spans WHERE project_id = $project', { project: projectId });
    expect(stored).toEqual({
      project_id: projectId,
      timestamp: '2026-03-04T05:06:07.089Z',
      id: record.id,
      trace_id: '4bf92f3577b34da6a3ce929d0e0e4736',
      span_id: '00f067aa0ba902b7',
      parent_span_id: null,
      name: 'GET /cart',
      op: 'http.server',
      kind: 'server',
      status: 'error',
      duration_ms: 12.345,
      end_timestamp: '2026-03-04T05:06:07.101Z',
      service: 'cart',
      release: null,
      environment: 'prod',
      attributes: '{"http.route":"/cart","retries":2,"cached":false}',
      events: '[{"name":"exception","timestamp":"2026-03-04T05:06:07.095Z","attributes":{"exception.type":"Error"}}]',
      received_at: '2026-03-04T05:06:07.139Z',
      retention_days: 14,
    });
  });

  it('encodes a ClickHouse row: attribute maps with their numeric twin, events as JSON text, absent strings empty', () => {
    const row = clickhouseRow(spansTable, spanRow(spanRecord('p')));
    expect(row).toMatchObject({
      attributes: { 'http.route': '/cart', retries: '2', cached: 'false' },
      attributes_num: { retries: 2 },
      events: '[{"name":"exception","timestamp":"2026-03-04T05:06:07.095Z","attributes":{"exception.type":"Error"}}]',
      parent_span_id: '',
      release: '',
      duration_ms: 12.345,
      timestamp: '2026-03-04T05:06:07.089Z',
    });
  });

  it('declares the ClickHouse table like the other telemetry: project first, daily partitions, TTL, trace id index', () => {
    const ddl = spansTable.ddl.clickhouse[0]!;
    expect(ddl).toContain('ENGINE = ReplacingMergeTree');
    expect(ddl).toContain('PARTITION BY toDate(timestamp)');
    expect(ddl).toContain('ORDER BY (project_id, timestamp, id)');
    expect(ddl).toContain('TTL toDateTime(timestamp) + toIntervalDay(retention_days)');
    expect(ddl).toContain('INDEX idx_trace_id trace_id TYPE bloom_filter(0.001) GRANULARITY 1');
    expect(ddl).toContain('attributes_num Map(LowCardinality(String), Float64)');
  });
});

describe('vitals table', () => {
  it('round-trips a vital row in DuckDB', async () => {
    const projectId = randomUUID();
    const record = vitalRecord(projectId);
    await store.insert(vitalsTable, [vitalRow(record)]);
    const [stored] = await store.query('SELECT * FROM vitals WHERE project_id = $project', { project: projectId });
    expect(stored).toEqual({
      project_id: projectId,
      timestamp: '2026-03-04T05:06:07.089Z',
      id: record.id,
      name: 'cls',
      value: 0.125,
      route: '/pricing',
      rating: 'needs-improvement',
      trace_id: null,
      release: 'web@1',
      environment: null,
      properties: '{"$browser":"Firefox"}',
      received_at: '2026-03-04T05:06:07.094Z',
      retention_days: 3,
    });
  });

  it('declares the ClickHouse table with project first, daily partitions and TTL', () => {
    const ddl = vitalsTable.ddl.clickhouse[0]!;
    expect(ddl).toContain('ORDER BY (project_id, timestamp, id)');
    expect(ddl).toContain('PARTITION BY toDate(timestamp)');
    expect(ddl).toContain('TTL toDateTime(timestamp) + toIntervalDay(retention_days)');
    expect(ddl).toContain('properties_num Map(LowCardinality(String), Float64)');
  });
});
