import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import {
  bundleForBrowser,
  createKey,
  createProject,
  eventually,
  gqlRows,
  launchChromium,
  openWebApp,
  PYTHON_TRACEBACK,
  screenshot,
  servePage,
  setupProject,
  startTestServer,
  type PageServer,
  type ProjectSetup,
  type TestServer,
} from '@tlm/testkit';

/**
 * The issue pages on real errors: the unmodified @sentry/browser, bundled into a shop's page on an origin of its own,
 * throws two different errors in headless Chromium from the shop's script, whose source map the release holds; the web
 * app lists both issues, shows one's stack trace (original and minified) and breadcrumbs, and resolves the other with
 * one click, which GQL then reads back as resolved.
 */

const RELEASE = `shop@${process.pid}.1.0`;

const SDK_SCRIPT = (dsn: string) => `
import * as Sentry from '@sentry/browser';
Sentry.init({ dsn: ${JSON.stringify(dsn)}, release: ${JSON.stringify(RELEASE)}, environment: 'production' });
Sentry.setUser({ id: 'customer-7', email: 'customer-7@example.com' });
Sentry.setTag('shop', 'eu-west');
(window as any).Sentry = Sentry;
`;

/** The shop's own code, served as /app.js; the release's source map maps it back to src/shop.js. */
const APP_SCRIPT = `function chargeCard(amount) {
  console.log('charging the card', amount);
  throw new TypeError('card declined at checkout');
}
function payOrder() {
  chargeCard(42);
}
function addToBasket() {
  throw new RangeError('the basket holds at most 20 items');
}
document.getElementById('pay').addEventListener('click', function () { payOrder(); });
document.getElementById('add').addEventListener('click', function () { addToBasket(); });
`;

/** A version 3 source map from each line of /app.js to the same line of src/shop.js, whose text it holds. */
const APP_MAP = {
  version: 3,
  file: 'app.js',
  sources: ['src/shop.js'],
  sourcesContent: [APP_SCRIPT],
  names: [],
  mappings: APP_SCRIPT.split('\n').map((_, index) => (index === 0 ? 'AAAA' : 'AACA')).join(';'),
};

const PAGE = `<!doctype html><html><head><title>Shop</title></head><body>
<h1>Shop</h1><button id="add">Add to basket</button><button id="pay">Pay</button>
<script src="/sentry.js"></script><script src="/app.js"></script></body></html>`;

let server: TestServer;
let setup: ProjectSetup;
let site: PageServer;
let browser: Browser;
let page: Page;

const PAY_TITLE = /TypeError: card declined at checkout/;
const BASKET_TITLE = /RangeError: the basket holds at most 20 items/;

beforeAll(async () => {
  server = await startTestServer();
  setup = await setupProject(server.api);
  browser = await launchChromium();

  // The customer's site: the SDK as shipped, resolved from the ingest gateway's dependencies.
  const dsn = `http://${setup.publicKey}@${new URL(server.url).host}/${setup.project.dsn_id}`;
  const sdk = await bundleForBrowser(SDK_SCRIPT(dsn), path.resolve(__dirname, '../../ingest-gateway/test'));
  site = await servePage(PAGE, { '/sentry.js': sdk, '/app.js': APP_SCRIPT });
  const upload = await server.api.put('/v1/artifacts', { token: setup.secretKey, body: { release: RELEASE, name: '~/app.js', content: APP_MAP } });
  expect(upload.status).toBe(201);
  const shop = await browser.newPage();
  await shop.goto(site.url);
  await shop.getByRole('heading', { name: 'Shop' }).waitFor();
  // The basket error twice, the other between them (the SDK drops an error equal to the one just before it).
  await shop.getByRole('button', { name: 'Add to basket' }).click();
  await shop.getByRole('button', { name: 'Pay' }).click();
  await shop.getByRole('button', { name: 'Add to basket' }).click();
  await shop.evaluate('window.Sentry.flush(5000)');
  await shop.close();

  // Both errors grouped into issues before the web app is opened.
  await eventually(
    async () => {
      expect(await gqlRows(server.api, setup.secretKey, 'from:issues status:unresolved | sort event_count desc | fields event_count')).toEqual([{ event_count: 2 }, { event_count: 1 }]);
    },
    15_000,
    200,
  );

  ({ page } = await openWebApp(browser, server.url, setup.session.token));
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await site?.close();
  await server?.close();
});

const issuesPath = () => `/orgs/${setup.session.organization.id}/projects/${setup.project.id}/issues`;

describe('the issue pages on errors from @sentry/browser', () => {
  it('lists both issues with their counts, releases and a sparkline of the last 24 hours', async () => {
    await page.goto(issuesPath());
    const table = page.getByRole('table', { name: 'Unresolved issues' });
    const pay = table.getByRole('row', { name: PAY_TITLE });
    const basket = table.getByRole('row', { name: BASKET_TITLE });
    await pay.waitFor();
    await basket.waitFor();
    await expect(page.getByRole('tab', { name: 'Unresolved', exact: true }).getAttribute('aria-selected')).resolves.toBe('true');
    // The status tabs are one stop of Tab; the arrows choose, and come back round.
    expect(await page.getByRole('tab').evaluateAll((tabs) => tabs.map((tab) => tab.getAttribute('tabindex')))).toEqual(['0', '-1', '-1', '-1']);
    await page.getByRole('tab', { name: 'Unresolved', exact: true }).focus();
    await page.keyboard.press('ArrowRight');
    await page.waitForURL((url) => url.searchParams.get('status') === 'regressed');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Regressed');
    await page.keyboard.press('ArrowLeft');
    await page.waitForURL((url) => !url.searchParams.has('status'));
    await table.waitFor();
    await pay.getByText(RELEASE).waitFor();
    await pay.getByRole('img', { name: '1 event in the last 24 hours' }).waitFor();
    await basket.getByRole('img', { name: '2 events in the last 24 hours' }).waitFor();
    await screenshot(page, 'issues-list');
  });

  it('opens an issue with its latest event: the exception, the stack trace with app frames open, breadcrumbs, user and tags', async () => {
    await page.getByRole('link', { name: PAY_TITLE }).click();
    await page.getByRole('heading', { level: 1, name: PAY_TITLE }).waitFor();
    await page.getByRole('heading', { name: 'Latest event' }).waitFor();
    const stack = page.getByRole('list', { name: 'Stack trace, most recent call first' });
    // The innermost frame first, then its caller.
    await stack.getByText('chargeCard', { exact: true }).waitFor();
    await stack.getByText('payOrder', { exact: true }).waitFor();
    // Mapped by the release's source map: the original file and line with its source, the minified ones a switch away.
    await stack.getByText('src/shop.js:3:1').waitFor();
    await stack.getByLabel('Source of chargeCard').getByText("throw new TypeError('card declined at checkout');").waitFor();
    // The lines around it come from the map's sources, numbered, the frame's own line marked.
    const source = stack.getByLabel('Source of chargeCard');
    expect(await source.locator('.stack-line').count()).toBeGreaterThan(1);
    expect(await source.locator('.stack-line-current').textContent()).toBe("3throw new TypeError('card declined at checkout');");
    expect(await source.locator('.stack-line-no').allTextContents()).toEqual(expect.arrayContaining(['2', '3']));
    await page.getByLabel(/Show minified frames/).check();
    await stack.getByText(`${site.url}/app.js:3:9`).waitFor();
    await stack.getByLabel('Source of chargeCard').waitFor({ state: 'detached' });
    await page.getByLabel(/Show minified frames/).uncheck();
    const crumbs = page.getByRole('list', { name: 'Breadcrumbs, oldest first' });
    await crumbs.getByText('charging the card 42').waitFor();
    await crumbs.getByText('ui.click').first().waitFor();
    const details = page.getByRole('complementary', { name: 'Event details' });
    await details.getByText('customer-7', { exact: true }).waitFor();
    await details.getByText('eu-west').waitFor();
    await details.getByText('production').waitFor();
    await page.getByRole('img', { name: /Events of this issue/ }).waitFor();
    // The SDK names a trace it sent no spans of (tracing is off): no link to a trace page that would be empty.
    const related = page.getByRole('list', { name: 'Related' });
    await related.getByText(/none of its spans were received/).waitFor();
    expect(await related.getByRole('link', { name: 'Open the trace' }).count()).toBe(0);
    await screenshot(page, 'issue-page');
    // Once a span of that trace arrives, the link is there.
    const [latest] = await gqlRows(server.api, setup.secretKey, 'from:errors type:TypeError | sort timestamp desc | fields trace_id | limit 1');
    const traceId = String(latest!['trace_id']);
    const start = BigInt(Date.now() - 1_000) * 1_000_000n;
    const span = { traceId, spanId: '00f067aa0ba902b7', name: 'POST /pay', kind: 2, startTimeUnixNano: String(start), endTimeUnixNano: String(start + 5_000_000n) };
    const body = { resourceSpans: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: 'shop' } }] }, scopeSpans: [{ scope: { name: 'test' }, spans: [span] }] }] };
    expect((await server.api.post('/v1/otlp/v1/traces', { token: setup.secretKey, body })).status).toBe(200);
    await eventually(async () => expect(await gqlRows(server.api, setup.secretKey, `from:spans trace_id:"${traceId}" | count`)).toEqual([{ value: 1 }]));
    await page.reload();
    await related.getByRole('link', { name: 'Open the trace' }).waitFor();
    // Thirty days are thirty of the browser's days, each a point whether or not it had events.
    await page.getByRole('group', { name: 'Chart range' }).getByRole('button', { name: 'Last 30 days' }).click();
    const month = page.getByRole('img', { name: 'Events of this issue, last 30 days' });
    await expect(month.getAttribute('data-points')).resolves.toBe('30');
    // The range is a history entry of its own: Back returns to the last 24 hours.
    await page.goBack();
    await page.getByRole('img', { name: 'Events of this issue, last 24 hours' }).waitFor();
  });

  it('steps from the latest event of an issue to an older one and back, the event named in the URL', async () => {
    await page.goBack();
    await page.getByRole('link', { name: BASKET_TITLE }).click();
    const nav = page.getByRole('navigation', { name: 'Events of this issue' });
    await nav.getByText('1 of 2, newest first').waitFor();
    const crumbs = page.getByRole('list', { name: 'Breadcrumbs, oldest first' });
    // The latest basket error came after the payment's console message; the first one before it.
    await crumbs.getByText('charging the card 42').waitFor();
    await nav.getByRole('button', { name: '← Older' }).click();
    await nav.getByText('2 of 2, newest first').waitFor();
    await crumbs.getByText('charging the card 42').waitFor({ state: 'detached' });
    expect(new URL(page.url()).searchParams.get('event')).toMatch(/^[0-9a-f-]{36}$/);
    await nav.getByRole('button', { name: 'Newer →' }).click();
    await nav.getByText('1 of 2, newest first').waitFor();
    expect(new URL(page.url()).searchParams.get('event')).toBeNull();
    await page.getByRole('link', { name: '← Issues' }).click();
  });

  it('resolves an issue from the list with one click: it leaves the unresolved tab, shows under resolved, and GQL says resolved', async () => {
    const unresolved = page.getByRole('table', { name: 'Unresolved issues' });
    await unresolved.getByRole('row', { name: BASKET_TITLE }).waitFor();
    await unresolved.getByRole('button', { name: /^Resolve RangeError/ }).click();
    await unresolved.getByRole('row', { name: BASKET_TITLE }).waitFor({ state: 'detached' });
    await unresolved.getByRole('row', { name: PAY_TITLE }).waitFor();
    // Focus goes on to the next row's action, and the change is said with a way back.
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toMatch(new RegExp(`^Resolve ${PAY_TITLE.source}`));
    const done = page.getByRole('status').filter({ hasText: /^Resolved "RangeError: the basket holds/ });
    await done.getByRole('button', { name: 'Undo' }).click();
    await unresolved.getByRole('row', { name: BASKET_TITLE }).waitFor();
    await eventually(async () => expect(await gqlRows(server.api, setup.secretKey, 'from:issues status:resolved | fields title')).toEqual([]));
    await unresolved.getByRole('button', { name: /^Resolve RangeError/ }).click();
    await unresolved.getByRole('row', { name: BASKET_TITLE }).waitFor({ state: 'detached' });

    await page.getByRole('tab', { name: 'Resolved', exact: true }).click();
    await page.getByRole('table', { name: 'Resolved issues' }).getByRole('row', { name: BASKET_TITLE }).waitFor();
    expect(new URL(page.url()).searchParams.get('status')).toBe('resolved');
    await screenshot(page, 'issues-resolved');

    const rows = await gqlRows(server.api, setup.secretKey, 'from:issues status:resolved | fields title, status');
    expect(rows).toEqual([{ title: expect.stringMatching(BASKET_TITLE), status: 'resolved' }]);
  });

  it('ignores an issue from its page, unresolves it, resolves it in a release and unresolves it again, the status changing at once', async () => {
    await page.getByRole('tab', { name: 'Unresolved', exact: true }).click();
    await page.getByRole('link', { name: PAY_TITLE }).click();
    const actions = page.getByRole('group', { name: 'Issue actions' });
    await actions.getByRole('button', { name: 'Ignore' }).click();
    await page.getByLabel('Status: ignored').waitFor();
    await eventually(async () => expect(await gqlRows(server.api, setup.secretKey, 'from:issues status:ignored | fields status')).toHaveLength(1));
    await actions.getByRole('button', { name: 'Unresolve' }).click();
    await page.getByLabel('Status: unresolved').waitFor();
    // The menu closes as menus do: Escape (focus back on its button) and a click elsewhere.
    const releases = actions.getByRole('list', { name: 'Releases' });
    await actions.getByText('Resolve in release').click();
    await releases.waitFor();
    await page.keyboard.press('Escape');
    await releases.waitFor({ state: 'hidden' });
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Resolve in release ▾');
    await actions.getByText('Resolve in release').click();
    await releases.waitFor();
    await page.getByRole('heading', { level: 1 }).click();
    await releases.waitFor({ state: 'hidden' });
    await actions.getByText('Resolve in release').click();
    await releases.getByRole('button', { name: RELEASE }).click();
    await page.getByLabel('Status: resolved').waitFor();
    await page.getByText(`Resolved in ${RELEASE}`).waitFor();
    // The issues source reads the snapshots, written within a quarter second of the change.
    await eventually(async () =>
      expect(await gqlRows(server.api, setup.secretKey, `from:issues resolved_in_release:"${RELEASE}" | fields status`)).toEqual([{ status: 'resolved' }]),
    );
    await actions.getByRole('button', { name: 'Unresolve' }).click();
    await page.getByLabel('Status: unresolved').waitFor();
    await eventually(async () => expect(await gqlRows(server.api, setup.secretKey, 'from:issues status:unresolved | fields title')).toEqual([{ title: expect.stringMatching(PAY_TITLE) }]));
  });

  it('ignores several issues at once from the list, and filters a tab with GQL conditions kept in the URL', async () => {
    await page.goto(`${issuesPath()}?status=resolved`);
    await page.getByRole('table', { name: 'Resolved issues' }).getByRole('button', { name: /^Unresolve RangeError/ }).click();
    await page.getByRole('tab', { name: 'Unresolved', exact: true }).click();
    const unresolved = page.getByRole('table', { name: 'Unresolved issues' });
    await unresolved.getByRole('row', { name: BASKET_TITLE }).waitFor();
    await unresolved.getByRole('row', { name: PAY_TITLE }).waitFor();
    await page.getByLabel('Select all issues').check();
    await page.getByText('2 selected').waitFor();
    await page.getByRole('button', { name: 'Ignore selected' }).click();
    await page.getByRole('heading', { name: 'No unresolved issues' }).waitFor();
    // The selection's buttons are disabled now: focus waits on the way back.
    const done = page.getByRole('status').filter({ hasText: 'Ignored 2 issues.' });
    await done.waitFor();
    await eventually(async () => expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Undo'));
    await eventually(async () => expect(await gqlRows(server.api, setup.secretKey, 'from:issues status:ignored | fields status')).toHaveLength(2));

    await page.getByRole('tab', { name: 'Ignored', exact: true }).click();
    await page.getByRole('table', { name: 'Ignored issues' }).getByRole('row').nth(2).waitFor();
    await page.getByLabel('Filter with GQL conditions').fill('basket');
    await page.getByRole('button', { name: 'Apply' }).click();
    const ignored = page.getByRole('table', { name: 'Ignored issues' });
    await ignored.getByRole('row', { name: PAY_TITLE }).waitFor({ state: 'detached' });
    await ignored.getByRole('row', { name: BASKET_TITLE }).waitFor();
    expect(Object.fromEntries(new URL(page.url()).searchParams)).toEqual({ status: 'ignored', filter: 'basket' });
    // The hint's example: a field's start.
    await page.getByLabel('Filter with GQL conditions').fill('title:TypeError*');
    await page.getByRole('button', { name: 'Apply' }).click();
    await ignored.getByRole('row', { name: BASKET_TITLE }).waitFor({ state: 'detached' });
    await ignored.getByRole('row', { name: PAY_TITLE }).waitFor();
    // The placeholder's example is a filter the issues source reads: every field it names is one of theirs.
    const example = (await page.getByLabel('Filter with GQL conditions').getAttribute('placeholder'))!;
    expect(await gqlRows(server.api, setup.secretKey, `from:issues ${example} | fields title`)).toEqual([]);
  });

  it('links an error made from a log to that log, and shows the exception it was raised while handling', async () => {
    const sent = await server.api.post('/v1/logs', { token: setup.secretKey, body: { batch: [{ severity: 'error', message: PYTHON_TRACEBACK }] } });
    expect(sent.status).toBe(202);
    // A pass of the scanner now, rather than on its schedule (whichever pass reads the log first makes the error).
    await eventually(
      async () => {
        await server.standalone.logScanner.runPass();
        expect(await gqlRows(server.api, setup.secretKey, 'from:issues status:unresolved | fields title')).toHaveLength(1);
      },
      10_000,
      200,
    );

    await page.goto(issuesPath());
    await page.getByRole('link', { name: /LookupError: unknown customer 7/ }).click();
    const chain = page.getByRole('list', { name: 'Chained exceptions, nearest first' });
    await chain.getByText('raised while handling').waitFor();
    await chain.getByText('KeyError').waitFor();
    await page.getByRole('list', { name: 'Stack trace, most recent call first' }).getByText('lookup_customer').waitFor();
    // No SDK sent it: the empty panels say where a log's user and breadcrumbs would come from, not what an SDK should do.
    await page.getByText('No user: a log names one in its distinct_id, $distinct_id or user.id property.').waitFor();
    await page.getByText('No breadcrumbs: they come from SDKs, and this error was made from a log (linked above).').waitFor();
    expect(await page.getByText(/Sentry\.setUser|the SDK/).count()).toBe(0);
    await page.getByRole('link', { name: 'The log this error was made from' }).click();
    await page.getByRole('heading', { name: 'Explore' }).waitFor();
    expect(new URL(page.url()).searchParams.get('q')).toMatch(/^from:logs id:"[0-9a-f-]{36}"$/);
    await page.getByText('1 row').waitFor();
    await page.getByText(/order 42 could not be processed/).first().waitFor();
  });

  it("links an error row of the explorer, and an issue row, to the issue's page", async () => {
    const explore = (query: string) => page.goto(`/orgs/${setup.session.organization.id}/projects/${setup.project.id}/explore?q=${encodeURIComponent(query)}`);
    const [error] = await gqlRows(server.api, setup.secretKey, 'from:errors last:1d | sort timestamp desc | fields id, issue_id | limit 1');
    for (const query of [`from:errors last:1d id:"${error!['id']}"`, `from:issues id:"${error!['issue_id']}"`]) {
      await explore(query);
      await page.getByText('1 row').waitFor();
      await page.getByRole('button', { name: 'Row details' }).first().click();
      const link = page.getByRole('link', { name: 'View issue' });
      expect(await link.getAttribute('href')).toBe(`${issuesPath()}/${error!['issue_id']}`);
    }
    await page.getByRole('link', { name: 'View issue' }).click();
    await page.waitForURL(`**${issuesPath()}/${error!['issue_id']}`);

    // The setup page's first error links to its issue.
    const [first] = await gqlRows(server.api, setup.secretKey, 'from:errors | sort received_at asc | fields issue_id | limit 1');
    await page.goto(`/orgs/${setup.session.organization.id}/projects/${setup.project.id}/onboarding`);
    await page.getByText(/First error received/).waitFor();
    expect(await page.getByRole('link', { name: 'See its issue' }).getAttribute('href')).toBe(`${issuesPath()}/${first!['issue_id']}`);
    // The first log's link opens that very log, not the newest.
    const [firstLog] = await gqlRows(server.api, setup.secretKey, 'from:logs | sort received_at asc | fields id | limit 1');
    const logLink = page.getByRole('link', { name: 'See it in the explorer' }).first();
    expect(new URL((await logLink.getAttribute('href'))!, server.url).searchParams.get('q')).toBe(`from:logs id:"${firstLog!['id']}"`);
  });

  it('pages through more issues than a page holds: 100 a page, Next and Previous kept in the URL', async () => {
    // Another project of the organization, whose 105 errors of different types become 105 issues.
    const project = await createProject(server.api, setup.session, { name: 'many' });
    const key = await createKey(server.api, setup.session, project.id, { type: 'secret' });
    for (let index = 0; index < 105; index++) {
      const eventId = `${index.toString(16).padStart(8, '0')}${'0'.repeat(24)}`;
      const error = { event_id: eventId, timestamp: Date.now() / 1000 - index, platform: 'javascript', exception: { values: [{ type: `Error${index}`, value: `failure number ${index}` }] } };
      const sent = await server.api.post('/v1/envelope', { token: key.key, body: `${JSON.stringify({ event_id: eventId })}\n{"type":"event"}\n${JSON.stringify(error)}\n` });
      expect(sent.status).toBe(200);
    }
    await eventually(async () => expect(await gqlRows(server.api, key.key, 'from:issues status:unresolved | count')).toEqual([{ value: 105 }]), 15_000, 200);

    await page.goto(`/orgs/${setup.session.organization.id}/projects/${project.id}/issues`);
    const pages = page.getByRole('navigation', { name: 'Pages of issues' });
    await pages.getByText('Unresolved issues 1–100, more on the next page.').waitFor();
    expect(await page.getByRole('table', { name: 'Unresolved issues' }).getByRole('row').count()).toBe(101);
    await pages.getByRole('button', { name: 'Next page →' }).click();
    await pages.getByText('Unresolved issues 101–105.').waitFor();
    expect(new URL(page.url()).searchParams.get('page')).toBe('2');
    // Newest first: the five errors sent with the oldest times, none of the first page again.
    const titles = await page.getByRole('table', { name: 'Unresolved issues' }).getByRole('link').allTextContents();
    expect(titles.filter((title) => /^Error\d+/.test(title)).sort()).toEqual(['Error100', 'Error101', 'Error102', 'Error103', 'Error104'].map((type) => expect.stringMatching(new RegExp(`^${type}: `))));
    await expect(pages.getByRole('button', { name: 'Next page →' }).isDisabled()).resolves.toBe(true);
    await screenshot(page, 'issues-page-2');
    await pages.getByRole('button', { name: '← Previous page' }).click();
    await pages.getByText('Unresolved issues 1–100, more on the next page.').waitFor();
    expect(new URL(page.url()).searchParams.get('page')).toBeNull();
  });

  it('says a link to an issue cut short names no issue, without asking the server', async () => {
    const asked: string[] = [];
    const listen = (request: { url(): string }) => {
      if (request.url().includes('/gql?')) asked.push(request.url());
    };
    page.on('request', listen);
    await page.goto(`${issuesPath()}/5ae095a8-3a06-4bd4-e5de-06ef`);
    await page.getByText('No such issue in this project').waitFor();
    page.off('request', listen);
    expect(await page.locator('[data-code]').count()).toBe(0);
    expect(asked.filter((url) => decodeURIComponent(url).includes('5ae095a8'))).toEqual([]);
  });
});
