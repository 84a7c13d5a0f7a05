import { gzipSync } from 'node:zlib';
import { SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';
import { OTLPLogExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { OTLPLogExporter as OTLPProtoLogExporter } from '@opentelemetry/exporter-logs-otlp-proto';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OTLPProtoTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchLogRecordProcessor, LoggerProvider } from '@opentelemetry/sdk-logs';
import { BasicTracerProvider, BatchSpanProcessor, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { createKey, denseBodyRefusal, gqlRows, setupProject, startTestServer, type TestServer } from '@tlm/testkit';
import protobuf from 'protobufjs';

let server: TestServer;
let setup: Awaited<ReturnType<typeof setupProject>>;

beforeAll(async () => {
  server = await startTestServer();
  setup = await setupProject(server.api, { allow_browser_logs: false });
});
afterAll(() => server.close());

const TRACES = '/v1/otlp/v1/traces';
const LOGS = '/v1/otlp/v1/logs';
/** ExportResultCode.SUCCESS of @opentelemetry/core. */
const EXPORT_SUCCESS = 0;

const gql = (q: string) => gqlRows(server.api, setup.secretKey, q);

function tracerProvider(serviceName: string, key: string, processor: 'batch' | 'simple' = 'batch') {
  const exporter = new OTLPTraceExporter({ url: `${server.url}${TRACES}`, headers: { Authorization: `Bearer ${key}` } });
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': serviceName, 'service.version': '2.4.1', 'deployment.environment.name': 'production' }),
    spanProcessors: [processor === 'batch' ? new BatchSpanProcessor(exporter) : new SimpleSpanProcessor(exporter)],
  });
  return { provider, tracer: provider.getTracer('shop-instrumentation', '0.3.0') };
}

/** Finished spans from the SDK without exporting them, for driving the exporter by hand. */
async function recordedSpans(record: (tracer: ReturnType<BasicTracerProvider['getTracer']>) => void): Promise<ReadableSpan[]> {
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(memory)] });
  record(provider.getTracer('by-hand'));
  await provider.forceFlush();
  return memory.getFinishedSpans();
}

function exportWith(key: string | undefined, spans: ReadableSpan[]) {
  const exporter = new OTLPTraceExporter({ url: `${server.url}${TRACES}`, headers: key ? { Authorization: `Bearer ${key}` } : {} });
  return new Promise<{ code: number; error?: Error }>((resolve) => exporter.export(spans, resolve));
}

const sendTraces = (body: unknown, token = setup.secretKey, headers: Record<string, string> = {}) =>
  server.api.post(TRACES, { token, body, headers });

/** A minimal valid OTLP span in JSON, with overrides. */
const otlpSpan = (overrides: Record<string, unknown> = {}) => ({
  traceId: '5b8efff798038103d269b633813fc60c',
  spanId: 'eee19b7ec3c1b174',
  name: 'GET /api/cart',
  kind: 2,
  startTimeUnixNano: String(BigInt(Date.now() - 1_000) * 1_000_000n),
  endTimeUnixNano: String(BigInt(Date.now() - 1_000) * 1_000_000n + 12_345_678n),
  ...overrides,
});
const traceRequest = (spans: unknown[], resource: unknown[] = [{ key: 'service.name', value: { stringValue: 'cart' } }]) => ({
  resourceSpans: [{ resource: { attributes: resource }, scopeSpans: [{ scope: { name: 'manual' }, spans }] }],
});

describe('POST /v1/otlp/v1/traces with the OpenTelemetry SDK and OTLPTraceExporter', () => {
  it('stores a trace of nested spans with kinds, attributes, events and an error status, readable through GQL', async () => {
    const { provider, tracer } = tracerProvider('checkout', setup.secretKey);
    const root = tracer.startSpan('POST /checkout', { kind: SpanKind.SERVER, attributes: { 'http.request.method': 'POST', 'http.route': '/checkout' } });
    const traceId = root.spanContext().traceId;
    const rootContext = trace.setSpan(context.active(), root);
    const query = tracer.startSpan('SELECT orders', { kind: SpanKind.CLIENT, attributes: { 'db.system.name': 'postgresql', rows: 3 } }, rootContext);
    query.addEvent('cache miss', { key: 'orders:42', attempt: 2 });
    query.end();
    const charge = tracer.startSpan('charge card', { attributes: { 'payment.amount': 12.5, 'payment.retried': true } }, rootContext);
    try {
      throw new Error('card declined');
    } catch (error) {
      charge.recordException(error as Error);
      charge.setStatus({ code: SpanStatusCode.ERROR, message: 'card declined' });
    } finally {
      charge.end();
    }
    root.end();
    await provider.forceFlush();
    await provider.shutdown();

    const spans = await gql(`from:spans trace_id:${traceId} | sort timestamp asc`);
    expect(spans).toHaveLength(3);
    const byName = Object.fromEntries(spans.map((span) => [span['name'], span]));
    expect(byName['POST /checkout']).toMatchObject({
      trace_id: traceId,
      span_id: root.spanContext().spanId,
      parent_span_id: null,
      op: 'http.server',
      kind: 'server',
      status: 'ok',
      service: 'checkout',
      release: '2.4.1',
      environment: 'production',
    });
    expect(byName['POST /checkout']!['attributes']).toMatchObject({
      'http.route': '/checkout',
      'service.name': 'checkout',
      'otel.scope.name': 'shop-instrumentation',
      'otel.scope.version': '0.3.0',
    });
    expect(byName['SELECT orders']).toMatchObject({ parent_span_id: root.spanContext().spanId, op: 'db', kind: 'client', status: 'ok' });
    expect(byName['SELECT orders']!['attributes']).toMatchObject({ 'db.system.name': 'postgresql', rows: 3 });
    expect(byName['SELECT orders']!['events']).toEqual([
      { name: 'cache miss', timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/), attributes: { key: 'orders:42', attempt: 2 } },
    ]);
    expect(byName['charge card']).toMatchObject({ status: 'error', kind: 'internal', op: null });
    expect(byName['charge card']!['attributes']).toMatchObject({ 'payment.amount': 12.5, 'payment.retried': true, 'otel.status_description': 'card declined' });
    expect(byName['charge card']!['events']).toEqual([
      expect.objectContaining({ name: 'exception', attributes: expect.objectContaining({ 'exception.type': 'Error', 'exception.message': 'card declined' }) }),
    ]);
    for (const span of spans) {
      expect(typeof span['duration_ms']).toBe('number');
      expect(span['duration_ms']).toBeGreaterThanOrEqual(0);
      expect(Date.parse(span['end_timestamp'])).toBeGreaterThanOrEqual(Date.parse(span['timestamp']));
    }
  });

  it('keeps the exact duration from nanosecond times and answers an exporter with success', async () => {
    const now = Math.floor(Date.now() / 1000) - 10;
    const spans = await recordedSpans((tracer) => {
      tracer.startSpan('timed', { startTime: [now, 250_000_000] }).end([now + 1, 500_500_000]);
    });
    const span = spans[0]!;
    const result = await exportWith(setup.secretKey, [span]);
    expect(result.code).toBe(EXPORT_SUCCESS);
    const [row] = await gql(`from:spans trace_id:${span.spanContext().traceId}`);
    expect(row!['duration_ms']).toBe(1250.5);
    expect(row!['timestamp']).toBe(new Date(now * 1000 + 250).toISOString());
  });

  it('joins spans of two services that share a trace id into one trace', async () => {
    const frontend = tracerProvider('frontend', setup.secretKey);
    const backend = tracerProvider('payments', setup.publicKey);
    const request = frontend.tracer.startSpan('GET /pay', { kind: SpanKind.CLIENT, attributes: { 'http.request.method': 'GET' } });
    // The backend continues the trace from the propagated span context, as a traceparent header would carry it.
    const handled = backend.tracer.startSpan('handle payment', { kind: SpanKind.SERVER }, trace.setSpanContext(context.active(), request.spanContext()));
    handled.end();
    request.end();
    await Promise.all([frontend.provider.forceFlush(), backend.provider.forceFlush()]);
    // By service after the start: the two spans may start in the same millisecond.
    const spans = await gql(`from:spans trace_id:${request.spanContext().traceId} | sort timestamp asc, service asc`);
    expect(spans.map((span) => [span['service'], span['name'], span['parent_span_id']])).toEqual([
      ['frontend', 'GET /pay', null],
      ['payments', 'handle payment', request.spanContext().spanId],
    ]);
    expect(spans[0]!['op']).toBe('http.client');
  });

  it('lets GQL aggregate spans: p95 duration by service and error counts', async () => {
    const { provider, tracer } = tracerProvider('aggregated', setup.secretKey);
    for (let index = 0; index < 4; index += 1) {
      const span = tracer.startSpan('work');
      if (index === 0) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    }
    await provider.forceFlush();
    expect(await gql('from:spans service:aggregated | count by status | sort status asc')).toEqual([
      { status: 'error', value: 1 },
      { status: 'ok', value: 3 },
    ]);
    const [p95] = await gql('from:spans service:aggregated | p95(duration_ms) by service');
    expect(p95).toEqual({ service: 'aggregated', value: expect.any(Number) });
  });

  it('answers the exporter with a failure for a missing key and stores nothing', async () => {
    const spans = await recordedSpans((tracer) => tracer.startSpan('unauthenticated').end());
    const result = await exportWith(undefined, spans);
    expect(result.code).not.toBe(EXPORT_SUCCESS);
    expect(await gql(`from:spans trace_id:${spans[0]!.spanContext().traceId}`)).toEqual([]);
  });
});

describe('POST /v1/otlp/v1/traces: the JSON encoding', () => {
  it('accepts int64 times as numbers, enums by name, and ignores unknown fields', async () => {
    const start = (Date.now() - 5_000) * 1_000_000;
    const reply = await sendTraces({
      resourceSpans: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'numbers' } }], droppedAttributesCount: 0 },
          schemaUrl: 'https://opentelemetry.io/schemas/1.24.0',
          scopeSpans: [
            {
              scope: { name: 'raw' },
              spans: [
                otlpSpan({
                  traceId: 'A1B2C3D4E5F60718293A4B5C6D7E8F90',
                  spanId: 'ABCDEF0123456789',
                  parentSpanId: '',
                  kind: 'SPAN_KIND_PRODUCER',
                  startTimeUnixNano: start,
                  endTimeUnixNano: start + 2_000_000,
                  status: { code: 'STATUS_CODE_ERROR' },
                  traceState: 'vendor=1',
                  flags: 257,
                  links: [{ traceId: '5b8efff798038103d269b633813fc60c', spanId: 'eee19b7ec3c1b174' }],
                  attributes: [
                    { key: 'big', value: { intValue: '9007199254740993' } },
                    { key: 'small', value: { intValue: '42' } },
                    { key: 'ratio', value: { doubleValue: 0.5 } },
                    { key: 'tags', value: { arrayValue: { values: [{ stringValue: 'a' }, { intValue: 2 }] } } },
                    { key: 'nested', value: { kvlistValue: { values: [{ key: 'inner', value: { boolValue: false } }] } } },
                    { key: 'raw', value: { bytesValue: 'AQID' } },
                    { key: 'empty', value: {} },
                    { value: { stringValue: 'no key' } },
                    { key: 'messaging.system', value: { stringValue: 'kafka' } },
                  ],
                  futureField: { anything: true },
                }),
              ],
            },
          ],
        },
      ],
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({});
    const [span] = await gql('from:spans trace_id:a1b2c3d4e5f60718293a4b5c6d7e8f90');
    expect(span).toMatchObject({ span_id: 'abcdef0123456789', parent_span_id: null, kind: 'producer', status: 'error', op: 'message', duration_ms: 2 });
    expect(span!['attributes']).toEqual({
      'service.name': 'numbers',
      'otel.scope.name': 'raw',
      big: '9007199254740993',
      small: 42,
      ratio: 0.5,
      tags: ['a', 2],
      'nested.inner': false,
      raw: 'AQID',
      'messaging.system': 'kafka',
    });
  });

  it('accepts a gzip-compressed body', async () => {
    const body = gzipSync(JSON.stringify(traceRequest([otlpSpan({ traceId: '0af7651916cd43dd8448eb211c80319c' })])));
    const reply = await server.api.post(TRACES, {
      token: setup.secretKey,
      body,
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    });
    expect(reply.status).toBe(200);
    expect(await gql('from:spans trace_id:0af7651916cd43dd8448eb211c80319c')).toHaveLength(1);
  });

  it('refuses a gzip body that inflates to more JSON objects and arrays than 32 per byte received with 400 VALIDATION_ERROR', async () => {
    // A span with an unknown field of 100,000 `{}`: about 300 KB of JSON that gzips to a few hundred bytes.
    const dense = otlpSpan({ traceId: 'de45e0000000000000000000000000de', filler: Array.from({ length: 100_000 }, () => ({})) });
    const compressed = gzipSync(JSON.stringify(traceRequest([dense])));
    const reply = await server.api.post(TRACES, {
      token: setup.secretKey,
      body: compressed,
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ error: { code: 'VALIDATION_ERROR', message: denseBodyRefusal(compressed.length) } });
    expect(await gql('from:spans trace_id:de45e0000000000000000000000000de')).toEqual([]);
  });

  it('rejects spans with invalid ids or times one by one and reports them in partialSuccess', async () => {
    const reply = await sendTraces(
      traceRequest([
        otlpSpan({ traceId: 'c0ffee00c0ffee00c0ffee00c0ffee00', spanId: '1111111111111111', name: 'kept' }),
        otlpSpan({ traceId: 'not-hex' }),
        otlpSpan({ traceId: '00000000000000000000000000000000' }),
        otlpSpan({ spanId: 'abc' }),
        otlpSpan({ startTimeUnixNano: '0' }),
        otlpSpan({ startTimeUnixNano: '2000', endTimeUnixNano: '1000' }),
        otlpSpan({ name: 42 }),
        otlpSpan({ traceId: 'c0ffee00c0ffee00c0ffee00c0ffee00', spanId: '2222222222222222', name: 'kept too' }),
      ]),
    );
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      partialSuccess: {
        rejectedSpans: 6,
        errorMessage:
          '6 of 8 spans rejected: span 1: trace_id must be 32 hex digits, not all zero; ' +
          'span 2: trace_id must be 32 hex digits, not all zero; span 3: span_id must be 16 hex digits, not all zero; ' +
          'span 4: startTimeUnixNano is required; span 5: end_timestamp is before start_timestamp; span 6: name must be string',
      },
    });
    const kept = await gql('from:spans trace_id:c0ffee00c0ffee00c0ffee00c0ffee00 | sort name asc');
    expect(kept.map((span) => span['name'])).toEqual(['kept', 'kept too']);
  });

  it('answers 200 with nothing stored for an empty request', async () => {
    for (const body of [{}, { resourceSpans: [] }, { resourceSpans: [{ scopeSpans: [{ spans: [] }] }] }]) {
      const reply = await sendTraces(body);
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({});
    }
  });

  it('rejects a body that is not JSON with 400 VALIDATION_ERROR', async () => {
    const reply = await server.api.post(TRACES, { token: setup.secretKey, body: '{"resourceSpans": [', headers: { 'content-type': 'application/json' } });
    expect(reply.status).toBe(400);
    expect(reply.body.error.code).toBe('VALIDATION_ERROR');
  });

  it.each([
    ['an array', [], 'request body must be an OTLP ExportTraceServiceRequest JSON object'],
    ['resourceSpans that is not an array', { resourceSpans: {} }, 'malformed OTLP ExportTraceServiceRequest: resourceSpans must be array'],
    ['scopeSpans of the wrong type', { resourceSpans: [{ scopeSpans: 'x' }] }, 'malformed OTLP ExportTraceServiceRequest: resourceSpans.0.scopeSpans must be array'],
    ['spans of the wrong type', { resourceSpans: [{ scopeSpans: [{ spans: {} }] }] }, 'malformed OTLP ExportTraceServiceRequest: resourceSpans.0.scopeSpans.0.spans must be array'],
  ])('rejects %s with 400 VALIDATION_ERROR', async (_what, body, message) => {
    const reply = await sendTraces(body);
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ error: { code: 'VALIDATION_ERROR', message } });
  });

  it('rejects more than 1,000 spans in one request with 400 VALIDATION_ERROR', async () => {
    const reply = await sendTraces(traceRequest(Array.from({ length: 1_001 }, () => otlpSpan())));
    expect(reply.status).toBe(400);
    expect(reply.body.error).toEqual({
      code: 'VALIDATION_ERROR',
      message: 'the request holds 1001 spans; at most 1000 are accepted per request',
      details: { limit: 1000, received: 1001 },
    });
  });

  it('answers a body that is neither JSON nor protobuf with 415', async () => {
    const reply = await server.api.post(TRACES, { token: setup.secretKey, body: 'spans', headers: { 'content-type': 'text/plain' } });
    expect(reply.status).toBe(415);
    expect(reply.body.error).toEqual({
      code: 'VALIDATION_ERROR',
      message: 'OTLP/HTTP accepts application/json or application/x-protobuf bodies, not text/plain',
    });
  });

  it('answers 401 UNAUTHORIZED without a key', async () => {
    const reply = await server.api.post(TRACES, { body: traceRequest([otlpSpan()]) });
    expect(reply.status).toBe(401);
    expect(reply.body.error.code).toBe('UNAUTHORIZED');
  });

  it('answers 403 FORBIDDEN for a read-only key', async () => {
    const reader = await createKey(server.api, setup.session, setup.project.id, { type: 'secret', scopes: ['data:read'] });
    const reply = await sendTraces(traceRequest([otlpSpan()]), reader.key);
    expect(reply.status).toBe(403);
    expect(reply.body.error.code).toBe('FORBIDDEN');
  });

  it('answers a CORS preflight', async () => {
    const reply = await server.api.request('OPTIONS', TRACES, { headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST' } });
    expect(reply.status).toBe(204);
    expect(reply.headers.get('access-control-allow-origin')).toBe('https://shop.example');
  });
});

describe('POST /v1/otlp/v1/logs', () => {
  const logRequest = (logRecords: unknown[]) => ({
    resourceLogs: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'worker' } }, { key: 'host.name', value: { stringValue: 'web-1' } }] },
        scopeLogs: [{ scope: { name: 'app-logger', attributes: [{ key: 'scope.team', value: { stringValue: 'payments' } }] }, logRecords }],
      },
    ],
  });

  it('stores records from the OpenTelemetry logs SDK and OTLPLogExporter as logs', async () => {
    const exporter = new OTLPLogExporter({ url: `${server.url}${LOGS}`, headers: { Authorization: `Bearer ${setup.secretKey}` } });
    const provider = new LoggerProvider({
      resource: resourceFromAttributes({ 'service.name': 'billing' }),
      processors: [new BatchLogRecordProcessor(exporter)],
    });
    const logger = provider.getLogger('billing-logger');
    logger.emit({ severityNumber: 17 /* ERROR */, severityText: 'ERROR', body: 'otel sdk: charge failed', attributes: { order_id: 42 } });
    logger.emit({ severityNumber: 14 /* WARN2 */, body: { event: 'otel sdk: slow', ms: 900 } });
    await provider.forceFlush();
    await provider.shutdown();
    const rows = await gql('from:logs "otel sdk" | sort severity asc');
    expect(rows.map((row) => [row['severity'], row['message']])).toEqual([
      ['error', 'otel sdk: charge failed'],
      ['warn', '{"event":"otel sdk: slow","ms":900}'],
    ]);
    expect(rows[0]!['properties']).toMatchObject({ order_id: 42, 'service.name': 'billing', 'otel.scope.name': 'billing-logger' });
  });

  it('maps severity numbers and texts, times, trace ids, and resource attributes into properties', async () => {
    // Within the free plan's retention, so GQL reads it; the nanoseconds below a millisecond are dropped.
    const millis = Math.floor(Date.now() / 1000) * 1000 - 60_000 + 678;
    const time = BigInt(millis) * 1_000_000n + 123_456n;
    const reply = await server.api.post(LOGS, {
      token: setup.secretKey,
      body: logRequest([
        { severityNumber: 1, body: { stringValue: 'sev trace' } },
        { severityNumber: 9, body: { stringValue: 'sev info' }, timeUnixNano: String(time) },
        { severityNumber: 'SEVERITY_NUMBER_WARN', body: { stringValue: 'sev warn by name' } },
        { severityNumber: 21, body: { stringValue: 'sev fatal' } },
        { severityText: 'Error', body: { stringValue: 'sev text error' } },
        { severityText: 'strange', body: { stringValue: 'sev unknown text' } },
        { severityNumber: 'SEVERITY_NUMBER_UNSPECIFIED', severityText: 'ERROR', body: { stringValue: 'sev unspecified by name' } },
        {
          severityNumber: 17,
          body: { stringValue: 'sev traced' },
          traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
          spanId: '00f067aa0ba902b7',
          attributes: [{ key: 'host.name', value: { stringValue: 'overridden' } }],
          eventName: 'payment.failed',
        },
      ]),
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({});
    const rows = await gql('from:logs sev | fields message, severity, timestamp, trace_id, span_id, properties | limit 20');
    const byMessage = Object.fromEntries(rows.map((row) => [row['message'], row]));
    expect(Object.fromEntries(rows.map((row) => [row['message'], row['severity']]))).toEqual({
      'sev trace': 'debug',
      'sev info': 'info',
      'sev warn by name': 'warn',
      'sev fatal': 'fatal',
      'sev text error': 'error',
      'sev unknown text': 'info',
      'sev unspecified by name': 'error',
      'sev traced': 'error',
    });
    expect(byMessage['sev info']!['timestamp']).toBe(new Date(millis).toISOString());
    expect(byMessage['sev traced']).toMatchObject({ trace_id: '4bf92f3577b34da6a3ce929d0e0e4736', span_id: '00f067aa0ba902b7' });
    expect(byMessage['sev traced']!['properties']).toMatchObject({
      'service.name': 'worker',
      'host.name': 'overridden',
      'otel.scope.name': 'app-logger',
      'scope.team': 'payments',
      'event.name': 'payment.failed',
    });
  });

  it('rejects bad records one by one in partialSuccess', async () => {
    const reply = await server.api.post(LOGS, {
      token: setup.secretKey,
      body: logRequest([
        { body: { stringValue: 'partial kept' } },
        { body: { stringValue: 'x'.repeat(64 * 1024 + 1) } },
        { body: { stringValue: 'bad trace' }, traceId: 'xyz' },
        { body: { stringValue: 'bad time' }, timeUnixNano: 'yesterday' },
      ]),
    });
    expect(reply.status).toBe(200);
    expect(reply.body.partialSuccess.rejectedLogRecords).toBe(3);
    expect(reply.body.partialSuccess.errorMessage).toMatch(/^3 of 4 log records rejected: log record 1: message exceeds 65536 bytes; log record 2: trace_id .+; log record 3: timeUnixNano .+$/);
    expect((await gql('from:logs "partial kept"')).length).toBe(1);
  });

  it('rejects malformed requests with 400 VALIDATION_ERROR', async () => {
    const reply = await server.api.post(LOGS, { token: setup.secretKey, body: { resourceLogs: [{ scopeLogs: [{ logRecords: 'x' }] }] } });
    expect(reply.status).toBe(400);
    expect(reply.body.error).toEqual({
      code: 'VALIDATION_ERROR',
      message: 'malformed OTLP ExportLogsServiceRequest: resourceLogs.0.scopeLogs.0.logRecords must be array',
    });
  });

  it("refuses a public key with 403 'CORS blocked' unless the project allows browser logs", async () => {
    const reply = await server.api.post(LOGS, { token: setup.publicKey, body: logRequest([{ body: { stringValue: 'from a browser' } }]) });
    expect(reply.status).toBe(403);
    expect(reply.body.error).toEqual({ code: 'FORBIDDEN', message: "CORS blocked: enable 'Allow browser logs' for this project" });
  });

  it('answers 401 without a key and 403 for a read-only key', async () => {
    expect((await server.api.post(LOGS, { body: logRequest([]) })).status).toBe(401);
    const reader = await createKey(server.api, setup.session, setup.project.id, { type: 'secret', scopes: ['data:read'] });
    const reply = await server.api.post(LOGS, { token: reader.key, body: logRequest([]) });
    expect(reply.status).toBe(403);
    expect(reply.body.error.code).toBe('FORBIDDEN');
  });
});

/** An independent encoder for hand-made protobuf requests, and the decoder of the protobuf answers. */
const wire = protobuf.parse(`
  syntax = "proto3";
  message AnyValue { oneof value { string string_value = 1; int64 int_value = 3; } }
  message KeyValue { string key = 1; AnyValue value = 2; }
  message Resource { repeated KeyValue attributes = 1; }
  message TraceRequest { repeated ResourceSpans resource_spans = 1; }
  message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; }
  message ScopeSpans { repeated Span spans = 2; }
  message Span { bytes trace_id = 1; bytes span_id = 2; string name = 5; fixed64 start_time_unix_nano = 7; fixed64 end_time_unix_nano = 8; repeated KeyValue attributes = 9; }
  message PartialSuccess { int64 rejected_spans = 1; string error_message = 2; }
  message TraceResponse { PartialSuccess partial_success = 1; }
`).root;
const TraceRequest = wire.lookupType('TraceRequest');
const TraceResponse = wire.lookupType('TraceResponse');

describe('OTLP/HTTP with protobuf bodies (application/x-protobuf)', () => {
  const PROTOBUF = { 'content-type': 'application/x-protobuf' };
  const postProtobuf = (path: string, body: Buffer) => server.api.post(path, { token: setup.secretKey, body, headers: PROTOBUF });

  it('stores what the http/protobuf trace exporter sends exactly as the JSON exporter would: ids, kinds, attributes, events, status, nanosecond times', async () => {
    const start = BigInt(Date.now() - 5_000) * 1_000_000n;
    const spans = await recordedSpans((tracer) => {
      const root = tracer.startSpan('GET /proto', { kind: SpanKind.SERVER, startTime: [Number(start / 1_000_000_000n), Number(start % 1_000_000_000n)] });
      const child = tracer.startSpan('proto child', { attributes: { rows: 3, ratio: 0.25, cached: false, tags: ['a', 'b'] } }, trace.setSpan(context.active(), root));
      child.addEvent('retry', { attempt: 2 });
      child.setStatus({ code: SpanStatusCode.ERROR, message: 'upstream 502' });
      child.end();
      root.end([Number(start / 1_000_000_000n), Number((start % 1_000_000_000n) + 12_345_678n)]);
    });
    const exporter = new OTLPProtoTraceExporter({ url: `${server.url}${TRACES}`, headers: { Authorization: `Bearer ${setup.secretKey}` } });
    const result = await new Promise<{ code: number; error?: Error }>((resolve) => exporter.export(spans, resolve));
    expect(result).toEqual({ code: EXPORT_SUCCESS });

    const root = spans.find((span) => span.name === 'GET /proto')!;
    const rows = await gql(`from:spans trace_id:${root.spanContext().traceId} | sort timestamp asc, name asc | fields name, span_id, parent_span_id, kind, status, duration_ms, attributes, events`);
    expect(rows).toEqual([
      { name: 'GET /proto', span_id: root.spanContext().spanId, parent_span_id: null, kind: 'server', status: 'ok', duration_ms: 12.345, attributes: expect.any(Object), events: [] },
      {
        name: 'proto child',
        span_id: spans.find((span) => span.name === 'proto child')!.spanContext().spanId,
        parent_span_id: root.spanContext().spanId,
        kind: 'internal',
        status: 'error',
        duration_ms: expect.any(Number),
        attributes: expect.objectContaining({ rows: 3, ratio: 0.25, cached: false, tags: ['a', 'b'], 'otel.status_description': 'upstream 502' }),
        events: [{ name: 'retry', timestamp: expect.any(String), attributes: { attempt: 2 } }],
      },
    ]);
  });

  it('stores what the http/protobuf logs exporter sends, gzip-compressed', async () => {
    const exporter = new OTLPProtoLogExporter({ url: `${server.url}${LOGS}`, headers: { Authorization: `Bearer ${setup.secretKey}` }, compression: 'gzip' as never });
    const provider = new LoggerProvider({ resource: resourceFromAttributes({ 'service.name': 'ledger' }), processors: [new BatchLogRecordProcessor(exporter)] });
    const logger = provider.getLogger('ledger-logger');
    logger.emit({ severityNumber: 13 /* WARN */, body: 'proto sdk: balance low', attributes: { account: 'acc-9', cents: 120 } });
    logger.emit({ severityText: 'fatal', body: { event: 'proto sdk: halt', code: 7 } });
    await provider.forceFlush();
    await provider.shutdown();
    const rows = await gql('from:logs "proto sdk" | sort severity asc | fields severity, message, properties');
    expect(rows.map((row) => [row['severity'], row['message']])).toEqual([
      ['fatal', '{"event":"proto sdk: halt","code":7}'],
      ['warn', 'proto sdk: balance low'],
    ]);
    expect(rows[1]!['properties']).toMatchObject({ account: 'acc-9', cents: 120, 'service.name': 'ledger', 'otel.scope.name': 'ledger-logger' });
  });

  it('answers in protobuf, with partialSuccess naming a span rejected for its id', async () => {
    const nanos = BigInt(Date.now() - 1_000) * 1_000_000n;
    const span = (traceId: Buffer, name: string) => ({ traceId, spanId: Buffer.alloc(8, 7), name, startTimeUnixNano: nanos.toString(), endTimeUnixNano: (nanos + 1_000n).toString() });
    const body = Buffer.from(
      TraceRequest.encode(
        TraceRequest.fromObject({ resourceSpans: [{ scopeSpans: [{ spans: [span(Buffer.alloc(16, 9), 'kept proto span'), span(Buffer.alloc(15, 9), 'short id')] }] }] }),
      ).finish(),
    );
    const reply = await fetch(`${server.url}${TRACES}`, { method: 'POST', headers: { ...PROTOBUF, authorization: `Bearer ${setup.secretKey}` }, body });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toBe('application/x-protobuf');
    const answer = TraceResponse.toObject(TraceResponse.decode(Buffer.from(await reply.arrayBuffer())), { longs: Number });
    expect(answer).toEqual({ partialSuccess: { rejectedSpans: 1, errorMessage: '1 of 2 spans rejected: span 1: trace_id must be 32 hex digits, not all zero' } });
    expect(await gql(`from:spans trace_id:${'09'.repeat(16)} | fields name`)).toEqual([{ name: 'kept proto span' }]);
  });

  it('takes application/protobuf as well, and a span without a name (proto3 encoders leave it off the wire)', async () => {
    const nanos = BigInt(Date.now() - 1_000) * 1_000_000n;
    const body = Buffer.from(
      TraceRequest.encode(
        TraceRequest.fromObject({
          resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: Buffer.alloc(16, 0x0b), spanId: Buffer.alloc(8, 0x0c), startTimeUnixNano: nanos.toString(), endTimeUnixNano: (nanos + 5n).toString() }] }] }],
        }),
      ).finish(),
    );
    const reply = await server.api.post(TRACES, { token: setup.secretKey, body, headers: { 'content-type': 'application/protobuf' } });
    expect(reply.status).toBe(200);
    expect(reply.text).toBe('');
    expect(await gql(`from:spans trace_id:${'0b'.repeat(16)} | fields name, span_id`)).toEqual([{ name: '', span_id: '0c'.repeat(8) }]);
  });

  it('answers an empty protobuf request with an empty protobuf answer', async () => {
    const reply = await postProtobuf(TRACES, Buffer.alloc(0));
    expect(reply.status).toBe(200);
    expect(reply.text).toBe('');
  });

  it.each([
    [TRACES, 'ExportTraceServiceRequest'],
    [LOGS, 'ExportLogsServiceRequest'],
  ])('answers %s with 400 VALIDATION_ERROR for bytes that are not protobuf', async (path, message) => {
    const reply = await postProtobuf(path, Buffer.from('not protobuf at all'));
    expect(reply.status).toBe(400);
    expect(reply.body.error.code).toBe('VALIDATION_ERROR');
    expect(reply.body.error.message).toMatch(new RegExp(`^malformed OTLP ${message}: the body is not a protobuf ${message}: `));
  });
});
