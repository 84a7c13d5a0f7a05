import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { bundleForBrowser, eventually, launchChromium, openWebApp, screenshot, setupProject, startTestServer, type ProjectSetup, type TestServer } from '@tlm/testkit';

/**
 * The profile pages on real profiles: the unmodified @sentry/browser 11 with `browserProfilingIntegration()` (UI
 * profiling, manual lifecycle), bundled into a shop's page on an origin of its own, profiles a click on Pay in Debian's
 * headless Chromium through the JS Self-Profiling API, and sends the chunk as a `profile_chunk` envelope item. Two
 * visits with two releases give two chunks of two profilers. The web app lists them, filters them, draws one as a
 * flame graph in which the profiled function can be found and searched, and ranks it by self time.
 */

const DIST = path.resolve(__dirname, '../dist/index.html');
const RELEASES = [`shop@${process.pid}.1.0`, `shop@${process.pid}.2.0`];
/** The colour d3-flame-graph's search paints matching frames (pages/profiles/FlameGraph.tsx). */
const HIGHLIGHT = '#e600e6';

/** The SDK as a shop sets it up; the release comes from the page's address, so one page serves both releases. */
const SDK_SCRIPT = (dsn: string) => `
import * as Sentry from '@sentry/browser';
Sentry.init({
  dsn: ${JSON.stringify(dsn)},
  release: new URLSearchParams(location.search).get('release') ?? undefined,
  environment: 'production',
  integrations: [Sentry.browserProfilingIntegration()],
  profileSessionSampleRate: 1,
  profileLifecycle: 'manual',
});
(window as any).Sentry = Sentry;
`;

/** The shop's own code: paying adds up an invoice for 600 ms, with the profiler running around it. */
const APP_SCRIPT = `function computeInvoiceTotals(lines) {
  let total = 0;
  for (let line = 0; line < lines; line++) total += Math.sqrt(line) * 3.5 + (line % 7) / 100;
  return total;
}
function payInvoice() {
  const until = performance.now() + 600;
  let total = 0;
  while (performance.now() < until) total += computeInvoiceTotals(50000);
  document.getElementById('total').textContent = total.toFixed(2);
}
document.getElementById('pay').addEventListener('click', function () {
  window.Sentry.uiProfiler.startProfiler();
  payInvoice();
  window.Sentry.uiProfiler.stopProfiler();
});
`;

const PAGE = `<!doctype html><html><head><title>Shop</title></head><body>
<h1>Shop</h1><button id="pay">Pay</button> <output id="total"></output>
<script src="/sentry.js"></script><script src="/app.js"></script></body></html>`;

let server: TestServer;
let setup: ProjectSetup;
let browser: Browser;
let context: BrowserContext;
let app: Page;
let site: Server;
let siteUrl: string;

/**
 * The shop's origin. Unlike testkit's servePage it sends `Document-Policy: js-profiling`, without which Chromium
 * refuses to start the JS Self-Profiling API's Profiler.
 */
async function serveShop(files: Record<string, string>): Promise<Server> {
  const shop = createServer((req, res) => {
    const pathname = new URL(req.url ?? '/', 'http://shop').pathname;
    const body = files[pathname];
    if (body === undefined) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': pathname === '/' ? 'text/html; charset=utf-8' : 'text/javascript; charset=utf-8', 'document-policy': 'js-profiling' });
    res.end(body);
  });
  await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
  return shop;
}

interface ListedChunk {
  chunk_id: string;
  profiler_id: string;
  release: string | null;
  sample_count: number;
}

const listChunks = async (query = ''): Promise<ListedChunk[]> => {
  const reply = await server.api.get(`/v1/profiles/chunks${query}`, { token: setup.secretKey });
  expect(reply.status).toBe(200);
  return reply.body.chunks;
};
const profilesPath = () => `/orgs/${setup.session.organization.id}/projects/${setup.project.id}/profiles`;

/** One visit to the shop with a release: Pay is clicked with the profiler running, and the SDK sends the chunk. */
async function payWithProfiler(release: string): Promise<void> {
  const shop = await context.newPage();
  await shop.goto(`${siteUrl}/?release=${encodeURIComponent(release)}`);
  await shop.getByRole('heading', { name: 'Shop' }).waitFor();
  expect(await shop.evaluate('typeof window.Profiler')).toBe('function');
  await shop.getByRole('button', { name: 'Pay' }).click();
  await shop.locator('#total').filter({ hasText: /\d/ }).waitFor();
  await eventually(async () => expect((await listChunks(`?release=${encodeURIComponent(release)}`)).length).toBe(1), 15_000, 200);
  await shop.close();
}

beforeAll(async () => {
  if (!existsSync(DIST)) throw new Error(`the web app is not built (${DIST} is missing): run make build`);
  server = await startTestServer();
  setup = await setupProject(server.api);
  browser = await launchChromium();
  const dsn = `http://${setup.publicKey}@${new URL(server.url).host}/${setup.project.dsn_id}`;
  // The SDK as shipped, resolved from the ingest gateway's dependencies.
  const sdk = await bundleForBrowser(SDK_SCRIPT(dsn), path.resolve(__dirname, '../../ingest-gateway/test'));
  site = await serveShop({ '/': PAGE, '/sentry.js': sdk, '/app.js': APP_SCRIPT });
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  ({ context, page: app } = await openWebApp(browser, server.url, setup.session.token));
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => (site ? site.close(resolve) : resolve(undefined)));
  await server?.close();
});

describe('the profile pages on chunks from @sentry/browser', () => {
  it('says there are no profiles yet, how to send them, and links to the setup page', async () => {
    await app.goto(profilesPath());
    await app.getByRole('heading', { name: 'No profiles yet' }).waitFor();
    await app.getByText('browserProfilingIntegration()').waitFor();
    await app.getByText('POST /v1/profiles/chunks?profiler_id=…').waitFor();
    await screenshot(app, 'profiles-empty');
    await app.getByRole('link', { name: 'Set up the project' }).click();
    await app.waitForURL(/\/onboarding$/);
  });

  it('lists the chunks the SDK sent from two visits, with their releases, and filters them by release and profiler in the URL', async () => {
    for (const release of RELEASES) await payWithProfiler(release);
    const stored = await listChunks();
    expect(stored.map((chunk) => chunk.release)).toEqual([RELEASES[1], RELEASES[0]]);
    expect(new Set(stored.map((chunk) => chunk.profiler_id)).size).toBe(2);
    const [second, first] = stored as [ListedChunk, ListedChunk];

    await app.goto(profilesPath());
    const table = app.getByRole('table', { name: 'Profile chunks, newest first' });
    const row = (release: string) => table.getByRole('row').filter({ hasText: release });
    await row(RELEASES[0]!).waitFor();
    await row(RELEASES[1]!).waitFor();
    await row(RELEASES[0]!).getByRole('cell', { name: 'javascript' }).waitFor();
    await row(RELEASES[0]!).getByRole('cell', { name: 'production' }).waitFor();
    await row(RELEASES[0]!).getByRole('cell', { name: String(first.sample_count), exact: true }).waitFor();
    await row(RELEASES[0]!).getByRole('cell', { name: first.profiler_id.slice(0, 8) + '…' }).waitFor();
    // About 600 ms of profiling, however the samples fell.
    expect(await row(RELEASES[0]!).getByRole('cell', { name: / ms$| s$/ }).first().textContent()).toMatch(/^\d[\d,.]* (ms|s)$/);
    await screenshot(app, 'profiles-list');

    await app.getByLabel('Release').selectOption(RELEASES[1]!);
    await row(RELEASES[0]!).waitFor({ state: 'detached' });
    await row(RELEASES[1]!).waitFor();
    expect(new URL(app.url()).searchParams.get('release')).toBe(RELEASES[1]);

    await app.getByLabel('Release').selectOption('');
    await app.getByLabel('Profiler').selectOption(first.profiler_id);
    await row(RELEASES[1]!).waitFor({ state: 'detached' });
    await row(RELEASES[0]!).waitFor();
    expect(Object.fromEntries(new URL(app.url()).searchParams)).toEqual({ profiler: first.profiler_id });

    await app.getByLabel('Release').selectOption(RELEASES[1]!);
    await app.getByRole('heading', { name: 'No chunks match these filters' }).waitFor();
    await app.getByRole('button', { name: 'Show every chunk' }).click();
    await row(RELEASES[0]!).waitFor();
    await row(RELEASES[1]!).waitFor();
    expect(second.release).toBe(RELEASES[1]);
  });

  it('draws a chunk as a flame graph with the profiled function, searches it, zooms by mouse and keyboard and ranks it by self time', async () => {
    const table = app.getByRole('table', { name: 'Profile chunks, newest first' });
    await table.getByRole('row').filter({ hasText: RELEASES[0]! }).getByRole('link').click();
    await app.getByRole('heading', { level: 1, name: /Profile chunk/ }).waitFor();
    const stats = app.locator('dl').filter({ hasText: 'Profiler' });
    await stats.getByText(RELEASES[0]!).waitFor();
    await stats.getByText('javascript', { exact: true }).waitFor();
    await app.getByText('Sent by sentry.javascript.browser 11.12.0').waitFor();
    await app.getByLabel('Thread').getByRole('option', { name: /^main \(\d+ samples\)$/, selected: true }).waitFor({ state: 'attached' });

    const flame = app.getByRole('group', { name: /^Flame graph of thread main/ });
    await flame.getByText('computeInvoiceTotals', { exact: true }).waitFor();
    await flame.getByText('payInvoice', { exact: true }).waitFor();
    const frame = flame.locator('g[name="computeInvoiceTotals"]');
    expect(await frame.locator('title').textContent()).toMatch(/^computeInvoiceTotals \(http:\/\/127\.0\.0\.1:\d+\/app\.js:1\): \d+ samples, [\d.]+%, .*, in-app$/);

    await app.getByLabel('Search functions').fill('computeInvoice');
    await app.getByRole('status').filter({ hasText: /frames? match/ }).waitFor();
    expect(await app.getByRole('status').filter({ hasText: /frames? match/ }).textContent()).toMatch(/^1 frame matches: \d+ of \d+ samples/);
    await eventually(async () => expect(await frame.locator('rect').getAttribute('fill')).toBe(HIGHLIGHT));
    expect(await flame.locator('g[name="payInvoice"] rect').getAttribute('fill')).not.toBe(HIGHLIGHT);
    expect(new URL(app.url()).searchParams.get('search')).toBe('computeInvoice');

    const top = app.getByRole('table', { name: 'Top functions by self time' });
    const topRow = top.getByRole('row').filter({ has: app.getByRole('button', { name: 'computeInvoiceTotals', exact: true }) });
    await topRow.waitFor();
    await topRow.getByText(/app\.js:1$/).waitFor();
    // The profiled loop is where the time went: it is the first of the functions by self time.
    expect(await top.getByRole('row').nth(1).getByRole('button').textContent()).toBe('computeInvoiceTotals');
    await screenshot(app, 'profiles-chunk');

    // Zoom into the caller with a click (the library's click-to-zoom) and back out with Reset zoom.
    const reset = app.getByRole('button', { name: 'Reset zoom' });
    expect(await reset.isDisabled()).toBe(true);
    await flame.getByRole('button', { name: /^payInvoice \(/ }).click();
    await eventually(async () => expect(await reset.isEnabled()).toBe(true));
    await screenshot(app, 'profiles-chunk-zoomed');
    await reset.click();
    await eventually(async () => expect(await reset.isDisabled()).toBe(true));

    // The same from the keyboard: Tab reaches the graph at its root, the arrows move between frames, Enter zooms and
    // Escape zooms out.
    const focusedFrame = () => app.evaluate(() => document.activeElement?.getAttribute('aria-label'));
    await app.getByLabel('Search functions').focus();
    await app.keyboard.press('Tab');
    expect(await focusedFrame()).toMatch(/^main: \d+ samples, 100%/);
    await flame.getByRole('button', { name: /^payInvoice \(/ }).focus();
    await app.keyboard.press('ArrowUp');
    expect(await focusedFrame()).toMatch(/^computeInvoiceTotals \(/);
    await app.keyboard.press('Enter');
    await eventually(async () => expect(await reset.isEnabled()).toBe(true));
    await app.keyboard.press('Escape');
    await eventually(async () => expect(await reset.isDisabled()).toBe(true));

    // A function from the table is searched for: the flame graph highlights it.
    await app.getByLabel('Search functions').fill('');
    await eventually(async () => expect(await frame.locator('rect').getAttribute('fill')).not.toBe(HIGHLIGHT));
    await topRow.getByRole('button', { name: 'computeInvoiceTotals' }).click();
    expect(await app.getByLabel('Search functions').inputValue()).toBe('computeInvoiceTotals');
    await eventually(async () => expect(await frame.locator('rect').getAttribute('fill')).toBe(HIGHLIGHT));
  });

  it('says a chunk in another profiler\'s format cannot be drawn, and links to its raw body', async () => {
    const body = { format: 'pprof-json', samples: [{ stack: ['main', 'handle'], value: 3 }] };
    const sent = await server.api.post('/v1/profiles/chunks?profiler_id=go-worker&platform=go&release=worker%401.0', {
      token: setup.secretKey,
      body: JSON.stringify(body),
      headers: { 'content-type': 'application/json' },
    });
    expect(sent.status).toBe(202);
    const chunkId = sent.body.chunk_id as string;
    await app.goto(`${profilesPath()}/${chunkId}`);
    await app.getByRole('heading', { name: 'This profile format cannot be drawn' }).waitFor();
    await app.getByText('the body names no format version').waitFor();
    const raw = app.getByRole('link', { name: 'download the raw body', exact: true });
    const href = await raw.getAttribute('href');
    expect(href).toBe(`/api/orgs/${setup.session.organization.id}/projects/${setup.project.id}/profiles/chunks/${chunkId}`);
    const download = await app.request.get(href!);
    expect(download.status()).toBe(200);
    expect(await download.json()).toEqual(body);
    await screenshot(app, 'profiles-unreadable');
  });

  it('answers a chunk that is not there with a page that says so and a way back', async () => {
    await app.goto(`${profilesPath()}/no-such-chunk`);
    await app.getByRole('heading', { name: 'No such profile' }).waitFor();
    await app.getByText("No profile chunk no-such-chunk is stored in this project inside its plan's retention.").waitFor();
    expect(await app.getByText('NOT_FOUND').count()).toBe(0);
    // No body to download either.
    expect(await app.getByRole('link', { name: 'Download the raw body' }).count()).toBe(0);
    await screenshot(app, 'profiles-missing');
    await app.getByRole('link', { name: 'All profiles' }).click();
    await app.getByRole('heading', { level: 1, name: 'Profiles' }).waitFor();
  });
});
