import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import * as Sentry from '@sentry/node';
import { gqlRows, setupProject, startTestServer, type TestServer } from '@tlm/testkit';

let server: TestServer;
let setup: Awaited<ReturnType<typeof setupProject>>;

beforeAll(async () => {
  server = await startTestServer();
  setup = await setupProject(server.api);
  const host = new URL(server.url).host;
  Sentry.init({
    dsn: `http://${setup.publicKey}@${host}/${setup.project.dsn_id}`,
    tracesSampleRate: 1,
    release: 'shop@3.1.0',
    environment: 'staging',
    defaultIntegrations: false,
  });
});
afterAll(async () => {
  await Sentry.close(2_000);
  await server.close();
});

const gql = (q: string) => gqlRows(server.api, setup.secretKey, q);

/** A Sentry envelope: header line, then per item a header line and its JSON payload. */
function envelope(items: [Record<string, unknown>, unknown][], header: Record<string, unknown> = {}): string {
  const lines = [JSON.stringify(header)];
  for (const [itemHeader, payload] of items) lines.push(JSON.stringify(itemHeader), JSON.stringify(payload));
  return `${lines.join('\n')}\n`;
}

const sendEnvelope = (body: string, headers: Record<string, string> = {}, token = setup.publicKey) =>
  server.api.post('/v1/envelope', { token, body, headers: { 'content-type': 'application/x-sentry-envelope', ...headers } });

const traceIdOf = (span: Sentry.Span) => span.spanContext().traceId;

describe('Sentry transactions from @sentry/node', () => {
  it('stores the transaction and its child spans with op, name, attributes, release and environment', async () => {
    let traceId = '';
    let rootSpanId = '';
    await Sentry.startSpan({ name: 'GET /orders/:id', op: 'http.server', attributes: { 'http.route': '/orders/:id' } }, async (root) => {
      traceId = traceIdOf(root);
      rootSpanId = root.spanContext().spanId;
      Sentry.setTag('service', 'orders-api');
      await Sentry.startSpan({ name: 'SELECT * FROM orders', op: 'db.query', attributes: { 'db.rows': 3, 'db.system': 'postgresql' } }, async () => {
        await new Promise((resolve) => setTimeout(resolve, 20));
      });
      Sentry.startSpan({ name: 'render', op: 'template' }, () => undefined);
    });
    await Sentry.flush(5_000);

    // By name after the start: a span and its first child may start in the same millisecond.
    const spans = await gql(`from:spans trace_id:${traceId} | sort timestamp asc, name asc`);
    expect(spans.map((span) => [span['name'], span['op'], span['status']])).toEqual([
      ['GET /orders/:id', 'http.server', 'ok'],
      ['SELECT * FROM orders', 'db.query', 'ok'],
      ['render', 'template', 'ok'],
    ]);
    expect(spans[0]).toMatchObject({ span_id: rootSpanId, parent_span_id: null, release: 'shop@3.1.0', environment: 'staging', service: 'orders-api' });
    expect(spans[0]!['attributes']).toMatchObject({ 'http.route': '/orders/:id', service: 'orders-api' });
    expect(spans[1]).toMatchObject({ parent_span_id: rootSpanId, release: 'shop@3.1.0', environment: 'staging' });
    expect(spans[1]!['attributes']).toMatchObject({ 'db.rows': 3, 'db.system': 'postgresql' });
    expect(spans[1]!['duration_ms']).toBeGreaterThanOrEqual(15);
  });

  it('ends a span whose block raised with status error, and the transaction too when the error escapes it', async () => {
    let traceId = '';
    await expect(
      Sentry.startSpan({ name: 'POST /pay', op: 'http.server' }, async (root) => {
        traceId = traceIdOf(root);
        Sentry.startSpan({ name: 'charge', op: 'payment' }, () => {
          throw new Error('card declined');
        });
      }),
    ).rejects.toThrow('card declined');
    await Sentry.flush(5_000);
    // By name after the start: a span and its first child may start in the same millisecond.
    const spans = await gql(`from:spans trace_id:${traceId} | sort timestamp asc, name asc`);
    expect(spans.map((span) => [span['name'], span['status']])).toEqual([
      ['POST /pay', 'error'],
      ['charge', 'error'],
    ]);
  });

  it("turns a transaction's web vital measurements into vitals routed by the transaction name", async () => {
    let traceId = '';
    Sentry.startSpan({ name: '/measured', op: 'pageload' }, (root) => {
      traceId = traceIdOf(root);
      Sentry.setMeasurement('lcp', 3_100, 'millisecond');
      Sentry.setMeasurement('cls', 0.02, '');
      Sentry.setMeasurement('fp', 900, 'millisecond');
    });
    await Sentry.flush(5_000);
    const vitals = await gql(`from:vitals route:/measured | sort name asc`);
    expect(vitals.map((vital) => [vital['name'], vital['value'], vital['rating'], vital['trace_id'], vital['release']])).toEqual([
      ['cls', 0.02, 'good', traceId, 'shop@3.1.0'],
      ['lcp', 3100, 'needs-improvement', traceId, 'shop@3.1.0'],
    ]);
  });

  it('joins a Sentry service and an OpenTelemetry service that share a trace id into one trace', async () => {
    const exporter = new OTLPTraceExporter({ url: `${server.url}/v1/otlp/v1/traces`, headers: { Authorization: `Bearer ${setup.secretKey}` } });
    const provider = new BasicTracerProvider({ resource: resourceFromAttributes({ 'service.name': 'web' }), spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const tracer = provider.getTracer('web');
    const outgoing = tracer.startSpan('GET /api/stock');
    const { traceId, spanId } = outgoing.spanContext();
    // The API continues the trace from the incoming headers, as its HTTP integration would.
    await Sentry.continueTrace({ sentryTrace: `${traceId}-${spanId}-1`, baggage: undefined }, () =>
      Sentry.startSpan({ name: 'GET /api/stock', op: 'http.server', attributes: { 'service.name': 'stock-api' } }, () => undefined),
    );
    outgoing.end();
    await Promise.all([provider.forceFlush(), Sentry.flush(5_000)]);
    // Sorted by service, not time: the two spans start within a millisecond, each timed by its own SDK, so either can come first.
    const spans = await gql(`from:spans trace_id:${traceId} | sort service asc`);
    expect(spans.map((span) => [span['service'], span['parent_span_id']])).toEqual([
      ['stock-api', spanId],
      ['web', null],
    ]);
  });
});

describe('transaction items sent by hand', () => {
  const now = Date.now() / 1000;
  const transaction = (overrides: Record<string, unknown> = {}) => ({
    type: 'transaction',
    transaction: '/by-hand',
    start_timestamp: now - 2,
    timestamp: now - 1,
    contexts: { trace: { trace_id: 'aaaabbbbccccddddeeeeffff00001111', span_id: 'aaaabbbbccccdddd', op: 'navigation', status: 'ok' } },
    spans: [],
    ...overrides,
  });

  it('keeps the good child spans of a transaction and drops the bad ones', async () => {
    const reply = await sendEnvelope(
      envelope([
        [
          { type: 'transaction' },
          transaction({
            spans: [
              { span_id: '1000000000000001', parent_span_id: 'aaaabbbbccccdddd', op: 'http.client', description: 'GET /stock', start_timestamp: now - 2, timestamp: now - 1.5, status: 'not_found' },
              { span_id: 'bad', op: 'broken', start_timestamp: now - 2, timestamp: now - 1 },
              { span_id: '1000000000000003', op: 'unfinished', start_timestamp: now - 2 },
              { span_id: '1000000000000004', op: 'resource.script', start_timestamp: new Date((now - 2) * 1000).toISOString(), timestamp: new Date((now - 1) * 1000).toISOString() },
            ],
          }),
        ],
      ]),
    );
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ accepted: 1, rejected: 0 });
    const spans = await gql('from:spans trace_id:aaaabbbbccccddddeeeeffff00001111 | sort span_id asc');
    expect(spans.map((span) => [span['span_id'], span['name'], span['op'], span['status']])).toEqual([
      ['1000000000000001', 'GET /stock', 'http.client', 'error'],
      ['1000000000000004', 'resource.script', 'resource.script', 'ok'],
      ['aaaabbbbccccdddd', '/by-hand', 'navigation', 'ok'],
    ]);
    expect(spans[0]!['duration_ms']).toBe(500);
  });

  it('gives a transaction without a trace id the trace id of the traceparent header', async () => {
    const reply = await sendEnvelope(
      envelope([[{ type: 'transaction' }, transaction({ transaction: '/untraced', contexts: { trace: { span_id: 'bbbbccccddddeeee' } } })]]),
      { traceparent: '00-0123456789abcdef0123456789abcdef-00f067aa0ba902b7-01' },
    );
    expect(reply.body).toMatchObject({ accepted: 1, rejected: 0 });
    const [span] = await gql('from:spans trace_id:0123456789abcdef0123456789abcdef');
    expect(span).toMatchObject({ name: '/untraced', span_id: 'bbbbccccddddeeee' });
  });

  it('rejects a transaction whose own span is invalid, and keeps the items beside it', async () => {
    const reply = await sendEnvelope(
      envelope([
        [{ type: 'transaction' }, transaction({ contexts: {} })],
        [{ type: 'transaction' }, transaction({ contexts: { trace: { trace_id: 'cafe', span_id: 'aaaabbbbccccdddd' } } })],
        [{ type: 'transaction' }, transaction({ timestamp: now - 3 })],
        [{ type: 'transaction' }, transaction({ transaction: '/no-trace-id', contexts: { trace: { span_id: 'ccccddddeeeeffff' } } })],
        [{ type: 'transaction' }, transaction({ transaction: '/beside', contexts: { trace: { trace_id: 'ddddeeeeffff00001111222233334444', span_id: 'ddddeeeeffff0000' } } })],
      ]),
    );
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ accepted: 1, rejected: 4 });
    expect(await gql('from:spans name:/beside')).toHaveLength(1);
    expect(await gql('from:spans name:/no-trace-id')).toHaveLength(0);
  });
});

describe('span v2 items sent by hand', () => {
  const now = Date.now() / 1000;
  it('stores each span of a {version: 2, items} payload with typed attributes unwrapped, and rejects bad ones', async () => {
    const reply = await sendEnvelope(
      envelope([
        [
          { type: 'span', item_count: 3, content_type: 'application/vnd.sentry.items.span.v2+json' },
          {
            version: 2,
            items: [
              {
                trace_id: '6cf173d587eb48568a9b2e12dcfbea52',
                span_id: '438f40bd3b4a41ee',
                name: 'GET /users',
                status: 'ok',
                is_segment: true,
                start_timestamp: now - 1,
                end_timestamp: now - 0.9,
                attributes: {
                  'sentry.op': { type: 'string', value: 'http.server' },
                  'sentry.release': { type: 'string', value: '1.0.0' },
                  'sentry.environment': { type: 'string', value: 'local' },
                  'http.response.status_code': { type: 'integer', value: 200 },
                },
              },
              { trace_id: '6cf173d587eb48568a9b2e12dcfbea52', parent_span_id: '438f40bd3b4a41ee', span_id: 'f1196292f76e45c0', name: 'app.handle', status: 'error', is_segment: false, start_timestamp: now - 0.95, end_timestamp: now - 0.92 },
              { trace_id: '6cf173d587eb48568a9b2e12dcfbea52', span_id: 'nope', name: 'invalid', status: 'ok', start_timestamp: now - 1, end_timestamp: now },
            ],
          },
        ],
        [{ type: 'span' }, { version: 2, items: [{ span_id: 'zz' }] }],
        [{ type: 'span' }, { version: 2 }],
      ]),
    );
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ accepted: 1, rejected: 2 });
    const spans = await gql('from:spans trace_id:6cf173d587eb48568a9b2e12dcfbea52 | sort timestamp asc, name asc');
    expect(spans).toHaveLength(2);
    expect(spans[0]).toMatchObject({ name: 'GET /users', op: 'http.server', release: '1.0.0', environment: 'local', status: 'ok', parent_span_id: null });
    expect(spans[0]!['attributes']).toMatchObject({ 'http.response.status_code': 200, 'sentry.op': 'http.server' });
    expect(spans[0]!['duration_ms']).toBeCloseTo(100, 0);
    expect(spans[1]).toMatchObject({ name: 'app.handle', status: 'error', parent_span_id: '438f40bd3b4a41ee' });
  });
});

describe('web_vital items', () => {
  it('rates vitals by the published thresholds and answers p75 per route through GQL', async () => {
    const vital = (name: string, value: number, route: string) => [{ type: 'web_vital' }, { name, value, route }] as [Record<string, unknown>, unknown];
    const reply = await sendEnvelope(
      envelope([
        vital('lcp', 2_500, '/home'),
        vital('lcp', 2_501, '/home'),
        vital('lcp', 4_000, '/home'),
        vital('LCP', 4_001, '/home'),
        vital('lcp', 1_200, '/pricing'),
        vital('inp', 200, '/home'),
        vital('inp', 501, '/home'),
        vital('cls', 0.1, '/home'),
        vital('cls', 0.25, '/home'),
        vital('cls', 0.26, '/home'),
        vital('fcp', 1_801, '/home'),
        vital('ttfb', 1_801, '/home'),
        [{ type: 'web_vital' }, { items: [{ name: 'ttfb', value: 100, route: '/batch' }, { name: 'ttfb', value: 900, route: '/batch' }] }],
      ]),
      { 'user-agent': 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36' },
    );
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ accepted: 13, rejected: 0 });

    const ratings = await gql('from:vitals route:/home | fields name, value, rating | sort name asc, value asc | limit 50');
    expect(ratings.map((row) => [row['name'], row['value'], row['rating']])).toEqual([
      ['cls', 0.1, 'good'],
      ['cls', 0.25, 'needs-improvement'],
      ['cls', 0.26, 'poor'],
      ['fcp', 1801, 'needs-improvement'],
      ['inp', 200, 'good'],
      ['inp', 501, 'poor'],
      ['lcp', 2500, 'good'],
      ['lcp', 2501, 'needs-improvement'],
      ['lcp', 4000, 'needs-improvement'],
      ['lcp', 4001, 'poor'],
      ['ttfb', 1801, 'poor'],
    ]);
    // quantile_cont over 2500, 2501, 4000, 4001: the 75th percentile lies between 4000 and 4001.
    expect(await gql('from:vitals name:lcp route:[/home, /pricing] | p75(value) by route | sort route asc')).toEqual([
      { route: '/home', value: 4000.25 },
      { route: '/pricing', value: 1200 },
    ]);
    expect(await gql('from:vitals name:ttfb route:/batch | count by rating | sort rating asc')).toEqual([
      { rating: 'good', value: 1 },
      { rating: 'needs-improvement', value: 1 },
    ]);
    const [withClient] = await gql('from:vitals route:/pricing');
    expect(withClient!['properties']).toMatchObject({ $browser: 'Chrome', $os: 'Mac OS' });
  });

  it('gives vitals the trace id of the traceparent header', async () => {
    await sendEnvelope(envelope([[{ type: 'web_vital' }, { name: 'inp', value: 80, route: '/traced' }]]), {
      traceparent: '00-fedcba9876543210fedcba9876543210-00f067aa0ba902b7-01',
    });
    const [vital] = await gql('from:vitals route:/traced');
    expect(vital!['trace_id']).toBe('fedcba9876543210fedcba9876543210');
  });

  it('rejects invalid vitals one by one and keeps the valid ones beside them', async () => {
    const reply = await sendEnvelope(
      envelope([
        [{ type: 'web_vital' }, { name: 'fid', value: 10, route: '/bad' }],
        [{ type: 'web_vital' }, { name: 'lcp', value: -1, route: '/bad' }],
        [{ type: 'web_vital' }, { name: 'lcp', value: '1200', route: '/bad' }],
        [{ type: 'web_vital' }, { name: 'lcp', value: 1200 }],
        [{ type: 'web_vital' }, { name: 'lcp', value: 1200, route: '/good-beside-bad' }],
      ]),
    );
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ accepted: 1, rejected: 4 });
    expect(await gql('from:vitals route:/bad')).toEqual([]);
    expect(await gql('from:vitals route:/good-beside-bad')).toHaveLength(1);
  });
});
