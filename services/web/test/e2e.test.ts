import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { eventually, launchChromium, screenshot, startTestServer, uniqueEmail, type TestServer } from '@tlm/testkit';

/**
 * The web app in Debian's Chromium against the real standalone server: sign up, create a project, create a key and
 * copy it, send logs with it, find them in the explorer, chart an aggregate, follow the live tail, revoke the key.
 * Each step builds on the one before, as a newcomer's first minutes do.
 */

const DIST = path.resolve(__dirname, '../dist/index.html');
const PASSWORD = 'correct horse battery staple';

let server: TestServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const state = { email: uniqueEmail('e2e'), org: '', project: '', key: '' };

beforeAll(async () => {
  if (!existsSync(DIST)) throw new Error(`the web app is not built (${DIST} is missing): run make build`);
  server = await startTestServer();
  browser = await launchChromium();
  context = await browser.newContext({ baseURL: server.url, viewport: { width: 1360, height: 860 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
  page = await context.newPage();
  page.setDefaultTimeout(15_000);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** A span name as ORMs write them: longer than the waterfall's name column. */
const LONG_SPAN_NAME =
  'SELECT orders.id, orders.total, orders.currency, customers.email FROM orders JOIN customers ON customers.id = orders.customer_id WHERE orders.id = $1';

const sendLogs = (key: string, batch: { severity: string; message: string; properties?: Record<string, unknown> }[]) =>
  server.api.post('/v1/logs', { token: key, body: { batch } });

/** Types a query into the GQL editor and runs it with Ctrl+Enter. */
async function runQuery(text: string): Promise<void> {
  const editor = page.getByRole('textbox', { name: 'GQL query' });
  await editor.click();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
  await page.keyboard.press('Control+Enter');
}

describe('a newcomer in the browser', () => {
  it('is sent to log-in, and signs up from there', async () => {
    await page.goto('/');
    await page.waitForURL(/\/login/);
    await page.getByRole('heading', { name: 'Log in' }).waitFor();
    // A newcomer reads what the product is before any form.
    await page.getByText('Logs, product analytics, errors, traces and session replays of your apps in one place.').waitFor();
    await screenshot(page, '01-login');
    await page.getByRole('link', { name: /sign up/i }).click();
    await page.waitForURL(/\/signup/);
    await page.getByLabel('Name').fill('Ada');
    await page.getByLabel('Email').fill(state.email);
    await page.getByLabel('Password').fill(PASSWORD);
    await screenshot(page, '02-signup');
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.waitForURL(/\/orgs\/[^/]+\/projects$/);
    state.org = /\/orgs\/([^/]+)\//.exec(page.url())![1]!;
    const cookies = await context.cookies();
    const session = cookies.find((cookie) => cookie.name === 'tlm_session')!;
    expect(session.httpOnly).toBe(true);
    expect(session.sameSite).toBe('Strict');
    // The token is not readable by page scripts.
    expect(await page.evaluate(() => document.cookie)).not.toContain('tlm_session');
    expect(await page.evaluate(() => JSON.stringify(localStorage))).not.toContain('eyJ');
    await page.getByText('No projects yet').waitFor();
    await screenshot(page, '03-projects-empty');
  });

  it('creates a project and lands on its setup page', async () => {
    await page.getByLabel('Project name').fill('checkout');
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.waitForURL(/\/projects\/[^/]+\/onboarding$/);
    state.project = /\/projects\/([^/]+)\/onboarding/.exec(page.url())![1]!;
    await page.getByText(/waiting for the first log/i).waitFor();
    await screenshot(page, '04-onboarding');
    // The Sentry snippets' logs come with the public key: the setting they need is beside them.
    const token = (await context.cookies()).find((cookie) => cookie.name === 'tlm_session')!.value;
    const allowsBrowserLogs = async () => (await server.api.get(`/api/orgs/${state.org}/projects/${state.project}`, { token })).body.allow_browser_logs;
    const choice = page.getByRole('checkbox', { name: 'Allow browser logs' });
    expect(await choice.isChecked()).toBe(false);
    await choice.check();
    await eventually(async () => expect(await allowsBrowserLogs()).toBe(true));
    await choice.uncheck();
    await eventually(async () => expect(await allowsBrowserLogs()).toBe(false));
    expect(await choice.isChecked()).toBe(false);
  });

  it('keeps the copy buttons off the snippets\' code, on a laptop and on a phone', async () => {
    for (const width of [1360, 390]) {
      await page.setViewportSize({ width, height: 900 });
      for (const [button, code] of [
        ['Copy install command', page.locator('.snippet code').first()],
        ['Copy snippet', page.getByLabel('Sentry (Node) snippet')],
      ] as const) {
        const copy = (await page.getByRole('button', { name: button }).boundingBox())!;
        const text = (await code.boundingBox())!;
        expect([width, button, copy.y + copy.height <= text.y]).toEqual([width, button, true]);
      }
    }
    await screenshot(page, 'phone-onboarding');
    await page.setViewportSize({ width: 1360, height: 900 });
  });

  it('creates a secret key, sees it once and copies it', async () => {
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.waitForURL(/\/keys$/);
    await page.getByLabel('Name', { exact: true }).fill('server');
    await page.getByLabel(/^Secret/).check();
    await page.getByRole('button', { name: 'Create key' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    const shown = dialog.getByLabel('API key');
    state.key = (await shown.inputValue().catch(() => shown.textContent())) ?? '';
    expect(state.key).toMatch(/^tlm_sk_us_[0-9A-Za-z]{32}$/);
    await screenshot(page, '05-key-created');
    await dialog.getByRole('button', { name: /^Copy/ }).first().click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(state.key);
    await dialog.getByRole('button', { name: /done|close|I have copied/i }).first().click();
    await page.getByRole('cell', { name: 'server', exact: true }).waitFor();
    await screenshot(page, '06-keys');
  });

  it('sees logs sent with that key in the explorer, and the row in full', async () => {
    const severities = ['info', 'info', 'info', 'warn', 'warn', 'error'];
    const reply = await sendLogs(
      state.key,
      severities.map((severity, index) => ({ severity, message: `checkout step ${index} ${severity}`, properties: { route: '/checkout', step: index } })),
    );
    expect(reply.status).toBe(202);
    expect(reply.body.accepted).toBe(6);
    // An event its client dated three hours back arrived just now, and the setup page says so.
    const backdated = new Date(Date.now() - 3 * 3_600_000).toISOString();
    const event = await server.api.post('/v1/events', { token: state.key, body: { batch: [{ event: 'app_opened', distinctId: 'user-0', timestamp: backdated }] } });
    expect(event.status).toBe(202);
    await page.goto(`/orgs/${state.org}/projects/${state.project}/onboarding`);
    await page.getByText(/first log received/i).waitFor({ timeout: 20_000 });
    // The arrival's time counts on from when the server took the event: seconds ago, never the client's three hours.
    await page.getByText(/First event received \d+ s ago/).waitFor({ timeout: 10_000 });
    expect(await page.getByText(/first event received/i).textContent()).not.toMatch(/ h ago/);
    await screenshot(page, '07-onboarding-received');

    // The explorer's own first query is no query anyone asked: the recent queries start empty.
    await page.goto(`/orgs/${state.org}/projects/${state.project}/explore`);
    await page.getByText('Recent queries (0)').waitFor();
    await page.goto(`/orgs/${state.org}/projects/${state.project}/explore?q=${encodeURIComponent('from:logs | last:1h')}`);
    await page.getByText('checkout step 5 error').waitFor();
    await page.getByText('Recent queries (1)').waitFor();
    // Times read in the browser's zone, as on the charts and the other pages; the stored UTC time is the tooltip.
    const time = page.getByRole('region', { name: 'Results' }).locator('time').first();
    const utc = (await time.getAttribute('datetime'))!;
    expect(await time.getAttribute('title')).toBe(`${utc} (UTC)`);
    expect(await time.textContent()).not.toContain('T');
    await screenshot(page, '08-explorer-search');
    await page.getByText('checkout step 5 error').click();
    await page.getByText('/checkout').first().waitFor();
    await screenshot(page, '09-explorer-row');

    // A search cut at its limit says so; one that holds every match says nothing more.
    await runQuery('from:logs | last:1h | limit 3');
    await page.getByRole('status').filter({ hasText: /3 rows from logs .* the first 3, the query's limit: more may match/ }).waitFor();
    await runQuery('from:logs | last:1h | limit 50');
    await page.getByRole('status').filter({ hasText: /6 rows from logs/ }).waitFor();
    expect(await page.getByRole('status').filter({ hasText: /the query's limit/ }).count()).toBe(0);
  });

  it('counts the rows of a time series table as buckets of groups', async () => {
    await runQuery('from:logs | count by time(5m), severity | last:1h');
    await page.getByText(/^Show the \d+ rows \(a bucket of a group each\) as a table$/).waitFor();
    await screenshot(page, '10b-explorer-time-series');
    await runQuery('from:logs | count by time(5m) | last:1h');
    await page.getByText(/^Show the \d+ buckets as a table$/).waitFor();
  });

  it('runs an aggregate and draws its bar chart from the data', async () => {
    await runQuery('from:logs | count by severity | last:1h');
    await page.waitForURL(/q=/);
    expect(decodeURIComponent(new URL(page.url()).searchParams.get('q') ?? '')).toBe('from:logs | count by severity | last:1h');
    const chart = page.getByRole('img', { name: /bar chart/i });
    await chart.waitFor();
    expect(await chart.getAttribute('data-points')).toBe('3');
    // The canvas holds coloured bars, not only grey axes on white.
    const coloured = await chart.evaluate((figure) => {
      const canvas = figure.querySelector('canvas')!;
      const { data } = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height);
      let count = 0;
      for (let i = 0; i < data.length; i += 4) {
        const [r, g, b, a] = [data[i]!, data[i + 1]!, data[i + 2]!, data[i + 3]!];
        if (a > 0 && Math.abs(r - g) + Math.abs(g - b) + Math.abs(r - b) > 80) count += 1;
      }
      return count;
    });
    expect(coloured).toBeGreaterThan(500);
    await expect(page.getByRole('cell', { name: 'info' }).first().isVisible()).resolves.toBe(true);
    await screenshot(page, '10-explorer-aggregate');
  });

  it('builds queries from the schema: a log property into the query, an event name into a query of events', async () => {
    const sent = await server.api.post('/v1/events', { token: state.key, body: { batch: [{ event: 'purchase', distinctId: 'user-1', properties: { plan: 'pro' } }] } });
    expect(sent.status).toBe(202);
    const editor = page.getByRole('textbox', { name: 'GQL query' });
    const schema = page.getByRole('complementary', { name: 'Schema' });
    // The schema is tallied from the stored rows on a timer; a fresh page shows it once the event is counted.
    await eventually(async () => {
      await page.goto(`/orgs/${state.org}/projects/${state.project}/explore?q=${encodeURIComponent('from:logs last:1h')}`);
      await schema.getByRole('region', { name: 'Event names' }).getByRole('button', { name: /^purchase/ }).waitFor({ timeout: 2_000 });
    });
    // Nobody placed the cursor (focus passing through, as Tab does, places nothing): the field goes after the filters,
    // waiting for its value.
    await editor.focus();
    await schema.getByRole('region', { name: 'Log properties' }).getByRole('button', { name: /^route/ }).click();
    expect(await editor.textContent()).toBe('from:logs last:1h properties.route:');
    await page.keyboard.insertText('/checkout');
    await page.keyboard.press('Control+Enter');
    await page.getByText('checkout step 5 error').waitFor();
    expect(decodeURIComponent(new URL(page.url()).searchParams.get('q') ?? '')).toBe('from:logs last:1h properties.route:/checkout');
    await screenshot(page, '10b-explorer-schema-property');

    await schema.getByRole('region', { name: 'Event names' }).getByRole('button', { name: /^purchase/ }).click();
    expect(await editor.textContent()).toBe('from:events last:1h event_name:purchase');
    await page.keyboard.press('Control+Enter');
    await page.getByRole('status').filter({ hasText: /1 row from events/ }).waitFor();
    await screenshot(page, '10c-explorer-schema-event');
  });

  it('follows the live tail: a log sent after it started appears', async () => {
    await page.goto(`/orgs/${state.org}/projects/${state.project}/explore?q=${encodeURIComponent('from:logs | last:15m')}`);
    await page.getByText('checkout step 5 error').waitFor();
    await page.getByRole('button', { name: 'Live tail' }).click();
    await expect(page.getByRole('button', { name: 'Live tail' }).getAttribute('aria-pressed')).resolves.toBe('true');
    // The stream is open once the server has answered its first poll; a log sent now is new to it.
    await page.waitForTimeout(1_500);
    expect((await sendLogs(state.key, [{ severity: 'info', message: 'sent while tailing' }])).status).toBe(202);
    await page.getByText('sent while tailing').waitFor({ timeout: 10_000 });
    await screenshot(page, '11-explorer-tail');
    // Stopping runs the search again: the table holds the log that arrived while tailing.
    await page.getByRole('button', { name: 'Live tail' }).click();
    await expect(page.getByRole('button', { name: 'Live tail' }).getAttribute('aria-pressed')).resolves.toBe('false');
    await page.getByRole('table', { name: 'Results' }).getByText('sent while tailing').waitFor({ timeout: 10_000 });
  });

  it('keeps the time range picker on the range of the query run, and offers only wider ranges when nothing matched', async () => {
    const since = new Date(Date.now() - 2 * 3_600_000).toISOString();
    await page.goto(`/orgs/${state.org}/projects/${state.project}/explore?q=${encodeURIComponent(`from:logs | since:${since}`)}`);
    const picker = page.getByRole('combobox', { name: 'Time range' });
    await page.getByRole('form', { name: 'Custom time range' }).waitFor();
    expect(await picker.inputValue()).toBe('custom');
    // A range typed into the query and run moves the picker with it, and closes the custom inputs.
    await runQuery('from:logs | last:1h');
    await page.waitForURL(/last%3A1h|last:1h/);
    await eventually(async () => expect(await picker.inputValue()).toBe('last:1h'));
    expect(await page.getByRole('form', { name: 'Custom time range' }).count()).toBe(0);

    // Nothing matches over the last 7 days: the one wider range left is all retained data.
    await runQuery('from:logs severity:fatal | last:7d');
    const empty = page.getByText('No rows matched');
    await empty.waitFor();
    expect(await page.getByRole('button', { name: 'Last 7 days' }).count()).toBe(0);
    await page.getByRole('button', { name: 'All retained data' }).click();
    await page.waitForURL((url) => url.searchParams.get('q') === 'from:logs severity:fatal');
    await empty.waitFor();
    expect(await page.getByRole('button', { name: 'All retained data' }).count()).toBe(0);
    await page.getByText('Nothing retained matches the query. Loosen its conditions.').waitFor();
  });

  it("asks in plain words in the browser's time zone: today is the user's day, from its midnight there", async () => {
    const californian = await browser.newContext({ baseURL: server.url, viewport: { width: 1360, height: 860 }, timezoneId: 'America/Los_Angeles' });
    try {
      await californian.addCookies(await context.cookies());
      const tab = await californian.newPage();
      tab.setDefaultTimeout(15_000);
      await tab.goto(`/orgs/${state.org}/projects/${state.project}/explore`);
      await tab.getByLabel('Ask in plain words').fill('error logs today');
      await tab.getByRole('button', { name: 'Ask', exact: true }).click();
      // Today's date in California, and its offset there (-08:00 in winter, -07:00 in summer).
      const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Los_Angeles' }).format(new Date());
      const editor = tab.getByRole('textbox', { name: 'GQL query' });
      await eventually(async () => expect(await editor.textContent()).toMatch(new RegExp(`^from:logs severity:error \\| since:${today}T00:00-0[78]:00$`)), 15_000);
    } finally {
      await californian.close();
    }
  });

  it('links a log that belongs to a trace to the trace page', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const reply = await server.api.post('/v1/logs', {
      token: state.key,
      headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
      body: { batch: [{ severity: 'info', message: 'traced checkout log\n    at charge (src/pay.js:12:3)\n    at checkout (src/cart.js:40:9)' }] },
    });
    expect(reply.status).toBe(202);
    await page.goto(`/orgs/${state.org}/projects/${state.project}/explore?q=${encodeURIComponent('from:logs traced | last:1h')}`);
    await page.getByText('traced checkout log').click();
    const link = page.getByRole('link', { name: 'View trace' });
    expect(await link.getAttribute('href')).toBe(`/orgs/${state.org}/projects/${state.project}/traces/${traceId}`);
    // The row in full keeps the message's lines (a stack trace reads line by line); the table's cell is one line.
    const message = page.getByRole('region', { name: 'Fields' }).getByRole('definition').filter({ hasText: 'at charge' });
    expect(await message.innerText()).toBe('traced checkout log\n    at charge (src/pay.js:12:3)\n    at checkout (src/cart.js:40:9)');
    await screenshot(page, '09b-explorer-row-lines');
  });

  it('lists the newest traces holding a matching span however many traces match', async () => {
    // 600 traces of a request span (shop) and a query span below it (stock); the list asks for any span of stock.
    const now = BigInt(Date.now() - 60_000) * 1_000_000n;
    const hex = (n: number, digits: number) => n.toString(16).padStart(digits, '0');
    const resourceSpans = ['shop', 'stock'].map((service, child) => ({
      resource: { attributes: [{ key: 'service.name', value: { stringValue: service } }] },
      scopeSpans: [
        {
          scope: { name: 'e2e' },
          spans: Array.from({ length: 600 }, (_, n) => ({
            traceId: hex(n + 1, 32),
            spanId: hex(2 * n + 1 + child, 16),
            ...(child ? { parentSpanId: hex(2 * n + 1, 16) } : {}),
            name: child ? (n === 599 ? LONG_SPAN_NAME : 'SELECT orders') : 'GET /checkout',
            // A statement of several lines, as ORMs log them.
            ...(child && n === 599 ? { attributes: [{ key: 'db.statement', value: { stringValue: 'SELECT id\nFROM orders\nWHERE id = $1' } }] } : {}),
            kind: child ? 3 : 2,
            // The long-named query failed: its row holds the name, its service and an error badge.
            ...(child && n === 599 ? { status: { code: 2, message: 'deadlock detected' } } : {}),
            startTimeUnixNano: String(now + BigInt(n) * 1_000_000n),
            endTimeUnixNano: String(now + BigInt(n) * 1_000_000n + 5_000_000n),
          })),
        },
      ],
    }));
    // A request holds at most 1,000 spans: one per service.
    for (const resource of resourceSpans) {
      expect((await server.api.post('/v1/otlp/v1/traces', { token: state.key, body: { resourceSpans: [resource] } })).status).toBe(200);
    }
    await page.goto(`/orgs/${state.org}/projects/${state.project}/traces?match=any&service=stock&range=1h`);
    const list = page.getByRole('table', { name: 'Traces' });
    // The newest trace first; a hundred rows, and no refusal of the query the page wrote.
    await list.getByRole('row').nth(1).getByText('GET /checkout').waitFor();
    expect(await list.getByRole('row').count()).toBe(101);
    expect(await page.locator('[data-code]').count()).toBe(0);
    await screenshot(page, '11b-traces-any-span');
    // A maximum duration below the minimum is said to match nothing, and the form is held back until it is fixed.
    const filters = page.getByRole('form', { name: 'Filter traces' });
    await filters.getByLabel('Min duration (ms)').fill('800');
    await filters.getByLabel('Max duration (ms)').fill('100');
    await filters.getByRole('alert').filter({ hasText: 'The maximum duration is below the minimum' }).waitFor();
    expect(await filters.getByLabel('Max duration (ms)').getAttribute('aria-invalid')).toBe('true');
    await screenshot(page, '11b2-traces-inverted-durations');
    await filters.getByRole('button', { name: 'Apply' }).click();
    expect(new URL(page.url()).searchParams.get('max')).toBeNull();
    // A choice in a select applies, with the durations the list already had.
    await filters.getByLabel('Status').selectOption('ok');
    await page.waitForURL((url) => url.searchParams.get('status') === 'ok');
    expect([new URL(page.url()).searchParams.get('min'), new URL(page.url()).searchParams.get('max')]).toEqual([null, null]);
    await filters.getByLabel('Status').selectOption('');
    await page.waitForURL((url) => !url.searchParams.has('status'));
    await filters.getByLabel('Min duration (ms)').fill('');
    await filters.getByLabel('Max duration (ms)').fill('');
    expect(await filters.getByRole('alert').count()).toBe(0);
    // The newest trace's query span has a long name: the waterfall cuts it, and it stays there to click.
    await list.getByRole('row').nth(1).getByRole('link', { name: 'GET /checkout' }).click();
    const name = page.getByRole('button', { name: LONG_SPAN_NAME, exact: true });
    expect((await name.boundingBox())!.width).toBeGreaterThan(100);
    // The tree of spans is one stop of Tab, however many spans it has; its arrows move within it.
    expect(await page.getByRole('treegrid').locator('button:not([tabindex="-1"])').count()).toBe(1);
    // Its service and its whole error badge stay within the name's cell, the name cut instead.
    const cell = page.getByRole('gridcell').filter({ has: name });
    const cellBox = (await cell.boundingBox())!;
    const badge = (await cell.locator('.badge', { hasText: 'error' }).boundingBox())!;
    expect(badge.x + badge.width).toBeLessThanOrEqual(cellBox.x + cellBox.width);
    expect((await cell.locator('.waterfall-service').boundingBox())!.width).toBeGreaterThan(20);
    await name.click();
    expect(await name.getAttribute('aria-pressed')).toBe('true');
    // The span's attributes keep their lines.
    const statement = page.getByRole('definition').filter({ hasText: 'FROM orders' });
    expect(await statement.innerText()).toBe('SELECT id\nFROM orders\nWHERE id = $1');
    await screenshot(page, '11c-trace-long-span-name');
    // In a 1,280-pixel window the waterfall fits beside the side panel: nothing of its axis is cut off to the right.
    await page.setViewportSize({ width: 1280, height: 800 });
    const waterfall = page.locator('.waterfall-scroll');
    await eventually(async () => expect(await waterfall.evaluate((box) => box.scrollWidth - box.clientWidth)).toBe(0));
    await page.setViewportSize({ width: 1360, height: 900 });
    // The span's start reads in the browser's time, as the rest of the app; Escape closes the panel.
    const starts = page.getByRole('definition').filter({ hasText: 'into the trace' });
    expect(await starts.locator('time').count()).toBe(1);
    expect(await starts.textContent()).not.toMatch(/\d{4}-\d{2}-\d{2}T\d{2}:/);
    await page.keyboard.press('Escape');
    await starts.waitFor({ state: 'detached' });
    expect(new URL(page.url()).searchParams.get('span')).toBeNull();
    // Closed with its Close button, the panel hands the focus back to the span it showed.
    await name.click();
    await page.getByRole('button', { name: 'Close', exact: true }).click();
    await starts.waitFor({ state: 'detached' });
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe(LONG_SPAN_NAME);

    // The services overview opens on the range of the traces it is reached from (the list's default, 24 hours).
    await page.goto(`/orgs/${state.org}/projects/${state.project}/traces`);
    await page.getByRole('link', { name: 'Services overview' }).click();
    await page.waitForURL((url) => url.pathname.endsWith('/services') && url.searchParams.get('range') === '24h');
    expect(await page.getByLabel('Time range').inputValue()).toBe('24h');
    await page.getByRole('region', { name: 'stock', exact: true }).waitFor();

    // Charted by span name, the long one is cut in the legend, which stays on one line.
    await page.goto(`/orgs/${state.org}/projects/${state.project}/services?range=1h`);
    // Every span of an operation counts, so the table and the chart say spans, not requests.
    await page.getByRole('table', { name: 'Operations of stock' }).getByRole('columnheader', { name: 'Spans', exact: true }).waitFor();
    expect(await page.getByRole('combobox', { name: 'Chart' }).locator('option:checked').textContent()).toBe('Spans');
    await page.getByRole('region', { name: 'stock', exact: true }).getByRole('button', { name: 'Chart this service' }).click();
    const legendName = page.locator('.u-legend .u-label', { hasText: LONG_SPAN_NAME.slice(0, 20) });
    await legendName.waitFor();
    expect((await legendName.boundingBox())!.width).toBeLessThan(400);
    expect((await page.locator('.u-legend').boundingBox())!.height).toBeLessThan(40);
    await screenshot(page, '11d-services-long-span-name');

    // The query spans sit below each trace's root: their operation's link lists the traces holding one.
    await page.getByRole('table', { name: 'Operations of stock' }).getByRole('link').first().click();
    await page.waitForURL(/\/traces\?/);
    expect(new URL(page.url()).searchParams.get('match')).toBe('any');
    await page.getByRole('table', { name: 'Traces' }).getByRole('row').nth(1).waitFor();
  });

  it('revokes the key in the UI, after which ingest with it answers 401', async () => {
    await page.goto(`/orgs/${state.org}/projects/${state.project}/keys`);
    // Revoking asks first: cancelled, the key still works.
    await page.getByRole('button', { name: 'Revoke server', exact: true }).click();
    const confirm = page.getByRole('dialog', { name: 'Revoke key "server"?' });
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'hidden' });
    expect((await sendLogs(state.key, [{ severity: 'info', message: 'before revoke' }])).status).toBe(202);
    await page.getByRole('button', { name: 'Revoke server', exact: true }).click();
    await confirm.getByRole('button', { name: 'Revoke key' }).click();
    await page.getByRole('row', { name: /server/ }).getByText('revoked', { exact: true }).waitFor();
    // Focus stays on the key's row: its Revoke is now Unrevoke.
    await eventually(async () => expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Unrevoke server'));
    await screenshot(page, '12-key-revoked');
    const refused = await eventually(async () => {
      const reply = await sendLogs(state.key, [{ severity: 'info', message: 'after revoke' }]);
      if (reply.status !== 401) throw new Error(`ingest answered ${reply.status}`);
      return reply;
    });
    expect(refused.body.error.code).toBe('UNAUTHORIZED');
  });

  it('deletes the key and restores it from Recently deleted', async () => {
    await page.getByRole('button', { name: 'Delete server', exact: true }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete key' }).click();
    const deleted = page.getByRole('region', { name: 'Recently deleted' });
    await deleted.getByRole('row', { name: /server/ }).waitFor();
    // The focus stays on a button of the list: the next key's, or the deleted key's Restore.
    await eventually(async () => expect(await page.evaluate(() => [document.activeElement?.tagName, document.activeElement?.closest('[data-key-id], [data-deleted-id]') !== null])).toEqual(['BUTTON', true]));
    await screenshot(page, '12b-key-deleted');
    await deleted.getByRole('row', { name: /server/ }).getByRole('button', { name: 'Restore' }).click();
    await deleted.getByRole('row', { name: /server/ }).waitFor({ state: 'detached' });
    await page.getByRole('row', { name: /server/ }).getByText('active', { exact: true }).waitFor();
    // Restored means active again: the key authenticates.
    const accepted = await eventually(async () => {
      const reply = await sendLogs(state.key, [{ severity: 'info', message: 'after restore' }]);
      if (reply.status !== 202) throw new Error(`ingest answered ${reply.status}`);
      return reply;
    });
    expect(accepted.body.accepted).toBe(1);
  });

  it('rotates the key: the new one works at once, the old one until it is revoked from the new key\'s dialog', async () => {
    const old = state.key;
    // Rotating asks first, with Cancel focused, so a second Enter makes nothing.
    await page.getByRole('button', { name: 'Rotate server', exact: true }).click();
    const confirm = page.getByRole('dialog', { name: 'Rotate key "server"?' });
    await confirm.waitFor();
    await eventually(async () => expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Cancel'));
    await confirm.getByRole('button', { name: 'Rotate key' }).click();
    const dialog = page.getByRole('dialog', { name: 'Key "server" created' });
    const shown = dialog.getByLabel('API key');
    const rotated = (await shown.inputValue().catch(() => shown.textContent())) ?? '';
    expect(rotated).toMatch(/^tlm_sk_us_[0-9A-Za-z]{32}$/);
    expect(rotated).not.toBe(old);
    await dialog.getByText(`The old key ${old.slice(0, 12)}… still works`, { exact: false }).waitFor();
    await screenshot(page, '12c-key-rotated');
    // Both keys authenticate until the old one is revoked.
    for (const key of [old, rotated]) expect((await sendLogs(key, [{ severity: 'info', message: 'during rotation' }])).status).toBe(202);
    await dialog.getByRole('button', { name: 'Revoke the old key now' }).click();
    await dialog.getByText(/is revoked: requests with it are refused/).waitFor();
    await dialog.getByRole('button', { name: 'Done' }).click();
    // Focus goes back to the old key's row, whose Revoke became Unrevoke.
    await eventually(async () => expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Unrevoke server'));
    await eventually(async () => expect((await sendLogs(old, [{ severity: 'info', message: 'after rotation' }])).status).toBe(401));
    expect((await sendLogs(rotated, [{ severity: 'info', message: 'after rotation' }])).status).toBe(202);
    // The new key has the old one's name, type and scopes.
    const rows = page.getByRole('row').filter({ has: page.getByRole('cell', { name: 'server', exact: true }) });
    await expect(rows.count()).resolves.toBe(2);
    await rows.filter({ hasText: 'active' }).getByText('secret', { exact: true }).waitFor();
    state.key = rotated;
  });

  it('shows settings and the plan with its usage', async () => {
    await page.goto(`/orgs/${state.org}/projects/${state.project}/settings`);
    await page.getByLabel(/allow browser logs/i).waitFor();
    await screenshot(page, '13-settings');
    await page.goto(`/orgs/${state.org}/usage`);
    await page.getByText(/free/i).first().waitFor();
    // Which signals count by receipt and which by their own time, so a month's figures can be read right.
    await page.getByText(/Logs and events count when they are received; errors, spans, vitals and sessions by the time they carry/).waitFor();
    await screenshot(page, '14-usage');
  });

  it('says under a query that does not parse what could stand where it stopped, and how GQL reads', async () => {
    await page.goto(`/orgs/${state.org}/projects/${state.project}/explore?q=${encodeURIComponent('events where name = signup')}`);
    const notice = page.getByRole('alert').filter({ hasText: "unexpected 'where' at column 8" });
    await notice.getByText("Expected there: AND or OR, a condition, '|' or a field name.").waitFor();
    await notice.getByText('from:events event_name:signup | count by time(1h)').waitFor();
    await screenshot(page, '13b-explore-query-error');
  });

  it('deletes a project from its settings, lands on the projects page and restores it from there', async () => {
    await page.goto(`/orgs/${state.org}/projects`);
    await page.getByLabel('Project name').fill('scratch');
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.waitForURL(/\/onboarding$/);
    const scratch = page.url().split('/projects/')[1]!.split('/')[0]!;
    await page.goto(`/orgs/${state.org}/projects/${scratch}/settings`);
    await page.getByRole('button', { name: 'Delete project' }).click();
    await page.getByRole('dialog', { name: 'Delete project "scratch"?' }).getByRole('button', { name: 'Delete this project' }).click();
    await page.waitForURL(new RegExp(`/orgs/${state.org}/projects$`));
    const deleted = page.getByRole('region', { name: 'Recently deleted' });
    await deleted.getByRole('row', { name: /scratch/ }).waitFor();
    await screenshot(page, '14c-project-deleted');
    await deleted.getByRole('row', { name: /scratch/ }).getByRole('button', { name: 'Restore' }).click();
    await deleted.getByRole('row', { name: /scratch/ }).waitFor({ state: 'detached' });
    await page.getByRole('link', { name: 'scratch', exact: true }).waitFor();
  });

  it('switches project on the same page, keeping a list\'s filters and leaving one trace for the list of traces', async () => {
    const scratch = await page.getByRole('combobox', { name: 'Project' }).evaluate((select: HTMLSelectElement) =>
      [...select.options].find((option) => option.textContent === 'scratch')!.value,
    );
    await page.goto(`/orgs/${state.org}/projects/${state.project}/issues?status=ignored`);
    await page.getByRole('tab', { name: 'Ignored', exact: true, selected: true }).waitFor();
    await page.getByRole('combobox', { name: 'Project' }).selectOption(scratch);
    await page.waitForURL((url) => url.pathname === `/orgs/${state.org}/projects/${scratch}/issues` && url.search === '?status=ignored');
    await page.getByRole('tab', { name: 'Ignored', exact: true, selected: true }).waitFor();
    await page.goto(`/orgs/${state.org}/projects/${state.project}/traces/4bf92f3577b34da6a3ce929d0e0e4736`);
    await page.getByRole('combobox', { name: 'Project' }).selectOption(scratch);
    await page.waitForURL((url) => url.pathname === `/orgs/${state.org}/projects/${scratch}/traces` && url.search === '');
    await page.getByRole('combobox', { name: 'Project' }).selectOption(state.project);
    await page.waitForURL((url) => url.pathname === `/orgs/${state.org}/projects/${state.project}/traces`);
  });

  it('offers a keyboard user a link past the top bar and the sidebar to the page', async () => {
    await page.goto(`/orgs/${state.org}/projects/${state.project}/issues`);
    await page.getByRole('heading', { name: 'Issues', level: 1 }).waitFor();
    await page.keyboard.press('Tab');
    const skip = page.getByRole('link', { name: 'Skip to content' });
    expect(await skip.evaluate((link) => link === document.activeElement)).toBe(true);
    // Hidden above the page until focused, then in view.
    expect((await skip.boundingBox())!.y).toBeGreaterThanOrEqual(0);
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('content');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.closest('main') !== null)).toBe(true);
  });

  it('says a wrong password in words, and sends an expired session to log-in and back to the page it was on', async () => {
    const explore = `/orgs/${state.org}/projects/${state.project}/explore?q=${encodeURIComponent('from:logs severity:error')}`;
    await context.clearCookies();
    await page.goto(explore);
    await page.waitForURL(/\/login\?next=/);
    await page.getByLabel('Email').fill(state.email);
    await page.getByLabel('Password').fill(`${PASSWORD} wrong`);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('alert').filter({ hasText: 'Wrong email or password.' }).waitFor();
    expect(await page.getByText('UNAUTHORIZED').count()).toBe(0);
    await screenshot(page, '01b-login-refused');
    await page.getByLabel('Email').fill(state.email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL((url) => url.pathname.endsWith('/explore') && url.searchParams.get('q') === 'from:logs severity:error');
    await page.getByText('checkout step 5 error').waitFor();
  });

  it('says a link to a project or organization that is not there names none, the switchers saying so too', async () => {
    const unknown = '0190a5b0-0000-7000-8000-000000000000';
    await page.goto(`/orgs/${state.org}/projects/${unknown}/issues`);
    await page.getByRole('heading', { name: 'No such project in this organization' }).waitFor();
    await expect(page.getByRole('combobox', { name: 'Project' }).evaluate((select: HTMLSelectElement) => select.selectedOptions[0]?.textContent)).resolves.toBe('Unknown project');
    expect(await page.getByRole('navigation', { name: 'Project pages' }).count()).toBe(0);
    await screenshot(page, '14b-unknown-project');
    await page.goto(`/orgs/${unknown}/projects`);
    await page.getByRole('heading', { name: 'No such organization' }).waitFor();
    await expect(page.getByRole('combobox', { name: 'Organization' }).evaluate((select: HTMLSelectElement) => select.selectedOptions[0]?.textContent)).resolves.toBe('Unknown organization');
    expect(await page.getByRole('button', { name: 'Create project' }).count()).toBe(0);
    await page.getByRole('link', { name: 'Your organizations' }).click();
    await page.waitForURL(new RegExp(`/orgs/${state.org}/`));
  });

  it('logs out', async () => {
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.waitForURL(/\/login/);
    expect((await context.cookies()).find((cookie) => cookie.name === 'tlm_session')).toBeUndefined();
  });
});
