import path from 'node:path';
import { bundleForBrowser, eventually, gqlRows, launchChromium, screenshot, servePage, serverWithProject, type PageServer } from '@tlm/testkit';

// Playwright's types through testkit, which depends on playwright-core.
type Browser = Awaited<ReturnType<typeof launchChromium>>;

const fixture = serverWithProject();
let browser: Browser;
let site: PageServer | undefined;

const SRC = path.resolve(__dirname, '../src');

/** A customer's page with the client's browser entry, configured from `window.TLM`. */
const PAGE_SCRIPT = `
import { BrowserClient } from './browser';
const { dsn } = (window as any).TLM;
const reported: string[] = ((window as any).tlmReported = []);
(window as any).tlm = new BrowserClient({
  dsn,
  useEnvelope: true,
  release: 'shop@3.0.0',
  environment: 'production',
  // Flushes are explicit in the test, so the last one is left to the pagehide beacon.
  flushInterval: 600,
  onError: (error) => reported.push(error.message),
});
`;

const HTML = (dsn: string) => `<!doctype html><html><head><title>Shop</title>
<script>window.TLM = ${JSON.stringify({ dsn })};</script></head>
<body><h1>Checkout</h1><p>Your basket holds three items.</p><button id="pay">Pay</button><script src="/app.js"></script></body></html>`;

/** Requests the Sentry envelope route (where the beacon goes) answered with 200, from the service's metrics. */
async function beaconsAnswered(): Promise<number> {
  const metrics = (await fixture.server.api.get('/metrics')).text;
  const line = metrics.split('\n').find((row) => row.startsWith('tlm_http_requests_total{') && row.includes('method="POST",route="/api/:dsn/envelope",status="200"'));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

const gql = (q: string) => gqlRows(fixture.server.api, fixture.setup.secretKey, q);

beforeAll(async () => {
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await site?.close();
});

describe('the browser entry point of @tlm/client', () => {
  it('bundles for browsers with no node: import', async () => {
    const bundle = await bundleForBrowser(`export * from './browser';`, SRC);
    expect(bundle).toContain('tlm.browser');
    expect(bundle).not.toMatch(/(?:from\s*|require\(|import\()["']node:/);
    // The Node entry is what cannot be bundled for browsers: it needs node:async_hooks and node:os.
    await expect(bundleForBrowser(`export * from './index';`, SRC)).rejects.toThrow(/node:async_hooks|node:os/);
  }, 60_000);

  it('captures uncaught errors and rejections with their sources and breadcrumbs, events with $session_id, web vitals, and the last batch by beacon on pagehide', async () => {
    const { server, setup } = fixture;
    const dsn = `http://${setup.publicKey}@${new URL(server.url).host}/${setup.project.dsn_id}`;
    site = await servePage(HTML(dsn), { '/app.js': await bundleForBrowser(PAGE_SCRIPT, SRC) });
    const context = await browser.newContext();
    const page = await context.newPage();
    // On the context: the beacon leaves as the page goes away, after the page stops reporting its requests.
    const toService: { url: string; type: string }[] = [];
    context.on('request', (request) => {
      if (request.url().startsWith(server.url)) toService.push({ url: request.url(), type: request.resourceType() });
    });
    const answers: number[] = [];
    context.on('response', (response) => {
      if (response.url() === `${server.url}/v1/envelope`) answers.push(response.status());
    });
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));

    await page.goto(site.url);
    await page.waitForFunction('window.tlm !== undefined');
    await page.click('#pay');
    await page.evaluate(`fetch(location.origin + '/prices').then((response) => response.status)`);
    await page.evaluate(`history.pushState({}, '', '/checkout')`);
    await page.evaluate(`console.warn('low stock', { sku: 'A-1' })`);
    await page.evaluate(`setTimeout(() => { throw new TypeError('checkout exploded'); })`);
    await page.evaluate(`Promise.reject(new RangeError('payment promise rejected')); undefined`);
    await page.waitForTimeout(200);
    await page.evaluate(`window.tlm.event('checkout viewed', { plan: 'pro' })`);
    await page.evaluate('window.tlm.flush()');
    const sessionId = (await page.evaluate('window.tlm.sessionId')) as string;
    expect(pageErrors).toEqual(['checkout exploded', 'payment promise rejected']);

    const errors = await eventually(async () => {
      const rows = await gql("from:errors release:'shop@3.0.0' | sort type asc | fields type, value, source, breadcrumbs, environment, tags");
      if (rows.length < 2) throw new Error(`${rows.length} errors so far`);
      return rows;
    });
    expect(errors.map((row) => [row['type'], row['value'], row['source']])).toEqual([
      ['RangeError', 'payment promise rejected', 'unhandledRejection'],
      ['TypeError', 'checkout exploded', 'window.onerror'],
    ]);
    expect(errors[1]!['tags']).toMatchObject({ session_id: sessionId });
    const crumbs = (errors[1]!['breadcrumbs'] as { category: string; message: string }[]).map((crumb) => `${crumb.category}: ${crumb.message}`);
    expect(crumbs).toEqual([
      'ui.click: button#pay "Pay"',
      `fetch: GET ${site.url}/prices [404]`,
      `navigation: ${site.url}/ -> ${site.url}/checkout`,
      'console: low stock {"sku":"A-1"}',
    ]);

    const [event] = await gql("from:events event_name:'checkout viewed' | fields distinct_id, properties");
    expect(event!['properties']).toMatchObject({ $session_id: sessionId, $sdk_name: 'tlm.browser', plan: 'pro', $pathname: '/checkout', $browser: 'Chrome Headless' });
    const vitals = await gql('from:vitals | fields name, route, rating');
    expect(vitals.map((row) => row['name'])).toEqual(expect.arrayContaining(['fcp', 'ttfb', 'lcp']));
    expect(vitals.find((row) => row['name'] === 'fcp')).toMatchObject({ route: '/' });

    // The last batch: queued, then the page goes away before any flush.
    const beaconsBefore = await beaconsAnswered();
    await page.evaluate(`window.tlm.event('left the shop', { step: 'pay' })`);
    await screenshot(page, 'client-browser-page');
    await page.goto('about:blank');
    const [left] = await eventually(async () => {
      const rows = await gql("from:events event_name:'left the shop' | fields properties");
      if (rows.length === 0) throw new Error('not stored yet');
      return rows;
    });
    expect(left!['properties']).toMatchObject({ $session_id: sessionId, step: 'pay' });
    const beacon = toService.find((request) => request.url.includes(`/api/${setup.project.dsn_id}/envelope/?sentry_key=`));
    // The beacon leaves after Playwright stops reporting the page's requests; the service's metrics count it (the
    // web vitals that web-vitals reports as the page hides may follow in a second one).
    expect(beacon).toBeUndefined();
    expect(await beaconsAnswered()).toBeGreaterThan(beaconsBefore);
    // Everything before went by fetch to /v1/envelope with the key as Bearer, and was accepted.
    expect(toService.filter((request) => request.type !== 'ping').map((request) => request.url)).toEqual(answers.map(() => `${server.url}/v1/envelope`));
    expect(answers.length).toBeGreaterThan(0);
    expect(answers.every((status) => status === 200)).toBe(true);
    await context.close();
  }, 90_000);
});
