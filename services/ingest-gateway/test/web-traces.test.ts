import { existsSync } from 'node:fs';
import path from 'node:path';
import { SpanKind, SpanStatusCode, context, trace, type Context, type Span } from '@opentelemetry/api';
import { OTLPLogExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchLogRecordProcessor, LoggerProvider } from '@opentelemetry/sdk-logs';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { createProject, eventually, gqlRows, launchChromium, openWebApp, screenshot, setupProject, startTestServer, type ProjectSetup, type TestServer } from '@tlm/testkit';

/**
 * The web app's trace pages (services/web/src/pages/traces) in Chromium against the real standalone server, on a trace
 * sent by the unmodified OpenTelemetry SDK and its OTLP exporters: two services, four levels of spans, one span that
 * fails, and logs written inside the spans. (This test lives beside the OTLP tests because the OpenTelemetry packages
 * are this service's dev dependencies.)
 */

const DIST = path.resolve(__dirname, '../../web/dist/index.html');

type Browser = Awaited<ReturnType<typeof launchChromium>>;
type Page = Awaited<ReturnType<Browser['newPage']>>;

let server: TestServer;
let setup: ProjectSetup;
let browser: Browser;
let page: Page;
let traceId = '';
let slowTraceId = '';

/** Each span of the trace with its depth in the tree (0 for the root), in the order the waterfall lists them. */
const TREE: [name: string, depth: number][] = [
  ['POST /checkout', 0],
  ['SELECT cart', 1],
  ['POST /payments', 1],
  ['charge card', 2],
  ['fraud check', 3],
  ['send receipt', 1],
];

function providers(service: string) {
  const exporter = new OTLPTraceExporter({ url: `${server.url}/v1/otlp/v1/traces`, headers: { Authorization: `Bearer ${setup.secretKey}` } });
  const resource = resourceFromAttributes({ 'service.name': service, 'service.version': '3.1.0', 'deployment.environment.name': 'production' });
  const tracerProvider = new BasicTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(exporter)] });
  const logExporter = new OTLPLogExporter({ url: `${server.url}/v1/otlp/v1/logs`, headers: { Authorization: `Bearer ${setup.secretKey}` } });
  const loggerProvider = new LoggerProvider({ resource, processors: [new BatchLogRecordProcessor(logExporter)] });
  return {
    tracer: tracerProvider.getTracer(`${service}-instrumentation`, '1.0.0'),
    logger: loggerProvider.getLogger(`${service}-logger`),
    flush: async () => {
      await tracerProvider.forceFlush();
      await loggerProvider.forceFlush();
      await tracerProvider.shutdown();
      await loggerProvider.shutdown();
    },
  };
}

/** Sends the traces as two services would: checkout calls payments, which fails to charge the card. */
async function sendTraces(): Promise<void> {
  const checkout = providers('checkout');
  const payments = providers('payments');
  const t0 = Date.now() - 5_000;
  const at = (ms: number) => new Date(t0 + ms);
  const inside = (span: Span): Context => trace.setSpan(context.active(), span);

  const root = checkout.tracer.startSpan('POST /checkout', {
    kind: SpanKind.SERVER,
    startTime: at(0),
    attributes: { 'http.request.method': 'POST', 'http.route': '/checkout', 'http.response.status_code': 502 },
  });
  traceId = root.spanContext().traceId;
  checkout.logger.emit({ severityNumber: 9, severityText: 'INFO', body: 'checkout started for cart 42', timestamp: at(2), context: inside(root) });
  const cart = checkout.tracer.startSpan('SELECT cart', { kind: SpanKind.CLIENT, startTime: at(5), attributes: { 'db.system.name': 'postgresql' } }, inside(root));
  cart.end(at(35));
  const call = checkout.tracer.startSpan('POST /payments', { kind: SpanKind.CLIENT, startTime: at(40), attributes: { 'http.request.method': 'POST' } }, inside(root));
  const charge = payments.tracer.startSpan(
    'charge card',
    { kind: SpanKind.SERVER, startTime: at(50), attributes: { 'payment.amount': 12.5, 'payment.currency': 'EUR' } },
    inside(call),
  );
  const fraud = payments.tracer.startSpan('fraud check', { startTime: at(55), attributes: { 'fraud.score': 0.12 } }, inside(charge));
  fraud.addEvent('rules loaded', { rules: 14 }, at(60));
  fraud.end(at(95));
  const declined = new Error('card declined by bank');
  charge.recordException(declined, at(170));
  charge.setStatus({ code: SpanStatusCode.ERROR, message: 'card declined by bank' });
  payments.logger.emit({ severityNumber: 17, severityText: 'ERROR', body: 'Error: card declined by bank', timestamp: at(171), context: inside(charge) });
  charge.end(at(180));
  call.end(at(185));
  // The receipt goes out after the answer: the trace runs 30 ms past its root span.
  const receipt = checkout.tracer.startSpan('send receipt', { startTime: at(230) }, inside(root));
  root.end(at(240));
  receipt.end(at(270));

  const slow = checkout.tracer.startSpan('GET /slow-report', { kind: SpanKind.SERVER, startTime: at(1_000), attributes: { 'http.request.method': 'GET' } });
  slowTraceId = slow.spanContext().traceId;
  slow.setStatus({ code: SpanStatusCode.ERROR, message: 'timed out' });
  slow.end(at(1_900));

  await payments.flush();
  await checkout.flush();
}

beforeAll(async () => {
  if (!existsSync(DIST)) throw new Error(`the web app is not built (${DIST} is missing): run make build`);
  server = await startTestServer();
  setup = await setupProject(server.api);
  await sendTraces();
  // The error log written inside "charge card" becomes an error of the trace, grouped into an issue.
  await server.standalone.logScanner.runPass();
  browser = await launchChromium();
  ({ page } = await openWebApp(browser, server.url, setup.session.token));
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const base = () => `/orgs/${setup.session.organization.id}/projects/${setup.project.id}`;
const gql = (q: string) => gqlRows(server.api, setup.secretKey, q);

describe('traces in the web app', () => {
  it('stored every span of the trace and its logs', async () => {
    expect(await gql(`from:spans trace_id:'${traceId}' | count`)).toEqual([{ value: TREE.length }]);
    expect((await gql(`from:logs trace_id:'${traceId}' | count`))[0]!['value']).toBe(2);
    await eventually(async () => expect(await gql(`from:errors trace_id:'${traceId}' | count`)).toEqual([{ value: 1 }]), 10_000);
  });

  it('lists the traces by their root spans with span and error counts, and filters them with GQL conditions', async () => {
    await page.goto(`${base()}/traces`);
    const table = page.getByRole('table', { name: 'Traces' });
    const checkoutRow = table.getByRole('row').filter({ has: page.getByRole('link', { name: 'POST /checkout', exact: true }) });
    await checkoutRow.waitFor();
    // Root span, service, duration, spans, errors, start.
    await eventually(async () =>
      expect(await checkoutRow.getByRole('cell').allInnerTexts()).toEqual([
        expect.stringContaining('POST /checkout'),
        'checkout',
        '240 ms',
        String(TREE.length),
        '1',
        expect.stringMatching(/ago$/),
      ]),
    );
    await table.getByRole('link', { name: 'GET /slow-report' }).waitFor();
    await screenshot(page, 'traces-list');

    await page.getByLabel('Status', { exact: true }).selectOption('error');
    await page.getByLabel('GQL query of the list').getByText(/status:error/).waitFor();
    await table.getByRole('link', { name: 'POST /checkout', exact: true }).waitFor({ state: 'detached' });
    await table.getByRole('link', { name: 'GET /slow-report' }).waitFor();
    expect(new URL(page.url()).searchParams.get('status')).toBe('error');

    await page.getByLabel('Status', { exact: true }).selectOption('');
    await page.getByLabel('Min duration (ms)').fill('1000');
    await page.getByLabel('Name contains').fill('checkout');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByText('No traces match').waitFor();
    expect(await page.getByLabel('GQL query of the list').innerText()).toContain('"checkout" duration_ms >= 1000');
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await table.getByRole('link', { name: 'POST /checkout', exact: true }).waitFor();

    // Conditions on any span of the trace: the traces holding a matching span, listed by their root spans.
    await page.getByLabel('Conditions on', { exact: true }).selectOption('any');
    await page.getByLabel('Name contains').fill('fraud');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByLabel('GQL query of the list').getByText(/^from:spans "fraud" last:24h \| sort timestamp desc \| limit 1000 \| fields trace_id/).waitFor();
    await table.getByRole('link', { name: 'GET /slow-report' }).waitFor({ state: 'detached' });
    await table.getByRole('link', { name: 'POST /checkout', exact: true }).waitFor();
    await page.getByLabel('Name contains').fill('');
    await page.getByLabel('Status', { exact: true }).selectOption('error');
    await page.getByLabel('GQL query of the list').getByText(/^from:spans status:error last:24h \| sort timestamp desc \| limit 1000 \| fields trace_id/).waitFor();
    await table.getByRole('link', { name: 'GET /slow-report' }).waitFor();
    await table.getByRole('link', { name: 'POST /checkout', exact: true }).waitFor();
    await screenshot(page, 'traces-any-span');
    await page.getByLabel('Min duration (ms)').fill('5000');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByText('No traces match').waitFor();
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await table.getByRole('link', { name: 'POST /checkout', exact: true }).waitFor();
    expect(new URL(page.url()).search).toBe('');

    await checkoutRow.getByRole('cell').nth(2).click();
    await page.waitForURL(new RegExp(`/traces/${traceId}$`));
    expect(slowTraceId).not.toBe(traceId);
  });

  it('draws every span of the trace at its depth, indented under its parent, with the error span marked', async () => {
    await page.goto(`${base()}/traces/${traceId}`);
    const grid = page.getByRole('treegrid', { name: 'Spans of the trace' });
    await grid.waitFor();
    const rowOf = (name: string) => grid.getByRole('row').filter({ has: page.getByRole('button', { name, exact: true }) });
    const xs: number[] = [];
    for (const [name, depth] of TREE) {
      const row = rowOf(name);
      await row.getByRole('button', { name, exact: true }).waitFor();
      expect(await row.getAttribute('aria-level')).toBe(String(depth + 1));
      xs.push((await row.getByRole('button', { name, exact: true }).boundingBox())!.x);
    }
    // Each level is further right than its parent's, and siblings line up.
    const x = (name: string) => xs[TREE.findIndex(([candidate]) => candidate === name)]!;
    expect(x('SELECT cart')).toBeGreaterThan(x('POST /checkout'));
    expect(x('charge card')).toBeGreaterThan(x('POST /payments'));
    expect(x('fraud check')).toBeGreaterThan(x('charge card'));
    expect(x('send receipt')).toBe(x('SELECT cart'));
    // Rows come in tree order: children right after their parent.
    const order = await grid.getByRole('row').evaluateAll((rows) =>
      rows.slice(1).map((row) => [row.querySelector('button[aria-pressed]')?.textContent, Number(row.getAttribute('aria-level')) - 1]),
    );
    expect(order).toEqual(TREE);

    const failed = rowOf('charge card');
    expect(await failed.getAttribute('data-status')).toBe('error');
    await failed.getByText('error', { exact: true }).waitFor();
    const color = await failed.getByRole('button', { name: 'charge card', exact: true }).evaluate((element) => (globalThis as unknown as { getComputedStyle(node: unknown): { color: string } }).getComputedStyle(element).color);
    expect(color).toBe('rgb(194, 54, 43)');
    for (const [name] of TREE.filter(([name]) => name !== 'charge card')) {
      expect(await rowOf(name).getAttribute('data-status')).toBe('ok');
    }
    // The error from the error log links to its issue; both logs of the trace are beside the waterfall.
    const [error] = await gql(`from:errors trace_id:'${traceId}' | fields issue_id`);
    const errors = page.getByRole('list', { name: 'Errors of the trace' });
    const issueLink = errors.getByRole('link', { name: /card declined by bank/ });
    expect(await issueLink.getAttribute('href')).toBe(`${base()}/issues/${error!['issue_id']}`);
    const logs = page.getByRole('list', { name: 'Logs of the trace' });
    await logs.getByText('checkout started for cart 42').waitFor();
    await logs.getByText('Error: card declined by bank').waitFor();
    // The trace's duration runs to the receipt's end; the root span's, which the list shows, is given under it.
    const duration = page.locator('.trace-stats .stat').filter({ hasText: 'Duration' });
    expect(await duration.locator('dd').allInnerTexts()).toEqual(['270 ms', 'root span 240 ms']);
    await screenshot(page, 'trace-waterfall');
  });

  it("opens a span's attributes and events on click, and folds a span's children", async () => {
    const grid = page.getByRole('treegrid', { name: 'Spans of the trace' });
    await grid.getByRole('button', { name: 'charge card', exact: true }).click();
    const details = page.getByRole('region', { name: 'Span: charge card' });
    await details.waitFor();
    expect(new URL(page.url()).searchParams.get('span')).toMatch(/^[0-9a-f]{16}$/);
    const attributes = details.getByRole('definition').filter({ hasText: '12.5' });
    await attributes.first().waitFor();
    await details.getByText('payment.currency').waitFor();
    await details.getByText('otel.status_description').waitFor();
    await details.getByText('exception', { exact: true }).waitFor();
    await details.getByText('card declined by bank').first().waitFor();
    await screenshot(page, 'trace-span');

    await grid.getByRole('button', { name: 'Fold the 1 child of charge card' }).click();
    await grid.getByRole('button', { name: 'fraud check', exact: true }).waitFor({ state: 'detached' });
    expect(await grid.getByRole('row').filter({ has: page.getByRole('button', { name: 'charge card', exact: true }) }).getAttribute('aria-expanded')).toBe('false');
    await grid.getByRole('button', { name: 'Unfold the 1 child of charge card' }).click();
    await grid.getByRole('button', { name: 'fraud check', exact: true }).waitFor();

    // From the keyboard, as a tree: Left folds, Right unfolds and then moves to the first child, Left on a leaf goes to the parent.
    const focused = (name: string) =>
      grid.getByRole('button', { name, exact: true }).evaluate((element) => element === (globalThis as unknown as { document: { activeElement: unknown } }).document.activeElement);
    await grid.getByRole('button', { name: 'charge card', exact: true }).focus();
    await page.keyboard.press('ArrowLeft');
    await grid.getByRole('button', { name: 'fraud check', exact: true }).waitFor({ state: 'detached' });
    await page.keyboard.press('ArrowRight');
    await grid.getByRole('button', { name: 'fraud check', exact: true }).waitFor();
    await page.keyboard.press('ArrowRight');
    expect(await focused('fraud check')).toBe(true);
    await page.keyboard.press('ArrowDown');
    expect(await focused('send receipt')).toBe(true);
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('ArrowLeft');
    expect(await focused('charge card')).toBe(true);
    await page.keyboard.press('Home');
    expect(await focused('POST /checkout')).toBe(true);
  });

  it('lists each service with its operations: requests, error rate and p50/p95/p99, with a chart over the chosen range', async () => {
    await page.goto(`${base()}/services`);
    const checkout = page.getByRole('table', { name: 'Operations of checkout' });
    const payments = page.getByRole('table', { name: 'Operations of payments' });
    await checkout.waitFor();
    for (const name of ['POST /checkout', 'SELECT cart', 'POST /payments', 'send receipt', 'GET /slow-report']) {
      await checkout.getByRole('rowheader', { name }).waitFor();
    }
    for (const name of ['charge card', 'fraud check']) await payments.getByRole('rowheader', { name }).waitFor();
    const charge = payments.getByRole('row', { name: /charge card/ });
    // Requests, errors, error rate, p50, p95, p99.
    await eventually(async () => expect(await charge.getByRole('cell').allInnerTexts()).toEqual(['1', '1', '100%', '130 ms', '130 ms', '130 ms']));
    await page.getByRole('img', { name: /^Line chart: count by time\(1m\), service/ }).waitFor();
    await screenshot(page, 'services');

    await page.getByLabel('Time range', { exact: true }).selectOption('15m');
    await page.getByLabel('Chart', { exact: true }).selectOption('p95');
    await page.getByRole('img', { name: /^Line chart: p95\(duration_ms\) by time\(30s\), service/ }).waitFor();
    const search = new URL(page.url()).searchParams;
    expect([search.get('range'), search.get('chart')]).toEqual(['15m', 'p95']);

    await page.getByRole('button', { name: 'Chart this service' }).first().click();
    await page.getByRole('img', { name: /by time\(30s\), name/ }).waitFor();
    await checkout.getByRole('link', { name: 'POST /checkout' }).click();
    await page.waitForURL(/\/traces\?/);
    const filters = new URL(page.url()).searchParams;
    expect([filters.get('service'), filters.get('name'), filters.get('range')]).toEqual(['checkout', 'POST /checkout', '15m']);
    await page.getByRole('table', { name: 'Traces' }).getByRole('link', { name: 'POST /checkout', exact: true }).waitFor();
  });

  it('says what to do next when a project has no spans yet, and when a trace is not there', async () => {
    const empty = await createProject(server.api, setup.session, { name: 'no traces yet' });
    const emptyBase = `/orgs/${setup.session.organization.id}/projects/${empty.id}`;
    await page.goto(`${emptyBase}/traces`);
    await page.getByRole('heading', { name: 'No traces yet' }).waitFor();
    expect(await page.getByRole('link', { name: 'Set up OpenTelemetry' }).getAttribute('href')).toBe(`${emptyBase}/onboarding?sdk=opentelemetry`);
    await screenshot(page, 'traces-empty');
    await page.goto(`${emptyBase}/services`);
    await page.getByRole('heading', { name: 'No spans yet' }).waitFor();

    await page.goto(`${base()}/traces/${'0'.repeat(31)}1`);
    await page.getByRole('heading', { name: 'No spans for this trace' }).waitFor();
    await page.getByRole('link', { name: 'Browse traces' }).click();
    await page.getByRole('table', { name: 'Traces' }).getByRole('link', { name: 'POST /checkout', exact: true }).waitFor();
  });

  it('draws a trace of 1,500 spans 1,000 rows at a time', async () => {
    const bulk = providers('bulk');
    const t0 = Date.now() - 3_000;
    const root = bulk.tracer.startSpan('GET /export', { kind: SpanKind.SERVER, startTime: new Date(t0) });
    for (let n = 1; n < 1_500; n++) {
      bulk.tracer.startSpan(`row ${n}`, { startTime: new Date(t0 + n) }, trace.setSpan(context.active(), root)).end(new Date(t0 + n + 1));
    }
    root.end(new Date(t0 + 1_501));
    await bulk.flush();
    const bulkTrace = root.spanContext().traceId;
    await eventually(async () => expect(await gql(`from:spans trace_id:'${bulkTrace}' | count`)).toEqual([{ value: 1_500 }]));

    await page.goto(`${base()}/traces/${bulkTrace}`);
    const grid = page.getByRole('treegrid', { name: 'Spans of the trace' });
    await grid.getByText('Showing 1,000 of 1,500 spans.').waitFor();
    await grid.getByRole('button', { name: 'row 999', exact: true }).waitFor();
    expect(await grid.getByRole('button', { name: 'row 1000', exact: true }).count()).toBe(0);
    await grid.getByRole('button', { name: 'Show 500 more' }).click();
    await grid.getByRole('button', { name: 'row 1499', exact: true }).waitFor();
    expect(await grid.getByRole('row').filter({ has: page.getByRole('button', { name: 'row 1499', exact: true }) }).getAttribute('aria-level')).toBe('2');
  });
});
