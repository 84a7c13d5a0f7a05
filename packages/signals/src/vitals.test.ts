import type { IngestContext } from './context';
import { VITAL_THRESHOLDS, rateVital, toVitalRecord, type VitalName, type VitalRecord } from './vitals';

const RECEIVED_AT = Date.parse('2026-05-01T12:00:00.000Z');

const context = (overrides: Partial<IngestContext> = {}): IngestContext => ({
  projectId: '0190d6a4-7c3e-7a51-9e4b-3f0c2a1b5d6e',
  retentionDays: 14,
  receivedAt: RECEIVED_AT,
  client: { $browser: 'Chrome', $ip: '203.0.113.9' },
  ...overrides,
});

function accepted(input: unknown, ingest = context()): VitalRecord {
  const result = toVitalRecord(input, ingest);
  if (!result.ok) throw new Error(`expected the vital to be accepted, got: ${result.reason}`);
  return result.value;
}

function rejection(input: unknown): string {
  const result = toVitalRecord(input, context());
  if (result.ok) throw new Error('expected the vital to be rejected');
  return result.reason;
}

describe('rateVital', () => {
  it.each([
    ['lcp', 2_500, 4_000],
    ['inp', 200, 500],
    ['cls', 0.1, 0.25],
    ['fcp', 1_800, 3_000],
    ['ttfb', 800, 1_800],
  ] as [VitalName, number, number][])('rates %s: good up to %d, needs improvement up to %d, poor above', (name, good, poor) => {
    expect(VITAL_THRESHOLDS[name]).toEqual({ good, poor });
    expect(rateVital(name, 0)).toBe('good');
    expect(rateVital(name, good)).toBe('good');
    expect(rateVital(name, good + 0.001)).toBe('needs-improvement');
    expect(rateVital(name, poor)).toBe('needs-improvement');
    expect(rateVital(name, poor + 0.001)).toBe('poor');
  });
});

describe('toVitalRecord', () => {
  it('builds the record with its rating, server time, client properties and null optional fields', () => {
    const record = accepted({ name: 'lcp', value: 3_000, route: '/checkout', rating: 'good' });
    expect(record).toEqual({
      id: record.id,
      projectId: '0190d6a4-7c3e-7a51-9e4b-3f0c2a1b5d6e',
      timestamp: RECEIVED_AT,
      receivedAt: RECEIVED_AT,
      name: 'lcp',
      value: 3_000,
      route: '/checkout',
      rating: 'needs-improvement',
      traceId: null,
      release: null,
      environment: null,
      properties: { $browser: 'Chrome', $ip: '203.0.113.9' },
      retentionDays: 14,
    });
  });

  it('reads names case-insensitively and keeps timestamp, trace id, release, environment and properties', () => {
    const record = accepted({
      name: 'CLS',
      value: 0.3,
      route: '/',
      timestamp: '2026-05-01T11:00:00Z',
      trace_id: '4BF92F3577B34DA6A3CE929D0E0E4736',
      release: 'web@1',
      environment: 'prod',
      properties: { connection: { type: '4g' } },
    });
    expect(record).toMatchObject({
      name: 'cls',
      rating: 'poor',
      timestamp: Date.parse('2026-05-01T11:00:00Z'),
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      release: 'web@1',
      environment: 'prod',
      properties: { 'connection.type': '4g', $browser: 'Chrome' },
    });
  });

  it('takes the trace id of the traceparent header when the vital has none', () => {
    expect(accepted({ name: 'inp', value: 10, route: '/' }, context({ traceId: '0af7651916cd43dd8448eb211c80319c' })).traceId).toBe(
      '0af7651916cd43dd8448eb211c80319c',
    );
  });

  it.each([
    [{ name: 'fid', value: 10, route: '/' }, 'name must be one of lcp, inp, cls, fcp, ttfb'],
    [{ value: 10, route: '/' }, 'name is required'],
    [{ name: 'lcp', route: '/' }, 'value is required'],
    [{ name: 'lcp', value: -5, route: '/' }, 'value must be >= 0'],
    [{ name: 'lcp', value: '5', route: '/' }, 'value must be number'],
    [{ name: 'lcp', value: 5 }, 'route is required'],
    [{ name: 'lcp', value: 5, route: '' }, 'route must NOT have fewer than 1 characters'],
    [{ name: 'lcp', value: 5, route: '/', trace_id: 'abc' }, 'trace_id must be 32 hex digits, not all zero'],
    [{ name: 'lcp', value: 5, route: '/', timestamp: '2026-05-03T12:00:00Z' }, 'timestamp is more than 24 hours in the future'],
    ['lcp', 'item must be object'],
  ])('rejects %j: %s', (input, reason) => {
    expect(rejection(input)).toBe(reason);
  });
});
