import { gunzipSync } from 'node:zlib';
import { bundleForBrowser, eventually, gqlRows, launchChromium, screenshot, servePage, serverWithProject, type PageServer } from '@tlm/testkit';

// playwright-core is the testkit's dependency, not this service's: its types are taken from the testkit's functions.
type Browser = Awaited<ReturnType<typeof launchChromium>>;
type Page = Awaited<ReturnType<Browser['newPage']>>;

/**
 * The unmodified @sentry/browser 11, bundled into a shop's page on an origin of its own and run in Debian's headless
 * Chromium with tracing (streamed spans, its default), session replay and release health, as a new user sets it up.
 * One visit: the page loads, the visitor clicks, the layout shifts, an uncaught error is thrown, the SDK flushes and
 * the tab goes away. What the visit leaves is read back through GQL and the replay routes.
 */

const fixture = serverWithProject();
const RELEASE = `shop@${process.pid}.0.0`;

const PAGE_SCRIPT = (dsn: string) => `
import * as Sentry from '@sentry/browser';
Sentry.init({
  dsn: ${JSON.stringify(dsn)},
  release: ${JSON.stringify(RELEASE)},
  environment: 'production',
  integrations: [Sentry.browserTracingIntegration(), Sentry.replayIntegration({ maskAllText: false })],
  tracesSampleRate: 1,
  replaysSessionSampleRate: 1,
  replaysOnErrorSampleRate: 1,
});
(window as any).Sentry = Sentry;
`;

const PAGE = `<!doctype html><html><head><title>Checkout</title></head><body>
<h1>Checkout</h1><p id="basket">Your basket holds three items.</p><button id="pay">Pay</button>
<script src="/app.js"></script></body></html>`;

let browser: Browser;
let site: PageServer;
/** The SDK's envelopes and the answers they got, for a failing test's message. */
const exchanges: string[] = [];

async function visit(page: Page): Promise<void> {
  page.on('requestfinished', async (request) => {
    if (!request.url().includes('/envelope/')) return;
    // The tab may close while an answer is still being read: the answer is then only missing from the log below.
    const answer = await request
      .response()
      .then((response) => response?.text())
      .catch((error: Error) => `(answer unread: ${error.message})`);
    exchanges.push(`${request.postDataBuffer()?.toString('latin1').slice(0, 400)} → ${answer}`);
  });
  await page.goto(site.url);
  await page.getByRole('heading', { name: 'Checkout' }).waitFor();
  await page.waitForTimeout(1_500);
  await page.getByRole('button', { name: 'Pay' }).click();
  // A banner pushed in above the basket: a layout shift without recent input, so it counts towards CLS.
  await page.waitForTimeout(600);
  await page.evaluate(`document.getElementById('basket').insertAdjacentHTML('beforebegin', '<div style="height:240px">Free delivery today</div>')`);
  await page.evaluate(`setTimeout(() => { throw new Error('boom at checkout') })`);
  // Replay drops a first segment shorter than its minReplayDuration (5 s).
  await page.waitForTimeout(3_000);
  await screenshot(page, 'ingest-sentry-browser-checkout');
  await page.evaluate(`window.Sentry.getReplay().flush()`);
  await page.evaluate(`window.Sentry.flush(5000)`);
  await page.close({ runBeforeUnload: true });
}

beforeAll(async () => {
  browser = await launchChromium();
  const host = new URL(fixture.server.url).host;
  const dsn = `http://${fixture.setup.publicKey}@${host}/${fixture.setup.project.dsn_id}`;
  site = await servePage(PAGE, { '/app.js': await bundleForBrowser(PAGE_SCRIPT(dsn), __dirname) });
  const context = await browser.newContext();
  await visit(await context.newPage());
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  await context.close();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await site?.close();
});

const gql = (q: string) => gqlRows(fixture.server.api, fixture.setup.secretKey, q);
const read = (path: string) => fixture.server.api.get(path, { token: fixture.setup.secretKey });
/** Waits for `check`, and on a timeout names what the SDK sent and what it was answered. */
const awaitStored = <T>(check: () => Promise<T>) =>
  eventually(check, 10_000).catch((error) => {
    throw new Error(`${error}\n${exchanges.join('\n')}`);
  });

describe('@sentry/browser 11 in Chromium, from another origin', () => {
  it('ends the session that saw an uncaught error as unhandled with 1 error, counted errored and not crashed', async () => {
    const rows = await awaitStored(async () => {
      const found = await gql(`from:sessions release:${RELEASE} | last:1h`);
      expect(found).toHaveLength(1);
      expect(found[0]!['status']).toBe('unhandled');
      return found;
    });
    expect(rows[0]).toMatchObject({ status: 'unhandled', outcome: 'errored', errors: 1, quantity: 1, environment: 'production' });
    const outcomes = await gql(`from:sessions release:${RELEASE} | sum(quantity) by outcome | last:1h`);
    expect(outcomes).toEqual([{ outcome: 'errored', value: 1 }]);
  });

  it('keeps the replay readable: its session lists its chunks, and chunk 0 is the recording with a full snapshot', async () => {
    const started = Date.now() - 5 * 60_000;
    const [replay] = await awaitStored(async () => {
      const list = await read('/v1/replay/sessions');
      expect(list.status).toBe(200);
      expect(list.body.sessions).toHaveLength(1);
      expect(list.body.sessions[0].chunk_count).toBeGreaterThanOrEqual(1);
      return list.body.sessions as Record<string, any>[];
    });
    expect(replay).toMatchObject({ url: `${site.url}/`, properties: expect.objectContaining({ replay_type: 'session', release: RELEASE, sdk_name: 'sentry.javascript.browser' }) });
    const session = await read(`/v1/replay/sessions/${replay!['session_id']}`);
    expect(session.status).toBe(200);
    const [first] = session.body.chunks as Record<string, any>[];
    // The segment's times are this visit's, not 1970's: its custom events' seconds were read as seconds.
    expect(Date.parse(first!['start_ts'])).toBeGreaterThan(started);
    expect(Date.parse(first!['end_ts'])).toBeGreaterThanOrEqual(Date.parse(first!['start_ts']));
    const chunk = await read(`/v1/replay/sessions/${replay!['session_id']}/chunks/0`);
    expect(chunk.status).toBe(200);
    expect(chunk.headers.get('content-type')).toBe('application/gzip');
    const body = await fetch(`${fixture.server.url}/v1/replay/sessions/${replay!['session_id']}/chunks/0`, { headers: { authorization: `Bearer ${fixture.setup.secretKey}` } });
    const events = JSON.parse(gunzipSync(Buffer.from(await body.arrayBuffer())).toString('utf8')) as { type: number; timestamp: number }[];
    expect(events.length).toBe(first!['event_count']);
    expect(events.some((event) => event.type === 2)).toBe(true);
    // Sentry's custom events (type 5) count in seconds, and the page's navigation span among them starts the segment.
    expect(events.some((event) => event.type === 5 && event.timestamp < 1e11)).toBe(true);
    const earliest = Math.min(...events.map((event) => (event.timestamp < 1e11 ? event.timestamp * 1_000 : event.timestamp)));
    expect(earliest).toBeLessThan(Math.min(...events.filter((event) => event.type !== 5).map((event) => event.timestamp)));
    expect(Math.abs(Date.parse(first!['start_ts']) - earliest)).toBeLessThan(1);
  });

  it("makes the web vitals of the streamed pageload into vitals of the page's path, once each, and keeps the spans", async () => {
    const vitals = await awaitStored(async () => {
      const rows = await gql(`from:vitals release:${RELEASE} | sort name asc | last:1h`);
      expect(rows.map((row) => row['name'])).toEqual(expect.arrayContaining(['fcp', 'lcp', 'ttfb']));
      return rows;
    });
    const pageload = await gql(`from:spans op:pageload release:${RELEASE} | last:1h`);
    expect(pageload.map((span) => span['name'])).toEqual(['Pageload']);
    const ratings: Record<string, [number, number]> = { lcp: [2_500, 4_000], fcp: [1_800, 3_000], ttfb: [800, 1_800], cls: [0.1, 0.25], inp: [200, 500] };
    for (const vital of vitals) {
      const [good, poor] = ratings[vital['name']]!;
      expect(vital).toMatchObject({ route: '/', trace_id: pageload[0]!['trace_id'], environment: 'production' });
      expect(vital['rating']).toBe(vital['value'] <= good ? 'good' : vital['value'] <= poor ? 'needs-improvement' : 'poor');
    }
    // TTFB and FCP come as attributes of the pageload span, LCP (and CLS and INP, reported when the tab goes) as spans.
    const counts = Object.fromEntries(Object.keys(ratings).map((name) => [name, vitals.filter((vital) => vital['name'] === name).length]));
    expect(counts).toMatchObject({ lcp: 1, fcp: 1, ttfb: 1 });
    expect(counts['cls']).toBeLessThanOrEqual(1);
    expect(counts['inp']).toBeLessThanOrEqual(1);
    expect(await gql(`from:spans op:ui.webvital.lcp release:${RELEASE} | count | last:1h`)).toEqual([{ value: 1 }]);
  });
});
