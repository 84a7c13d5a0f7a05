import * as Sentry from '@sentry/node';
import { gqlRows, setupProject, startTestServer, type TestServer } from '@tlm/testkit';

// Current Sentry SDKs stream spans as span v2 envelope items (`traceLifecycle: 'stream'`) instead of transactions.
let server: TestServer;
let setup: Awaited<ReturnType<typeof setupProject>>;

beforeAll(async () => {
  server = await startTestServer();
  setup = await setupProject(server.api);
  const host = new URL(server.url).host;
  Sentry.init({
    dsn: `http://${setup.publicKey}@${host}/${setup.project.dsn_id}`,
    tracesSampleRate: 1,
    release: 'streamer@1.0.0',
    environment: 'production',
    traceLifecycle: 'stream',
    defaultIntegrations: false,
    integrations: [Sentry.spanStreamingIntegration()],
  });
});
afterAll(async () => {
  await Sentry.close(2_000);
  await server.close();
});

const gql = (q: string) => gqlRows(server.api, setup.secretKey, q);

/** Span v2 items the server accepted so far, from its Prometheus metrics. */
async function acceptedSpanItems(): Promise<number> {
  const metrics = await server.api.get('/metrics');
  const match = /tlm_envelope_items_total\{type="span",outcome="accepted"\} (\d+)/.exec(metrics.text);
  return match ? Number(match[1]) : 0;
}

describe('span v2 items from @sentry/node with traceLifecycle: stream', () => {
  it('stores the streamed spans of a trace with op, status, release, environment and parent links', async () => {
    const before = await acceptedSpanItems();
    let traceId = '';
    let rootSpanId = '';
    await expect(
      Sentry.startSpan({ name: 'GET /inventory', op: 'http.server', attributes: { 'http.route': '/inventory' } }, async (root) => {
        traceId = root.spanContext().traceId;
        rootSpanId = root.spanContext().spanId;
        await Sentry.startSpan({ name: 'SELECT stock', op: 'db', attributes: { 'db.rows': 7 } }, async () => {
          await new Promise((resolve) => setTimeout(resolve, 10));
        });
        Sentry.startSpan({ name: 'reserve', op: 'function' }, () => {
          throw new Error('out of stock');
        });
      }),
    ).rejects.toThrow('out of stock');
    await Sentry.flush(5_000);

    expect(await acceptedSpanItems()).toBeGreaterThan(before);
    // By name after the start: the root and its first child may start in the same millisecond.
    const spans = await gql(`from:spans trace_id:${traceId} | sort timestamp asc, name asc`);
    expect(spans.map((span) => [span['name'], span['op'], span['status'], span['parent_span_id']])).toEqual([
      ['GET /inventory', 'http.server', 'error', null],
      ['SELECT stock', 'db', 'ok', rootSpanId],
      ['reserve', 'function', 'error', rootSpanId],
    ]);
    for (const span of spans) expect(span).toMatchObject({ release: 'streamer@1.0.0', environment: 'production' });
    expect(spans[1]!['attributes']).toMatchObject({ 'db.rows': 7 });
    expect(spans[1]!['duration_ms']).toBeGreaterThanOrEqual(5);
  });
});
