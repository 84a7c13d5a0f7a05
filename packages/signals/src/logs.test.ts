import { isUuid } from '@tlm/core';
import type { IngestContext } from './context';
import { MAX_LOG_MESSAGE_BYTES, toLogRecord, type LogRecord } from './logs';

const RECEIVED_AT = Date.parse('2026-05-01T12:00:00.000Z');

const context = (overrides: Partial<IngestContext> = {}): IngestContext => ({
  projectId: '0190d6a4-7c3e-7a51-9e4b-3f0c2a1b5d6e',
  retentionDays: 14,
  receivedAt: RECEIVED_AT,
  client: {},
  ...overrides,
});

function accepted(input: unknown, ingest = context()): LogRecord {
  const result = toLogRecord(input, ingest);
  if (!result.ok) throw new Error(`expected the log to be accepted, got: ${result.reason}`);
  return result.value;
}

function rejection(input: unknown): string {
  const result = toLogRecord(input, context());
  if (result.ok) throw new Error('expected the log to be rejected');
  return result.reason;
}

describe('toLogRecord: the record', () => {
  it('builds the record of a minimal log with server time, a fresh id and the context', () => {
    const record = accepted({ severity: 'info', message: 'started' });
    expect(isUuid(record.id)).toBe(true);
    expect(record).toEqual({
      id: record.id,
      projectId: '0190d6a4-7c3e-7a51-9e4b-3f0c2a1b5d6e',
      timestamp: RECEIVED_AT,
      receivedAt: RECEIVED_AT,
      severity: 'info',
      message: 'started',
      properties: {},
      traceId: null,
      spanId: null,
      retentionDays: 14,
    });
  });

  it('gives every record its own id', () => {
    expect(accepted({ severity: 'info', message: 'a' }).id).not.toBe(accepted({ severity: 'info', message: 'a' }).id);
  });

  it.each(['debug', 'info', 'warn', 'error', 'fatal'])('keeps severity %s', (severity) => {
    expect(accepted({ severity, message: 'm' }).severity).toBe(severity);
  });

  it("stores 'warning' as 'warn'", () => {
    expect(accepted({ severity: 'warning', message: 'disk almost full' }).severity).toBe('warn');
  });

  it('uses the item timestamp when given', () => {
    expect(accepted({ severity: 'info', message: 'm', timestamp: '2026-05-01T10:30:00.250+02:00' }).timestamp).toBe(
      Date.parse('2026-05-01T08:30:00.250Z'),
    );
  });

  it('reads a timestamp without a zone as UTC', () => {
    expect(accepted({ severity: 'info', message: 'm', timestamp: '2026-05-01T10:30:00' }).timestamp).toBe(
      Date.parse('2026-05-01T10:30:00.000Z'),
    );
  });

  it('lower-cases trace and span ids', () => {
    const record = accepted({ severity: 'info', message: 'm', trace_id: '0AF7651916CD43DD8448EB211C80319C', span_id: 'B7AD6B7169203331' });
    expect([record.traceId, record.spanId]).toEqual(['0af7651916cd43dd8448eb211c80319c', 'b7ad6b7169203331']);
  });

  it("takes the request's traceparent trace id when the item has none, and keeps its own otherwise", () => {
    const traced = context({ traceId: '4bf92f3577b34da6a3ce929d0e0e4736' });
    expect(accepted({ severity: 'info', message: 'm' }, traced).traceId).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    expect(accepted({ severity: 'info', message: 'm', trace_id: '0af7651916cd43dd8448eb211c80319c' }, traced).traceId).toBe(
      '0af7651916cd43dd8448eb211c80319c',
    );
  });
});

describe('toLogRecord: validation messages', () => {
  it.each([
    ['a missing severity', { message: 'm' }, 'severity is required'],
    ['a missing message', { severity: 'info' }, 'message is required'],
    ['an unknown severity', { severity: 'loud', message: 'm' }, 'severity must be one of debug, info, warn, error, fatal, warning'],
    ['an upper-case severity', { severity: 'INFO', message: 'm' }, 'severity must be one of debug, info, warn, error, fatal, warning'],
    ['a message that is not a string', { severity: 'info', message: 42 }, 'message must be string'],
    ['properties that are not an object', { severity: 'info', message: 'm', properties: 'x' }, 'properties must be object'],
    ['metadata that is an array', { severity: 'info', message: 'm', metadata: [1] }, 'metadata must be object'],
    ['a timestamp that is not ISO 8601', { severity: 'info', message: 'm', timestamp: 'yesterday' }, 'timestamp must be an ISO 8601 date-time'],
    ['a date without a time', { severity: 'info', message: 'm', timestamp: '2026-05-01' }, 'timestamp must be an ISO 8601 date-time'],
    ['a malformed trace id', { severity: 'info', message: 'm', trace_id: 'abc' }, 'trace_id must match pattern "^[0-9a-fA-F]{32}$"'],
    ['a malformed span id', { severity: 'info', message: 'm', span_id: 'xyz' }, 'span_id must match pattern "^[0-9a-fA-F]{16}$"'],
    ['an item that is not an object', 'just a string', 'item must be object'],
    ['null', null, 'item must be object'],
  ])('rejects %s', (_label, input, message) => {
    expect(rejection(input)).toBe(message);
  });

  it('rejects a timestamp more than 24 hours ahead of the server', () => {
    expect(rejection({ severity: 'info', message: 'm', timestamp: '2026-05-02T12:00:00.001Z' })).toBe(
      'timestamp is more than 24 hours in the future',
    );
    expect(accepted({ severity: 'info', message: 'm', timestamp: '2026-05-02T12:00:00.000Z' }).timestamp).toBe(
      RECEIVED_AT + 24 * 3600 * 1000,
    );
  });
});

describe('toLogRecord: message size', () => {
  it('accepts a message of exactly 64 KB', () => {
    expect(MAX_LOG_MESSAGE_BYTES).toBe(65_536);
    expect(accepted({ severity: 'info', message: 'x'.repeat(65_536) }).message).toHaveLength(65_536);
  });

  it('rejects a message one byte over 64 KB', () => {
    expect(rejection({ severity: 'info', message: 'x'.repeat(65_537) })).toBe('message exceeds 65536 bytes');
  });

  it('counts UTF-8 bytes, not characters', () => {
    // 'é' is two bytes in UTF-8: 32,768 of them are exactly 64 KB, one more is over.
    expect(accepted({ severity: 'info', message: 'é'.repeat(32_768) }).message).toHaveLength(32_768);
    expect(rejection({ severity: 'info', message: 'é'.repeat(32_769) })).toBe('message exceeds 65536 bytes');
    // '😀' is four bytes and two UTF-16 units: 16,385 of them are 32,770 characters but 65,540 bytes.
    expect(rejection({ severity: 'info', message: '😀'.repeat(16_385) })).toBe('message exceeds 65536 bytes');
  });

  it('accepts an empty message', () => {
    expect(accepted({ severity: 'debug', message: '' }).message).toBe('');
  });
});

describe('toLogRecord: properties and legacy fields', () => {
  it('flattens nested properties into dotted keys and drops nulls', () => {
    const record = accepted({
      severity: 'info',
      message: 'm',
      properties: { user: { plan: 'pro', id: 7 }, tags: ['a', 'b'], ok: true, empty: null },
    });
    expect(record.properties).toEqual({ 'user.plan': 'pro', 'user.id': 7, tags: ['a', 'b'], ok: true });
  });

  it('flattens legacy metadata and context into properties', () => {
    const record = accepted({ severity: 'info', message: 'm', metadata: { request_id: 'r-1' }, context: { region: 'eu', host: { name: 'web-1' } } });
    expect(record.properties).toEqual({ request_id: 'r-1', region: 'eu', 'host.name': 'web-1' });
  });

  it('stores code_location given as an object as function@file:line', () => {
    expect(accepted({ severity: 'error', message: 'm', code_location: { function: 'charge', file: 'billing.py', line: 42 } }).properties).toEqual({
      code_location: 'charge@billing.py:42',
    });
    expect(accepted({ severity: 'error', message: 'm', code_location: { func: 'handler', filename: 'app.js', lineno: 7 } }).properties).toEqual({
      code_location: 'handler@app.js:7',
    });
    expect(accepted({ severity: 'error', message: 'm', code_location: { file: 'main.go' } }).properties).toEqual({ code_location: '?@main.go' });
  });

  it('keeps code_location given as a string as it is', () => {
    expect(accepted({ severity: 'error', message: 'm', code_location: 'charge@billing.py:42' }).properties).toEqual({
      code_location: 'charge@billing.py:42',
    });
  });

  it('lets properties win over context, and context over metadata, on a clash', () => {
    const record = accepted({
      severity: 'info',
      message: 'm',
      metadata: { region: 'from-metadata', plan: 'from-metadata', only_metadata: 1 },
      context: { region: 'from-context', plan: 'from-context', code_location: 'from-context' },
      code_location: 'from-code-location',
      properties: { plan: 'from-properties' },
    });
    expect(record.properties).toEqual({
      region: 'from-context',
      plan: 'from-properties',
      only_metadata: 1,
      code_location: 'from-code-location',
    });
  });

  it('adds the server-injected client fields, letting the item describe itself but never set $ip', () => {
    const ingest = context({ client: { $browser: 'Chrome', $os: 'Mac OS', $ip: '203.0.113.7' } });
    const record = accepted({ severity: 'info', message: 'm', properties: { $os: 'Linux', $ip: '10.0.0.1' } }, ingest);
    expect(record.properties).toEqual({ $os: 'Linux', $browser: 'Chrome', $ip: '203.0.113.7' });
  });

  it('rejects a log with more than 1,000 properties', () => {
    const properties = Object.fromEntries(Array.from({ length: 1_001 }, (_, index) => [`key_${index}`, index]));
    expect(rejection({ severity: 'info', message: 'm', properties })).toBe('too many properties (1001, at most 1000)');
  });

  it('counts the flattened keys toward the property limit, legacy fields included', () => {
    const metadata = Object.fromEntries(Array.from({ length: 600 }, (_, index) => [`m_${index}`, index]));
    const properties = { nested: Object.fromEntries(Array.from({ length: 401 }, (_, index) => [`p_${index}`, index])) };
    expect(rejection({ severity: 'info', message: 'm', metadata, properties })).toBe('too many properties (1001, at most 1000)');
  });
});
