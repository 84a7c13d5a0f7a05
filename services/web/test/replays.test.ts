import { existsSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { bundleForBrowser, eventually, gqlRows, launchChromium, openWebApp, screenshot, servePage, setupProject, startTestServer, type PageServer, type ProjectSetup, type TestServer } from '@tlm/testkit';

/**
 * Replays in the web app, recorded by real clients in Debian's headless Chromium: the project's own browser client
 * (packages/client, `replay: true`, rrweb's record) on a garden shop's page, and the unmodified @sentry/browser with
 * its replay integration on a checkout page. Each page is visited, clicked and made to throw; the web app then lists
 * both replays, and rrweb's Replayer rebuilds each page in the player, the later state after a seek to the end.
 */

const DIST = path.resolve(__dirname, '../dist/index.html');
const CLIENT_SRC = path.resolve(__dirname, '../../../packages/client/src');
const SENTRY_DIR = path.resolve(__dirname, '../../ingest-gateway/test');
const RELEASE = `garden@${process.pid}.1.0`;

const CLIENT_SCRIPT = `
import { BrowserClient } from './browser';
const { apiKey, endpoint } = (window as any).TLM;
(window as any).tlm = new BrowserClient({ apiKey, endpoint, useEnvelope: true, release: ${JSON.stringify(RELEASE)}, distinctId: 'shopper-9', replay: true });
document.getElementById('buy')!.addEventListener('click', () => {
  document.getElementById('offer')!.insertAdjacentHTML('afterend', '<p id="thanks">Thank you for your order</p>');
  throw new TypeError('the seed packet is out of stock');
});
`;

const CLIENT_PAGE = (apiKey: string, endpoint: string) => `<!doctype html><html><head><title>Garden shop</title>
<script>window.TLM = ${JSON.stringify({ apiKey, endpoint })};</script></head>
<body style="font-family: sans-serif"><h1 id="title">Garden shop</h1><p id="offer">Tomato seeds at half price this week.</p>
<button id="buy">Buy seeds</button><script src="/app.js"></script></body></html>`;

/** The same client given the project's DSN, so the last chunk of a leaving page goes by beacon. */
const LEAVING_SCRIPT = `
import { BrowserClient } from './browser';
(window as any).tlm = new BrowserClient({ dsn: (window as any).TLM.dsn, useEnvelope: true, distinctId: 'leaver-1', replay: true, flushInterval: 60 });
`;

const LEAVING_PAGE = (dsn: string) => `<!doctype html><html><head><title>Seeds</title>
<script>window.TLM = ${JSON.stringify({ dsn })};</script></head>
<body><h1>Seed catalogue</h1><input id="search" value=""><script src="/app.js"></script></body></html>`;

const SENTRY_SCRIPT = (dsn: string) => `
import * as Sentry from '@sentry/browser';
Sentry.init({
  dsn: ${JSON.stringify(dsn)},
  release: 'checkout@1.0.0',
  integrations: [Sentry.browserTracingIntegration(), Sentry.replayIntegration({ maskAllText: false })],
  tracesSampleRate: 1,
  replaysSessionSampleRate: 1,
});
Sentry.setUser({ id: 'buyer-3' });
(window as any).Sentry = Sentry;
document.getElementById('pay')!.addEventListener('click', () => {
  document.getElementById('basket')!.textContent = 'Paying for three items…';
});
`;

const SENTRY_PAGE = `<!doctype html><html><head><title>Checkout</title></head><body style="font-family: sans-serif">
<h1 id="checkout">Checkout</h1><p id="basket">Your basket holds three items.</p><button id="pay">Pay</button>
<script src="/app.js"></script></body></html>`;

let server: TestServer;
let setup: ProjectSetup;
let browser: Browser;
let app: Page;
let gardenSite: PageServer;
let checkoutSite: PageServer;
/** The replay ids the two visits recorded, as the server lists them. */
let gardenReplay: string;
let checkoutReplay: string;

const gql = (q: string) => gqlRows(server.api, setup.secretKey, q);
const projectPage = (rest: string) => `/orgs/${setup.session.organization.id}/projects/${setup.project.id}/${rest}`;

async function visitGarden(page: Page): Promise<void> {
  await page.goto(gardenSite.url);
  await page.waitForFunction('window.tlm !== undefined');
  await page.waitForTimeout(800);
  await page.click('#buy');
  await page.getByText('Thank you for your order').waitFor();
  await page.waitForTimeout(800);
  await page.evaluate('window.tlm.flush()');
  await page.close();
}

async function visitCheckout(page: Page): Promise<void> {
  await page.goto(checkoutSite.url);
  await page.getByRole('heading', { name: 'Checkout' }).waitFor();
  await page.waitForTimeout(1_500);
  await page.click('#pay');
  await page.evaluate(`setTimeout(() => { throw new Error('the card reader went away') })`);
  // The SDK drops a first segment shorter than its minReplayDuration (5 s).
  await page.waitForTimeout(4_000);
  await page.evaluate('window.Sentry.getReplay().flush()');
  await page.evaluate('window.Sentry.flush(5000)');
  await page.close();
}

beforeAll(async () => {
  if (!existsSync(DIST)) throw new Error(`the web app is not built (${DIST} is missing): run make build`);
  server = await startTestServer();
  setup = await setupProject(server.api);
  browser = await launchChromium();
  const host = new URL(server.url).host;
  gardenSite = await servePage(CLIENT_PAGE(setup.publicKey, server.url), { '/app.js': await bundleForBrowser(CLIENT_SCRIPT, CLIENT_SRC) });
  const dsn = `http://${setup.publicKey}@${host}/${setup.project.dsn_id}`;
  checkoutSite = await servePage(SENTRY_PAGE, { '/app.js': await bundleForBrowser(SENTRY_SCRIPT(dsn), SENTRY_DIR) });
  const visitors = await browser.newContext({ viewport: { width: 1000, height: 640 } });
  await Promise.all([visitGarden(await visitors.newPage()), visitCheckout(await visitors.newPage())]);
  await visitors.close();

  // Both recordings stored with their chunks, and the garden shop's error linked to its replay.
  const sessions = await eventually(
    async () => {
      const reply = await server.api.get('/v1/replay/sessions', { token: setup.secretKey });
      const list = reply.body.sessions as { session_id: string; distinct_id: string | null; chunk_count: number }[];
      const garden = list.find((session) => session.distinct_id === 'shopper-9');
      const checkout = list.find((session) => session.distinct_id === 'buyer-3');
      if (!garden?.chunk_count || !checkout?.chunk_count) throw new Error(`replays so far: ${JSON.stringify(list)}`);
      return { garden: garden.session_id, checkout: checkout.session_id };
    },
    20_000,
    200,
  );
  gardenReplay = sessions.garden;
  checkoutReplay = sessions.checkout;
  await eventually(
    async () =>
      expect(await gql(`from:errors extra.contexts.replay.replay_id:"${gardenReplay}" tags.replayId:"${gardenReplay}" | fields type, value`)).toEqual([
        { type: 'TypeError', value: 'the seed packet is out of stock' },
      ]),
    15_000,
    200,
  );

  ({ page: app } = await openWebApp(browser, server.url, setup.session.token));
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await gardenSite?.close();
  await checkoutSite?.close();
  await server?.close();
});

/** The recorded page as the player rebuilt it: the document inside the Replayer's iframe. */
const replayed = () => app.frameLocator('[data-testid="replay-frame"] iframe');

describe('the replays pages', () => {
  it("lists both replays with their user, first URL, duration and the garden shop's one error", async () => {
    await app.goto(projectPage('replays'));
    const table = app.getByRole('table', { name: 'Replays' });
    const garden = table.getByRole('row', { name: /shopper-9/ });
    const checkout = table.getByRole('row', { name: /buyer-3/ });
    await garden.waitFor();
    await checkout.waitFor();
    await garden.getByText(`${gardenSite.url}/`).waitFor();
    await checkout.getByText(`${checkoutSite.url}/`).waitFor();
    // The error count comes with its own query and shows "…" until it answers.
    await eventually(async () => expect(await garden.getByRole('cell').nth(4).textContent()).toBe('1'));
    await expect(garden.getByRole('cell').nth(3).textContent()).resolves.toMatch(/^\d+(\.\d+)? (ms|s)$/);
    await app.getByText('2 replays, newest first').waitFor();
    await screenshot(app, 'replays-list');
  });

  it("plays the project's own client's recording: rrweb rebuilds the page, and a seek to the end shows what the click added", async () => {
    await app.getByRole('link', { name: 'shopper-9' }).click();
    await app.getByRole('heading', { name: 'Replay', exact: true }).waitFor();
    await replayed().locator('#title').getByText('Garden shop').waitFor();
    await replayed().locator('#offer').getByText('Tomato seeds at half price this week.').waitFor();
    expect(await replayed().locator('#thanks').count()).toBe(0);
    // The click and the error it threw are marked on the timeline; the error is listed with its issue.
    const marks = app.getByLabel('Clicks and errors on the timeline');
    await marks.getByRole('button', { name: /^Click at \d+:\d\d$/ }).first().waitFor();
    await marks.getByRole('button', { name: /^Error at \d+:\d\d$/ }).waitFor();
    await app.getByRole('region', { name: 'Errors during the replay' }).getByRole('link', { name: /TypeError: the seed packet is out of stock/ }).waitFor();

    const seek = app.getByRole('slider', { name: 'Seek' });
    await seek.focus();
    await app.keyboard.press('End');
    await replayed().locator('#thanks').getByText('Thank you for your order').waitFor();
    await screenshot(app, 'replay-player');
    // On a phone the timeline has a line of its own, nearly the screen's width, to seek with.
    await app.setViewportSize({ width: 390, height: 844 });
    expect((await seek.boundingBox())!.width).toBeGreaterThan(300);
    await screenshot(app, 'phone-replay-player');
    await app.setViewportSize({ width: 1360, height: 900 });

    // Back to the start, then play at double speed: the clock moves and ends at the replay's length.
    await app.keyboard.press('Home');
    await replayed().locator('#thanks').waitFor({ state: 'detached' });
    await app.getByRole('combobox', { name: 'Speed' }).selectOption('2');
    await app.getByRole('button', { name: 'Play', exact: true }).click();
    await app.getByRole('button', { name: 'Pause', exact: true }).waitFor();
    await app.getByRole('button', { name: 'Play', exact: true }).waitFor({ timeout: 15_000 });
    const [position, length] = (await app.getByLabel('Position').textContent())!.split(' / ');
    expect(position).toBe(length);
    await replayed().locator('#thanks').waitFor();
  });

  it('opens the replay from the issue page of the error it recorded, at the moment of the error', async () => {
    await app.goto(projectPage('issues'));
    await app.getByRole('link', { name: /TypeError: the seed packet is out of stock/ }).click();
    await app.getByRole('link', { name: 'Watch the replay at this error' }).click();
    await app.waitForURL(new RegExp(`/replays/${gardenReplay}\\?at=`));
    await replayed().locator('#title').waitFor();
  });

  it('plays what @sentry/browser recorded, and the trace of its error links to the replay', async () => {
    await app.goto(projectPage(`replays/${checkoutReplay}`));
    await replayed().locator('#checkout').getByText('Checkout').waitFor();
    await app.getByRole('slider', { name: 'Seek' }).focus();
    await app.keyboard.press('End');
    await replayed().getByText('Paying for three items…').waitFor();
    // Sentry writes some custom events in seconds: the replay still lasts seconds, not decades.
    expect(await app.getByLabel('Position').textContent()).toMatch(/^0:\d\d \/ 0:\d\d$/);
    await screenshot(app, 'replay-player-sentry');

    const [error] = await eventually(async () => {
      const rows = await gql(`from:errors value:"the card reader went away" | fields trace_id, tags.replayId`);
      if (rows.length === 0) throw new Error('the error is not stored yet');
      return rows;
    }, 15_000, 200);
    expect(error!['tags.replayId']).toBe(checkoutReplay);
    await app.goto(projectPage(`traces/${error!['trace_id']}`));
    await app.getByRole('link', { name: 'Watch the replay' }).click();
    await app.waitForURL(new RegExp(`/replays/${checkoutReplay}`));
    await replayed().locator('#checkout').waitFor();
  });

  it('goes on with the next chunk after a reload of the tab, and sends the last chunk of a leaving page by beacon', async () => {
    const dsn = `http://${setup.publicKey}@${new URL(server.url).host}/${setup.project.dsn_id}`;
    const site = await servePage(LEAVING_PAGE(dsn), { '/app.js': await bundleForBrowser(LEAVING_SCRIPT, CLIENT_SRC) });
    const visitor = await browser.newContext();
    try {
      const page = await visitor.newPage();
      await page.goto(site.url);
      await page.waitForFunction('window.tlm !== undefined');
      await page.fill('#search', 'tomato');
      await page.evaluate('window.tlm.flush()');
      await page.reload();
      await page.waitForFunction('window.tlm !== undefined');
      await page.fill('#search', 'basil');
      const replayId = await page.evaluate('window.tlm.replayId');
      // Leaving: the second page's recording has not been flushed; only the beacon can carry it.
      await page.goto('about:blank');
      // Chunks of both pages, numbered on from one page to the next; the second page's input came by beacon.
      const seqs = await eventually(
        async () => {
          const reply = await server.api.get(`/v1/replay/sessions/${replayId}`, { token: setup.secretKey });
          const numbers = ((reply.body.chunks ?? []) as { seq: number }[]).map((chunk) => chunk.seq);
          const inputs = [];
          for (const seq of numbers) {
            const body = await fetch(`${server.url}/v1/replay/sessions/${replayId}/chunks/${seq}`, { headers: { authorization: `Bearer ${setup.secretKey}` } });
            const events = JSON.parse(gunzipSync(Buffer.from(await body.arrayBuffer())).toString()) as { type: number; data?: { source?: number; text?: string } }[];
            inputs.push(...events.filter((event) => event.type === 3 && event.data?.source === 5).map((event) => event.data!.text));
          }
          if (!inputs.includes('*****')) throw new Error(`chunks ${JSON.stringify(numbers)} hold the inputs ${JSON.stringify(inputs)}`);
          expect(inputs).not.toContain('tomato');
          return numbers;
        },
        15_000,
        200,
      );
      expect(seqs).toEqual(seqs.map((_, index) => index));
      expect(seqs.length).toBeGreaterThanOrEqual(2);
      // Inputs are masked: the replayed page holds asterisks, never what was typed.
      await app.goto(projectPage(`replays/${replayId}`));
      await replayed().locator('#search').waitFor({ state: 'attached' });
      await app.getByText('loading more…').waitFor({ state: 'detached' });
      await app.getByRole('slider', { name: 'Seek' }).focus();
      await app.keyboard.press('End');
      await eventually(async () => expect(await replayed().locator('#search').inputValue()).toBe('*****'), 10_000, 100);
    } finally {
      await visitor.close();
      await site.close();
    }
  });

  it('says so for a replay that is not there', async () => {
    await app.goto(projectPage('replays/no-such-replay'));
    await app.getByRole('heading', { name: 'No such replay' }).waitFor();
  });
});
