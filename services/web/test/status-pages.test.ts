import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium, openWebApp, screenshot, signup, startTestServer, type TestServer } from '@tlm/testkit';

/**
 * Status pages in Debian's headless Chromium against a started server: an owner creates a page and opens an incident
 * with an update in the web app, and the public page, rendered by the server, shows them to a browser with
 * JavaScript disabled.
 */

const DIST = path.resolve(process.env['WEB_DIST_DIR'] ?? path.resolve(__dirname, '../dist'), 'index.html');

let server: TestServer;
let owner: Awaited<ReturnType<typeof signup>>;
let browser: Browser;
let context: BrowserContext;
let app: Page;
const slug = `acme-${process.pid}`;

beforeAll(async () => {
  if (!existsSync(DIST)) throw new Error(`the web app is not built (${DIST} is missing): run make build`);
  server = await startTestServer();
  owner = await signup(server.api);
  browser = await launchChromium();
  ({ context, page: app } = await openWebApp(browser, server.url, owner.token));
}, 120_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await server?.close();
});

describe('the status page admin pages', () => {
  it('lists no pages at first and reaches the list from the top bar', async () => {
    await app.goto(`/orgs/${owner.organization.id}/projects`);
    await app.getByRole('link', { name: 'Status pages' }).click();
    await app.getByRole('heading', { name: 'No status pages yet' }).waitFor();
  });

  it('creates a page with components', async () => {
    await app.getByLabel('Title').fill('Acme Cloud');
    await app.getByLabel('Slug').fill(slug);
    await app.getByLabel('Components').fill('API\nDashboard\nIngest');
    await app.getByRole('button', { name: 'Create status page' }).click();
    await app.getByRole('heading', { name: 'Acme Cloud', level: 1 }).waitFor();
    await app.getByRole('heading', { name: 'No active incidents' }).waitFor();
    // The breadcrumb names the page after the list.
    await app.getByText(`Status pages / ${slug}`).waitFor();
    const stored = await server.api.get(`/api/orgs/${owner.organization.id}/status-pages/${slug}`, { token: owner.token });
    expect(stored.body.components).toEqual([{ name: 'API' }, { name: 'Dashboard' }, { name: 'Ingest' }]);
  });

  it('opens an incident on one component and posts an update to it', async () => {
    await app.getByLabel('Incident title').fill('Elevated API error rates');
    await app.getByLabel('Impact').selectOption('major');
    await app.getByRole('checkbox', { name: 'API' }).check();
    await app.getByLabel('First update (optional)').fill('We are looking into failing requests.');
    await app.getByRole('button', { name: 'Open incident' }).click();
    const incident = app.getByRole('article', { name: 'Elevated API error rates' });
    await incident.waitFor();
    const form = app.getByRole('form', { name: 'Post an update to Elevated API error rates' });
    await form.getByLabel('New status').selectOption('identified');
    await form.getByLabel('Message').fill('A bad deploy of the API; rolling back.');
    await form.getByRole('button', { name: 'Post update' }).click();
    const updates = incident.getByRole('list', { name: 'Updates of Elevated API error rates' }).getByRole('listitem');
    await updates.filter({ hasText: 'rolling back' }).waitFor();
    expect(await updates.allInnerTexts()).toEqual([expect.stringContaining('Identified'), expect.stringContaining('Investigating')]);
    await screenshot(app, 'status-admin');
  });

  it('shows the incident on the public page to a browser without JavaScript', async () => {
    // A resolved outage of the Dashboard twelve days ago, 09:00 to 15:00 UTC, for its bar and the history.
    const base = `/api/orgs/${owner.organization.id}/status-pages/${slug}/incidents`;
    const past = await server.api.post(base, { token: owner.token, body: { title: 'Dashboard unavailable', status: 'investigating', impact: 'critical', components: ['Dashboard'] } });
    await server.api.post(`${base}/${past.body.id}/updates`, { token: owner.token, body: { status: 'resolved', message: 'A failed database was replaced.' } });
    const day = Math.floor(Date.now() / 86_400_000) * 86_400_000 - 12 * 86_400_000;
    // The page has been up for a month: the outage falls on one of its days (days before a page existed have no data).
    await server.standalone.metadata.query(`update status_pages set created_at = now() - interval '30 days' where slug = $1`, [slug]);
    await server.standalone.metadata.query('update status_incidents set created_at = $2, resolved_at = $3 where id = $1', [
      past.body.id,
      new Date(day + 9 * 3_600_000),
      new Date(day + 15 * 3_600_000),
    ]);
    const visitor = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1100, height: 900 }, locale: 'en-US' });
    const page = await visitor.newPage();
    const response = await page.goto(`${server.url}/status/${slug}`);
    expect(response!.status()).toBe(200);
    expect(response!.headers()['content-type']).toBe('text/html; charset=utf-8');
    await page.getByRole('heading', { name: 'Acme Cloud', level: 1 }).waitFor();
    expect(await page.getByText('Partial outage', { exact: true }).count()).toBeGreaterThan(0);
    const active = page.getByRole('article').filter({ hasText: 'Elevated API error rates' });
    expect(await active.getByRole('listitem').allInnerTexts()).toEqual([
      expect.stringContaining('A bad deploy of the API; rolling back.'),
      expect.stringContaining('We are looking into failing requests.'),
    ]);
    for (const component of ['API', 'Dashboard', 'Ingest']) {
      expect(await page.getByRole('list', { name: `Uptime of ${component}, last 90 days` }).getByRole('listitem').count()).toBe(90);
    }
    const outageBar = page.getByRole('list', { name: 'Uptime of Dashboard, last 90 days' }).getByRole('listitem').nth(77);
    expect(await outageBar.getAttribute('title')).toBe(`${new Date(day).toISOString().slice(0, 10)} · 75% uptime · Major outage: Dashboard unavailable`);
    await page.getByRole('region', { name: 'Incident history' }).getByText('A failed database was replaced.').waitFor();
    // Statuses in words read at 4.5:1 or more (WCAG AA), on the banner and beside each component, in light and dark.
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      const ratios = await page.locator('.overall, .status').evaluateAll((elements) => {
        const rgb = (colour: string) => colour.match(/\d+(\.\d+)?/g)!.slice(0, 3).map(Number);
        const luminance = (colour: string) => {
          const [r, g, b] = rgb(colour).map((value) => value / 255).map((value) => (value <= 0.03928 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4));
          return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
        };
        const background = (element: Element | null): string => {
          for (let at = element; at; at = at.parentElement) {
            const colour = getComputedStyle(at).backgroundColor;
            if (!/rgba\(.*, 0\)$|transparent/.test(colour)) return colour;
          }
          return 'rgb(255, 255, 255)';
        };
        return elements.map((element) => {
          const [a, b] = [luminance(getComputedStyle(element).color), luminance(background(element))];
          return { text: element.textContent, ratio: (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05) };
        });
      });
      expect(ratios.length).toBeGreaterThan(3);
      expect(ratios.filter((entry) => entry.ratio < 4.5)).toEqual([]);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await screenshot(page, 'status-public');
    // On a phone the bars are the last 30 days, wide enough to see and to tap.
    await page.setViewportSize({ width: 390, height: 844 });
    const shown = await page
      .getByRole('list', { name: 'Uptime of Dashboard, last 90 days' })
      .getByRole('listitem')
      .evaluateAll((bars) => bars.filter((bar) => getComputedStyle(bar).display !== 'none').map((bar) => bar.getBoundingClientRect().width));
    expect(shown).toHaveLength(30);
    expect(Math.min(...shown)).toBeGreaterThan(5);
    await page.getByRole('region', { name: 'Dashboard' }).getByText('30 days ago').waitFor();
    expect(await page.getByRole('region', { name: 'Dashboard' }).getByText('90 days ago').isVisible()).toBe(false);
    await screenshot(page, 'status-public-phone');
    await visitor.close();
  });

  it('resolves the incident from the admin page, and the public page moves it to the history', async () => {
    const form = app.getByRole('form', { name: 'Post an update to Elevated API error rates' });
    await form.getByLabel('Message').fill('Rolled back; error rates are normal.');
    await form.getByRole('button', { name: 'Resolve' }).click();
    await app.getByRole('heading', { name: 'No active incidents' }).waitFor();
    await app.getByRole('region', { name: 'Resolved in the last 90 days' }).getByRole('article', { name: 'Elevated API error rates' }).waitFor();

    const visitor = await browser.newContext({ javaScriptEnabled: false });
    const page = await visitor.newPage();
    await page.goto(`${server.url}/status/${slug}`);
    await page.getByText('All systems operational').waitFor();
    await page.getByText('No active incidents.').waitFor();
    const history = page.getByRole('region', { name: 'Incident history' });
    await history.getByText('Rolled back; error rates are normal.').waitFor();
    await visitor.close();
  });

  it('lists the page with its public address', async () => {
    await app.getByRole('link', { name: 'Status pages', exact: true }).first().click();
    const row = app.getByRole('row').filter({ hasText: 'Acme Cloud' });
    expect(await row.getByRole('link', { name: `/status/${slug}` }).getAttribute('href')).toBe(`${server.url}/status/${slug}`);
    expect(await row.getByRole('cell').nth(2).innerText()).toBe('API, Dashboard, Ingest');
    await screenshot(app, 'status-list');
  });

  it('answers a page that is not there with a page that says so and a link back to the list', async () => {
    await app.goto(`/orgs/${owner.organization.id}/status-pages/no-such-page`);
    await app.getByRole('heading', { name: 'No such status page' }).waitFor();
    expect(await app.getByText('NOT_FOUND').count()).toBe(0);
    await app.getByRole('link', { name: 'All status pages' }).click();
    await app.getByRole('row').filter({ hasText: 'Acme Cloud' }).waitFor();
  });
});
