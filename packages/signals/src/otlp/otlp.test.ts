import { anyValue, attributesOf, nanosToMillis, resourceIdentity } from './common';
import { otlpLogItem, otlpLogRecords, otlpSeverity } from './logs';
import { inferOp, otlpSpanItem, otlpSpans } from './traces';

describe('OTLP common encoding', () => {
  it('reads nanosecond times as strings or numbers into milliseconds with microseconds; 0 is unset', () => {
    expect(nanosToMillis('1716000000123456789')).toBe(1716000000123.456);
    expect(nanosToMillis(1716000000123456000)).toBeCloseTo(1716000000123.456, 3);
    expect(nanosToMillis('0')).toBeUndefined();
    expect(nanosToMillis(0)).toBeUndefined();
    expect(nanosToMillis(undefined)).toBeUndefined();
  });

  it('turns AnyValues into plain JSON', () => {
    expect(anyValue({ stringValue: 'a' })).toBe('a');
    expect(anyValue({ boolValue: true })).toBe(true);
    expect(anyValue({ intValue: '42' })).toBe(42);
    expect(anyValue({ intValue: -7 })).toBe(-7);
    expect(anyValue({ intValue: '-9007199254740993' })).toBe('-9007199254740993');
    expect(anyValue({ intValue: '4.2' })).toBeUndefined();
    expect(anyValue({ doubleValue: 1.5 })).toBe(1.5);
    expect(anyValue({ doubleValue: 'NaN' })).toBe('NaN');
    expect(anyValue({ bytesValue: 'AQID' })).toBe('AQID');
    expect(anyValue({ arrayValue: { values: [{ stringValue: 'x' }, {}, { boolValue: false }] } })).toEqual(['x', false]);
    expect(anyValue({ arrayValue: {} })).toEqual([]);
    expect(anyValue({ kvlistValue: { values: [{ key: 'k', value: { intValue: 1 } }] } })).toEqual({ k: 1 });
    expect(anyValue({})).toBeUndefined();
    expect(anyValue('plain')).toBeUndefined();
    expect(anyValue({ stringValue: 5 })).toBeUndefined();
  });

  it('reads attribute lists, skipping entries without a key or a value', () => {
    expect(attributesOf([{ key: 'a', value: { stringValue: 'x' } }, { key: '', value: { stringValue: 'y' } }, { value: {} }, null, { key: 'b' }])).toEqual({ a: 'x' });
    expect(attributesOf('not a list')).toEqual({});
  });

  it('reads service, release and environment from resource attributes', () => {
    expect(resourceIdentity({ 'service.name': 'api', 'service.version': '1.2', 'deployment.environment': 'prod' })).toEqual({
      service: 'api',
      release: '1.2',
      environment: 'prod',
    });
    expect(resourceIdentity({ 'deployment.environment.name': 'new', 'deployment.environment': 'old', 'service.name': '' })).toEqual({
      service: undefined,
      release: undefined,
      environment: 'new',
    });
  });
});

describe('OTLP spans', () => {
  const scope = { attributes: { 'service.name': 'api', shared: 'resource' }, service: 'api', release: '1.0', environment: 'prod' };
  const wire = (overrides: Record<string, unknown> = {}) => ({
    traceId: '5b8efff798038103d269b633813fc60c',
    spanId: 'eee19b7ec3c1b174',
    parentSpanId: 'eee19b7ec3c1b173',
    name: 'GET /',
    kind: 2,
    startTimeUnixNano: '1716000000000000000',
    endTimeUnixNano: '1716000000001500000',
    ...overrides,
  });

  it('maps a span to a span item: kind, status, events, scope attributes under its own', () => {
    const result = otlpSpanItem(
      wire({
        attributes: [{ key: 'http.request.method', value: { stringValue: 'GET' } }, { key: 'shared', value: { stringValue: 'span' } }],
        status: { code: 2, message: 'boom' },
        events: [{ name: 'exception', timeUnixNano: '1716000000001000000', attributes: [{ key: 'exception.type', value: { stringValue: 'Error' } }] }, { name: 'untimed' }],
      }),
      scope,
    );
    expect(result).toEqual({
      ok: true,
      value: {
        trace_id: '5b8efff798038103d269b633813fc60c',
        span_id: 'eee19b7ec3c1b174',
        parent_span_id: 'eee19b7ec3c1b173',
        name: 'GET /',
        op: 'http.server',
        kind: 'server',
        status: 'error',
        start_timestamp: 1716000000000,
        end_timestamp: 1716000000001.5,
        attributes: { 'service.name': 'api', shared: 'span', 'http.request.method': 'GET', 'otel.status_description': 'boom' },
        events: [
          { name: 'exception', timestamp: 1716000000001, attributes: { 'exception.type': 'Error' } },
          { name: 'untimed', attributes: {} },
        ],
        service: 'api',
        release: '1.0',
        environment: 'prod',
      },
    });
  });

  it.each([
    [{ code: 0 }, 'ok'],
    [{ code: 1 }, 'ok'],
    [{ code: 2 }, 'error'],
    [{ code: 'STATUS_CODE_ERROR' }, 'error'],
    [{ code: 'STATUS_CODE_OK' }, 'ok'],
    [undefined, 'ok'],
  ])('maps status %j to %s', (status, expected) => {
    const result = otlpSpanItem(wire(status === undefined ? {} : { status }), scope);
    expect(result.ok && result.value.status).toBe(expected);
  });

  it.each([
    [0, null],
    [1, 'internal'],
    [3, 'client'],
    [4, 'producer'],
    [5, 'consumer'],
    ['SPAN_KIND_CLIENT', 'client'],
    [9, null],
  ])('maps kind %j to %s', (kind, expected) => {
    const result = otlpSpanItem(wire({ kind }), scope);
    expect(result.ok && result.value.kind).toBe(expected);
  });

  it('treats an empty parentSpanId as a root and uses an explicit sentry.op attribute', () => {
    const result = otlpSpanItem(wire({ parentSpanId: '', attributes: [{ key: 'sentry.op', value: { stringValue: 'queue.task' } }] }), scope);
    expect(result.ok && [result.value.parent_span_id, result.value.op]).toEqual([undefined, 'queue.task']);
  });

  it.each([
    [{ traceId: undefined }, 'traceId is required'],
    [{ spanId: 5 }, 'spanId must be string'],
    [{ startTimeUnixNano: '0' }, 'startTimeUnixNano is required'],
    [{ endTimeUnixNano: '0' }, 'endTimeUnixNano is required'],
    [{ startTimeUnixNano: 'soon' }, 'startTimeUnixNano must be a decimal integer string'],
    [{ events: [{ attributes: [] }] }, 'events.0.name is required'],
  ])('rejects %j: %s', (overrides, reason) => {
    expect(otlpSpanItem(wire(overrides), scope)).toEqual({ ok: false, reason });
  });

  it('infers Sentry-style ops from semantic conventions', () => {
    expect(inferOp('client', { 'http.method': 'GET' })).toBe('http.client');
    expect(inferOp(undefined, { 'http.request.method': 'GET' })).toBe('http');
    expect(inferOp('client', { 'db.system': 'redis' })).toBe('db');
    expect(inferOp('server', { 'rpc.system': 'grpc' })).toBe('rpc');
    expect(inferOp('consumer', { 'messaging.system': 'kafka' })).toBe('message');
    expect(inferOp('server', { 'faas.trigger': 'http' })).toBe('function');
    expect(inferOp('internal', {})).toBeNull();
  });

  it('lists every span of a request with its resource and scope', () => {
    const spans = otlpSpans({
      resourceSpans: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'a' } }] },
          scopeSpans: [{ scope: { name: 's1', version: '1' }, spans: [1, 2] }, { spans: [3] }],
        },
        { scopeSpans: [{ spans: [4] }] },
        {},
      ],
    });
    expect(spans.map(({ span, scope: spanScope }) => [span, spanScope.service, spanScope.attributes])).toEqual([
      [1, 'a', { 'service.name': 'a', 'otel.scope.name': 's1', 'otel.scope.version': '1' }],
      [2, 'a', { 'service.name': 'a', 'otel.scope.name': 's1', 'otel.scope.version': '1' }],
      [3, 'a', { 'service.name': 'a' }],
      [4, undefined, {}],
    ]);
  });
});

describe('OTLP logs', () => {
  it.each([
    [1, undefined, 'debug'],
    [4, undefined, 'debug'],
    [5, undefined, 'debug'],
    [9, undefined, 'info'],
    [12, undefined, 'info'],
    [13, undefined, 'warn'],
    [17, undefined, 'error'],
    [21, undefined, 'fatal'],
    [24, undefined, 'fatal'],
    [30, undefined, 'fatal'],
    ['SEVERITY_NUMBER_ERROR2', undefined, 'error'],
    ['SEVERITY_NUMBER_TRACE', undefined, 'debug'],
    [0, 'WARNING', 'warn'],
    [undefined, 'critical', 'fatal'],
    [undefined, ' Info ', 'info'],
    [undefined, 'loud', 'info'],
    [undefined, undefined, 'info'],
  ])('maps severityNumber %j and severityText %j to %s', (severityNumber, severityText, expected) => {
    expect(otlpSeverity(severityNumber, severityText)).toBe(expected);
  });

  it('maps a record to a log item: body, time, ids, attributes over resource ones', () => {
    expect(
      otlpLogItem(
        {
          timeUnixNano: '1716000000123456789',
          severityNumber: 13,
          body: { kvlistValue: { values: [{ key: 'msg', value: { stringValue: 'hi' } }] } },
          attributes: [{ key: 'host', value: { stringValue: 'record' } }],
          traceId: '5b8efff798038103d269b633813fc60c',
          spanId: '',
          eventName: 'user.login',
        },
        { host: 'resource', 'service.name': 'api' },
      ),
    ).toEqual({
      ok: true,
      value: {
        severity: 'warn',
        message: '{"msg":"hi"}',
        properties: { host: 'record', 'service.name': 'api', 'event.name': 'user.login' },
        timestamp: '2024-05-18T02:40:00.123Z',
        trace_id: '5b8efff798038103d269b633813fc60c',
      },
    });
  });

  it('falls back to the observed time, then to none; an empty body is an empty message', () => {
    const observed = otlpLogItem({ observedTimeUnixNano: '1716000000000000000' }, {});
    expect(observed.ok && observed.value).toEqual({ severity: 'info', message: '', properties: {}, timestamp: '2024-05-18T02:40:00.000Z' });
    const untimed = otlpLogItem({ body: { stringValue: 'x' } }, {});
    expect(untimed.ok && 'timestamp' in untimed.value).toBe(false);
  });

  it('rejects records of the wrong shape and times no Date holds', () => {
    expect(otlpLogItem({ severityText: 3 }, {})).toEqual({ ok: false, reason: 'severityText must be string' });
    expect(otlpLogItem({ timeUnixNano: 1e30 }, {})).toEqual({ ok: false, reason: 'timeUnixNano is out of range' });
    expect(otlpLogItem({ timeUnixNano: '123456789012345678901' }, {})).toEqual({ ok: false, reason: 'timeUnixNano must be a decimal integer string' });
    expect(otlpLogItem('text', {})).toEqual({ ok: false, reason: 'item must be object' });
  });

  it('lists every record of a request with its resource and scope attributes', () => {
    const records = otlpLogRecords({
      resourceLogs: [{ resource: { attributes: [{ key: 'r', value: { intValue: 1 } }] }, scopeLogs: [{ scope: { name: 'lib' }, logRecords: ['a', 'b'] }] }],
    });
    expect(records).toEqual([
      { record: 'a', resource: { r: 1, 'otel.scope.name': 'lib' } },
      { record: 'b', resource: { r: 1, 'otel.scope.name': 'lib' } },
    ]);
  });
});
