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
    const answer = await (await request.response())?.text();
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
  await page.waitForTimeout(1_000);
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

describe('@sentry/browser 11 in Chromium, from another origin', () => {
  it('ends the session that saw an uncaught error as unhandled with 1 error, counted errored and not crashed', async () => {
    const rows = await eventually(async () => {
      const found = await gql(`from:sessions release:${RELEASE} | last:1h`);
      expect(found).toHaveLength(1);
      expect(found[0]!['status']).toBe('unhandled');
      return found;
    }, 10_000).catch((error) => {
      throw new Error(`${error}\n${exchanges.join('\n')}`);
    });
    expect(rows[0]).toMatchObject({ status: 'unhandled', outcome: 'errored', errors: 1, quantity: 1, environment: 'production' });
    const outcomes = await gql(`from:sessions release:${RELEASE} | sum(quantity) by outcome | last:1h`);
    expect(outcomes).toEqual([{ outcome: 'errored', value: 1 }]);
  });
});
