import { isUuid } from '@tlm/core';
import type { IngestContext } from './context';
import { MAX_SPAN_EVENTS, spanRowId, toSpanRecord, type SpanRecord } from './spans';

const RECEIVED_AT = Date.parse('2026-05-01T12:00:00.000Z');
const START = RECEIVED_AT - 10_000;

const context = (overrides: Partial<IngestContext> = {}): IngestContext => ({
  projectId: '0190d6a4-7c3e-7a51-9e4b-3f0c2a1b5d6e',
  retentionDays: 14,
  receivedAt: RECEIVED_AT,
  client: { $ip: '203.0.113.9' },
  ...overrides,
});

const span = (overrides: Record<string, unknown> = {}) => ({
  trace_id: '4BF92F3577B34DA6A3CE929D0E0E4736',
  span_id: '00F067AA0BA902B7',
  name: 'GET /cart',
  status: 'ok',
  start_timestamp: START + 0.25,
  end_timestamp: START + 12.5,
  ...overrides,
});

function accepted(input: unknown, ingest = context()): SpanRecord {
  const result = toSpanRecord(input, ingest);
  if (!result.ok) throw new Error(`expected the span to be accepted, got: ${result.reason}`);
  return result.value;
}

function rejection(input: unknown, ingest = context()): string {
  const result = toSpanRecord(input, ingest);
  if (result.ok) throw new Error('expected the span to be rejected');
  return result.reason;
}

describe('toSpanRecord', () => {
  it('builds the record: lower-case ids, whole-millisecond times, exact duration, nulls for absent fields', () => {
    expect(accepted(span())).toEqual({
      id: spanRowId('4bf92f3577b34da6a3ce929d0e0e4736', '00f067aa0ba902b7'),
      projectId: '0190d6a4-7c3e-7a51-9e4b-3f0c2a1b5d6e',
      timestamp: START,
      endTimestamp: START + 12,
      durationMs: 12.25,
      receivedAt: RECEIVED_AT,
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      spanId: '00f067aa0ba902b7',
      parentSpanId: null,
      name: 'GET /cart',
      op: null,
      kind: null,
      status: 'ok',
      attributes: {},
      events: [],
      service: null,
      release: null,
      environment: null,
      retentionDays: 14,
    });
  });

  it('keeps op, kind, service, release and environment, and turns empty strings into nulls', () => {
    const record = accepted(span({ op: 'http.server', kind: 'server', service: 'cart', release: '', environment: 'prod', parent_span_id: 'AAAAAAAAAAAAAAAA' }));
    expect(record).toMatchObject({ op: 'http.server', kind: 'server', service: 'cart', release: null, environment: 'prod', parentSpanId: 'aaaaaaaaaaaaaaaa' });
  });

  it('flattens attributes and event attributes, and never adds the request client properties', () => {
    const record = accepted(
      span({
        attributes: { http: { route: '/cart' }, retries: 2, dropped: null },
        events: [{ name: 'retry', timestamp: START + 3.7, attributes: { attempt: { number: 2 } } }, { name: 'no time' }],
      }),
    );
    expect(record.attributes).toEqual({ 'http.route': '/cart', retries: 2 });
    expect(record.events).toEqual([
      { name: 'retry', timestamp: new Date(START + 3).toISOString(), attributes: { 'attempt.number': 2 } },
      { name: 'no time', timestamp: new Date(START).toISOString(), attributes: {} },
    ]);
  });

  it(`keeps at most ${MAX_SPAN_EVENTS} events`, () => {
    const events = Array.from({ length: MAX_SPAN_EVENTS + 5 }, (_, index) => ({ name: `event ${index}` }));
    expect(accepted(span({ events })).events).toHaveLength(MAX_SPAN_EVENTS);
  });

  it('takes the trace id of the traceparent header when the span has none, and rejects without either', () => {
    const { trace_id: _omitted, ...untraced } = span();
    expect(accepted(untraced, context({ traceId: '0af7651916cd43dd8448eb211c80319c' })).traceId).toBe('0af7651916cd43dd8448eb211c80319c');
    expect(rejection(untraced)).toBe('trace_id is required (or a traceparent header on the request)');
  });

  it('prefers the span trace id over the traceparent header', () => {
    expect(accepted(span(), context({ traceId: '0af7651916cd43dd8448eb211c80319c' })).traceId).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
  });

  it.each([
    [{ trace_id: 'xyz' }, 'trace_id must be 32 hex digits, not all zero'],
    [{ trace_id: '0'.repeat(32) }, 'trace_id must be 32 hex digits, not all zero'],
    [{ span_id: '0'.repeat(16) }, 'span_id must be 16 hex digits, not all zero'],
    [{ span_id: '00f067aa0ba902b' }, 'span_id must be 16 hex digits, not all zero'],
    [{ parent_span_id: 'parent' }, 'parent_span_id must be 16 hex digits, not all zero'],
    [{ status: 'cancelled' }, 'status must be one of ok, error'],
    [{ kind: 'sideways' }, 'kind must be one of internal, server, client, producer, consumer'],
    [{ name: 7 }, 'name must be string'],
    [{ start_timestamp: -1 }, 'start_timestamp must be a time after 1970'],
    [{ end_timestamp: RECEIVED_AT + 25 * 3_600_000 }, 'end_timestamp is more than 24 hours in the future'],
    [{ end_timestamp: START - 1 }, 'end_timestamp is before start_timestamp'],
    [{ attributes: Object.fromEntries(Array.from({ length: 1_001 }, (_, index) => [`key${index}`, index])) }, 'too many properties (1001, at most 1000)'],
  ])('rejects %j: %s', (overrides, reason) => {
    expect(rejection(span(overrides))).toBe(reason);
  });

  it('rejects a span without an end', () => {
    const { end_timestamp: _omitted, ...unfinished } = span();
    expect(rejection(unfinished)).toBe('end_timestamp is required');
  });
});

describe('spanRowId', () => {
  it('is a version 8 UUID that depends only on the trace and span ids', () => {
    const id = spanRowId('4bf92f3577b34da6a3ce929d0e0e4736', '00f067aa0ba902b7');
    expect(isUuid(id)).toBe(true);
    expect(id[14]).toBe('4');
    expect('89ab').toContain(id[19]);
    expect(spanRowId('4bf92f3577b34da6a3ce929d0e0e4736', '00f067aa0ba902b7')).toBe(id);
    expect(spanRowId('4bf92f3577b34da6a3ce929d0e0e4736', '00f067aa0ba902b8')).not.toBe(id);
  });
});
