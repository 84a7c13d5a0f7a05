import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import {
  bundleForBrowser,
  createKey,
  createProject,
  eventually,
  gqlRows,
  launchChromium,
  openWebApp,
  screenshot,
  servePage,
  setupProject,
  startTestServer,
  type PageServer,
  type ProjectSetup,
  type TestServer,
} from '@tlm/testkit';
import { VITAL_THRESHOLDS as SERVER_THRESHOLDS } from '../../../packages/signals/src/vitals';
import { formatVital, RATINGS, rateVital, VITAL_NAMES, VITAL_THRESHOLDS, VITALS, type VitalName, type VitalRating } from '../src/pages/vitals/thresholds';

/**
 * Web vitals in the web app, sent by a real page: the project's own browser client (packages/client/src/browser.ts,
 * with web-vitals) is bundled into a shop's page on another origin and loaded in Debian's headless Chromium, which
 * reports FCP, TTFB and LCP; leaving the page flushes the rest by beacon. The vitals page then shows each route's p75
 * and its rating exactly as GQL computes them.
 */

const DIST = path.resolve(__dirname, '../dist/index.html');
const CLIENT_SRC = path.resolve(__dirname, '../../../packages/client/src');

const PAGE_SCRIPT = `
import { BrowserClient } from './browser';
const { dsn } = (window as any).TLM;
(window as any).tlm = new BrowserClient({ dsn, useEnvelope: true, release: 'shop@2.0.0', environment: 'production', flushInterval: 600 });
`;

const HTML = (dsn: string) => `<!doctype html><html><head><title>Shop</title>
<script>window.TLM = ${JSON.stringify({ dsn })};</script></head>
<body><h1>Shop</h1><p>Three items, one basket, a button to pay.</p><img alt="" width="400" height="120" src="data:image/svg+xml;utf8,<svg xmlns='http://www.w3.org/2000/svg' width='400' height='120'><rect width='400' height='120' fill='%23ddd'/></svg>"><button id="pay">Pay</button><script src="/app.js"></script></body></html>`;

/** What the checkout route measures on each visit, sent with the client's own `vital()` (ms; CLS unitless). */
const CHECKOUT: [VitalName, number[]][] = [
  ['lcp', [2_100, 3_300, 4_800]],
  ['inp', [120, 260, 640]],
  ['cls', [0.02, 0.18, 0.31]],
];

let server: TestServer;
let setup: ProjectSetup;
let browser: Browser;
let context: BrowserContext;
let app: Page;
let site: PageServer;

const gql = (q: string) => gqlRows(server.api, setup.secretKey, q);
const projectPage = (projectId: string, rest: string) => `/orgs/${setup.session.organization.id}/projects/${projectId}/${rest}`;
const normalise = (text: string | null) => (text ?? '').replace(/\s+/g, ' ').trim();

beforeAll(async () => {
  if (!existsSync(DIST)) throw new Error(`the web app is not built (${DIST} is missing): run make build`);
  server = await startTestServer();
  setup = await setupProject(server.api);
  browser = await launchChromium();
  const dsn = `http://${setup.publicKey}@${new URL(server.url).host}/${setup.project.dsn_id}`;
  site = await servePage(HTML(dsn), { '/app.js': await bundleForBrowser(PAGE_SCRIPT, CLIENT_SRC) });
  ({ context, page: app } = await openWebApp(browser, server.url, setup.session.token));
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await site?.close();
  await server?.close();
});

/** The table row of a route on the vitals page. */
const routeRow = (route: string) => app.getByRole('row').filter({ has: app.getByRole('rowheader', { name: route, exact: true }) });

describe('the web vitals page', () => {
  it('rates a p75 with the thresholds the server rates each vital with', () => {
    expect(VITAL_THRESHOLDS).toEqual(SERVER_THRESHOLDS);
  });

  it('says there are no vitals yet and links to the setup page', async () => {
    await app.goto(projectPage(setup.project.id, 'vitals'));
    await app.getByRole('heading', { name: 'No vitals yet' }).waitFor();
    await app.getByText(/^Add the browser client/).waitFor();
    await screenshot(app, 'vitals-empty');
    await app.getByRole('link', { name: 'Set up the project' }).click();
    await app.waitForURL(/\/onboarding/);
  });

  it('shows the p75 and ratings of vitals that web-vitals sent from a page in Chromium, as GQL computes them', async () => {
    const visits = 3;
    for (let visit = 0; visit < visits; visit++) {
      const page = await context.newPage();
      await page.goto(site.url);
      await page.waitForFunction('window.tlm !== undefined');
      // An input ends the LCP candidate search, so web-vitals reports LCP; FCP and TTFB come with the load.
      await page.click('#pay');
      for (const [name, values] of CHECKOUT) await page.evaluate(`window.tlm.vital(${JSON.stringify(name)}, ${values[visit]}, '/checkout')`);
      await page.waitForTimeout(300);
      // Leaving: pagehide and the hidden state flush what is queued by beacon.
      await page.goto('about:blank');
      await page.close();
    }
    const stored = await eventually(async () => {
      const rows = await gql("from:vitals | count by route, name | last:1h");
      const samples = (route: string, name: string) => Number(rows.find((row) => row['route'] === route && row['name'] === name)?.['value'] ?? 0);
      // CLS is reported as the page hides, in the beacon.
      for (const name of ['fcp', 'ttfb', 'lcp', 'cls']) if (samples('/', name) < visits) throw new Error(`${samples('/', name)} ${name} on / so far`);
      for (const [name] of CHECKOUT) if (samples('/checkout', name) < visits) throw new Error(`${samples('/checkout', name)} ${name} on /checkout so far`);
      return rows;
    }, 20_000, 200);
    expect(stored.length).toBeGreaterThanOrEqual(7);
    // Nothing more is on its way: the counts hold still for two checks a second apart. INP is not awaited above (a
    // visit reports it only for an interaction it measured), and its beacon can come late on a busy machine.
    const byGroup = (rows: Record<string, any>[]) => rows.map((row) => `${row['route']} ${row['name']} ${row['value']}`).sort();
    let counts = byGroup(stored);
    for (let still = 0; still < 2; ) {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const now = byGroup(await gql('from:vitals | count by route, name | last:1h'));
      still = now.join('\n') === counts.join('\n') ? still + 1 : 0;
      counts = now;
    }

    const p75Rows = await gql('from:vitals | p75(value) by route, name | last:24h');
    const ratingRows = await gql('from:vitals | count by route, name, rating | last:24h');
    const p75 = (route: string, name: VitalName) => p75Rows.find((row) => row['route'] === route && row['name'] === name)?.['value'] as number | undefined;
    const samples = (route: string, name: VitalName, rating: VitalRating) =>
      Number(ratingRows.find((row) => row['route'] === route && row['name'] === name && row['rating'] === rating)?.['value'] ?? 0);

    await app.goto(projectPage(setup.project.id, 'vitals'));
    await routeRow('/').waitFor();
    await routeRow('/checkout').waitFor();
    for (const route of ['/', '/checkout']) {
      const cells = routeRow(route).getByRole('cell');
      for (const [index, name] of VITAL_NAMES.entries()) {
        const value = p75(route, name);
        const text = normalise(await cells.nth(index).textContent());
        if (value === undefined) {
          expect(text).toBe('no samples');
          continue;
        }
        const rating = rateVital(name, value);
        expect(text).toBe(`${formatVital(name, value)} ${RATINGS[rating].label}`);
        const counts = { good: samples(route, name, 'good'), 'needs-improvement': samples(route, name, 'needs-improvement'), poor: samples(route, name, 'poor') };
        const total = counts.good + counts['needs-improvement'] + counts.poor;
        const share = (count: number) => `${Math.round((count / total) * 100)}%`;
        const bar = `${VITALS[name].short}: ${share(counts.good)} good, ${share(counts['needs-improvement'])} needs improvement, ${share(counts.poor)} poor (${total} ${total === 1 ? 'sample' : 'samples'})`;
        await cells.nth(index).getByRole('img', { name: bar, exact: true }).waitFor();
      }
    }
    // The page's own load was measured on / and rated by the server: FCP, TTFB and LCP are there.
    for (const name of ['fcp', 'ttfb', 'lcp'] as const) expect(p75('/', name)).toBeGreaterThan(0);
    // The checkout's values are known: p75 of 2100, 3300 and 4800 ms (interpolated) is 4050 ms, which is poor.
    expect(p75('/checkout', 'lcp')).toBe(4_050);
    expect(normalise(await routeRow('/checkout').getByRole('cell').nth(0).textContent())).toBe('4,050 ms poor');
    expect(normalise(await routeRow('/checkout').getByRole('cell').nth(2).textContent())).toBe('0.245 needs improvement');
    await screenshot(app, 'vitals-routes');
  }, 120_000);

  it('draws the trend of the chosen vital and route, kept in the URL with the time range', async () => {
    await app.goto(projectPage(setup.project.id, 'vitals'));
    await routeRow('/checkout').getByRole('link', { name: '/checkout' }).click();
    await app.waitForURL(/route=%2Fcheckout/);
    await app.getByLabel('Vital', { exact: true }).selectOption('inp');
    await app.waitForURL(/vital=inp/);
    await app.getByLabel('Time range').selectOption('7d');
    await app.waitForURL(/range=7d/);
    await app.reload();
    const chart = app.getByRole('img', { name: /^Line chart: p75 of INP on \/checkout by time\(3h\), 1 bucket with samples$/ });
    await chart.waitFor();
    expect(await app.getByLabel('Route', { exact: true }).inputValue()).toBe('/checkout');
    expect(await app.getByLabel('Time range').inputValue()).toBe('7d');
    await screenshot(app, 'vitals-trend');
    // An hour in minutes is too many buckets for a point at each; the one with samples is still drawn as a point.
    await app.getByLabel('Time range').selectOption('1h');
    await app.getByRole('img', { name: /^Line chart: p75 of INP on \/checkout by time\(1m\), 1 bucket with samples$/ }).waitFor();
    await screenshot(app, 'vitals-trend-1h');
  });
});

describe('the web vitals page, when the range holds none of the project\'s vitals', () => {
  it('says so and widens the range to 30 days in one click', async () => {
    const project = await createProject(server.api, setup.session, { name: 'older vitals' });
    const key = await createKey(server.api, setup.session, project.id, { type: 'public' });
    const twoDaysAgo = new Date(Date.now() - 2 * 86_400_000).toISOString();
    const body = [JSON.stringify({}), JSON.stringify({ type: 'web_vital' }), JSON.stringify({ name: 'lcp', value: 1_800, route: '/archive', timestamp: twoDaysAgo })].join('\n');
    const reply = await server.api.post('/v1/envelope', { token: key.key, body, headers: { 'content-type': 'application/x-sentry-envelope' } });
    expect(reply.body).toMatchObject({ accepted: 1, rejected: 0 });
    await eventually(async () => {
      const answer = await server.api.get(`/api${projectPage(project.id, 'gql')}?q=${encodeURIComponent('from:vitals | count')}`, { token: setup.session.token });
      expect(answer.body.data.results).toEqual([{ value: 1 }]);
    });
    await app.goto(`${projectPage(project.id, 'vitals')}?range=24h`);
    await app.getByRole('heading', { name: 'No vitals in the last 24 hours' }).waitFor();
    await app.getByRole('button', { name: 'Last 30 days' }).click();
    await app.waitForURL(/range=30d/);
    expect(normalise(await routeRow('/archive').getByRole('cell').nth(0).textContent())).toBe('1,800 ms good');
  });
});

/** A Sentry envelope of `session` and `sessions` items, as SDKs send release health. */
const envelope = (items: [string, unknown][]) =>
  [JSON.stringify({ sent_at: new Date().toISOString() }), ...items.flatMap(([type, payload]) => [JSON.stringify({ type }), JSON.stringify(payload)])].join('\n');

describe('the releases page', () => {
  it('says there are no sessions yet and links to the setup page', async () => {
    await app.goto(projectPage(setup.project.id, 'releases'));
    await app.getByRole('heading', { name: 'No sessions yet' }).waitFor();
    await app.getByRole('link', { name: 'Set up the project' }).waitFor();
  });

  it('shows crash-free sessions and users per release as GQL computes them from sessions sent in envelopes, and adoption over time', async () => {
    const now = Date.now();
    const at = (minutesAgo: number) => new Date(now - minutesAgo * 60_000).toISOString();
    const session = (sid: string, did: string, release: string, minutesAgo: number, status: string, errors = 0) =>
      ['session', { sid, did, init: true, started: at(minutesAgo), timestamp: at(minutesAgo - 1), status, errors, duration: 60, attrs: { release, environment: 'production' } }] as [string, unknown];
    const body = envelope([
      session('00000000-0000-4000-8000-00000000a001', 'u1', 'shop@1.0.0', 300, 'ok'),
      session('00000000-0000-4000-8000-00000000a002', 'u2', 'shop@1.0.0', 240, 'exited'),
      session('00000000-0000-4000-8000-00000000a003', 'u3', 'shop@1.0.0', 240, 'ok', 1),
      session('00000000-0000-4000-8000-00000000a004', 'u4', 'shop@1.0.0', 60, 'crashed', 1),
      session('00000000-0000-4000-8000-00000000b001', 'u1', 'shop@1.1.0', 120, 'exited'),
      session('00000000-0000-4000-8000-00000000b002', 'u2', 'shop@1.1.0', 60, 'crashed', 1),
      session('00000000-0000-4000-8000-00000000b003', 'u2', 'shop@1.1.0', 60, 'ok'),
      session('00000000-0000-4000-8000-00000000b004', 'u5', 'shop@1.1.0', 5, 'ok'),
      session('00000000-0000-4000-8000-00000000b005', 'u6', 'shop@1.1.0', 10, 'ok'),
      ['sessions', { aggregates: [{ started: at(30), did: 'u7', exited: 3, crashed: 1 }], attrs: { release: 'shop@1.1.0', environment: 'production' } }],
    ]);
    const reply = await server.api.post('/v1/envelope', { token: setup.publicKey, body, headers: { 'content-type': 'application/x-sentry-envelope' } });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ accepted: 10, rejected: 0 });

    const outcomes = await eventually(async () => {
      const rows = await gql('from:sessions | sum(quantity) by release, outcome | last:24h');
      if (rows.reduce((sum, row) => sum + Number(row['value']), 0) < 13) throw new Error('not stored yet');
      return rows;
    }, 10_000, 100);
    const users = await gql('from:sessions | count_distinct(distinct_id) by release | last:24h');
    const crashedUsers = await gql('from:sessions outcome:crashed | count_distinct(distinct_id) by release | last:24h');
    const sum = (release: string, outcome?: string) =>
      outcomes.filter((row) => row['release'] === release && (outcome === undefined || row['outcome'] === outcome)).reduce((total, row) => total + Number(row['value']), 0);
    const valueOf = (rows: Record<string, any>[], release: string) => Number(rows.find((row) => row['release'] === release)?.['value'] ?? 0);
    const percent = new Intl.NumberFormat('en-US', { style: 'percent', maximumFractionDigits: 2 });

    await app.goto(projectPage(setup.project.id, 'releases'));
    const expected: Record<string, [string, string]> = { 'shop@1.0.0': ['75%', '75%'], 'shop@1.1.0': ['77.78%', '60%'] };
    for (const release of ['shop@1.0.0', 'shop@1.1.0']) {
      const row = app.getByRole('row').filter({ has: app.getByRole('rowheader', { name: release, exact: true }) });
      await row.waitFor();
      const cells = row.getByRole('cell');
      const crashFreeSessions = percent.format(1 - sum(release, 'crashed') / sum(release));
      const crashFreeUsers = percent.format(1 - valueOf(crashedUsers, release) / valueOf(users, release));
      expect([crashFreeSessions, crashFreeUsers]).toEqual(expected[release]);
      expect(normalise(await cells.nth(0).textContent())).toBe(crashFreeSessions);
      expect(normalise(await cells.nth(1).textContent())).toBe(crashFreeUsers);
      expect(normalise(await cells.nth(2).textContent())).toBe(String(sum(release)));
      expect(normalise(await cells.nth(4).textContent())).toBe(String(sum(release, 'crashed')));
      expect(normalise(await cells.nth(5).textContent())).toBe(String(valueOf(users, release)));
    }
    await app.getByRole('meter', { name: 'Adoption of shop@1.1.0' }).waitFor();
    expect(await app.getByRole('meter', { name: 'Adoption of shop@1.1.0' }).getAttribute('aria-valuetext')).toBe('69.2% of sessions');
    await app.getByRole('img', { name: /^Line chart: share of sessions per release by time\(30m\), in percent, 2 releases$/ }).waitFor();
    await screenshot(app, 'releases');
  });
});
