import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium, openWebApp, screenshot, setupProject, startTestServer, type ProjectSetup, type TestServer } from '@tlm/testkit';

/**
 * The Exports page in Debian's headless Chromium against a started server: a CSV export of ingested logs started in
 * the form runs to done while the page polls, and its download holds the logs' rows.
 */

const DIST = path.resolve(process.env['WEB_DIST_DIR'] ?? path.resolve(__dirname, '../dist'), 'index.html');

let server: TestServer;
let setup: ProjectSetup;
let browser: Browser;
let context: BrowserContext;
let app: Page;
const marker = `export-${process.pid}`;

beforeAll(async () => {
  if (!existsSync(DIST)) throw new Error(`the web app is not built (${DIST} is missing): run make build`);
  server = await startTestServer({ EXPORT_POLL_MS: '500' });
  setup = await setupProject(server.api);
  const sent = await server.api.post('/v1/logs', {
    token: setup.secretKey,
    body: { batch: [1, 2, 3, 4].map((n) => ({ severity: n === 4 ? 'error' : 'info', message: `${marker} line ${n}`, properties: { n } })) },
  });
  expect(sent.body.accepted).toBe(4);
  browser = await launchChromium();
  ({ context, page: app } = await openWebApp(browser, server.url, setup.session.token));
}, 120_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await server?.close();
});

describe('the exports page', () => {
  it('shows no exports at first, reached from the project sidebar', async () => {
    await app.goto(`/orgs/${setup.session.organization.id}/projects/${setup.project.id}/explore`);
    await app.getByRole('navigation', { name: 'Project pages' }).getByRole('link', { name: 'Exports' }).click();
    await app.getByRole('heading', { name: 'No exports yet' }).waitFor();
  });

  it('starts a CSV export of a query, watches it reach done and downloads its rows', async () => {
    await app.getByRole('radio', { name: /^CSV/ }).check();
    await app.getByRole('textbox', { name: /^GQL query/ }).fill(`from:logs "${marker}" last:1h`);
    await app.getByRole('button', { name: 'Start export' }).click();
    await app.getByText('Export started').waitFor();
    const row = app.getByRole('row').filter({ hasText: 'CSV' });
    await row.getByRole('link', { name: /^Download the .+ export of / }).waitFor({ timeout: 30_000 });
    await row.getByText('done').waitFor();
    // Its query says what it holds; the rows follow the status.
    expect(await row.getByRole('cell').nth(2).innerText()).toBe(`from:logs "${marker}" last:1h`);
    expect(await row.getByRole('cell').nth(4).innerText()).toBe('4');
    await screenshot(app, 'exports');

    const [download] = await Promise.all([app.waitForEvent('download'), row.getByRole('link', { name: /^Download the .+ export of / }).click()]);
    const lines = readFileSync((await download.path())!, 'utf8').trimEnd().split('\r\n');
    expect(lines).toHaveLength(5);
    const header = lines[0]!.split(',');
    const message = header.indexOf('message');
    expect(message).toBeGreaterThanOrEqual(0);
    expect(lines.slice(1).map((line) => line.split(',')[message]).sort()).toEqual([1, 2, 3, 4].map((n) => `${marker} line ${n}`));
  });

  it('answers a query the server refuses with its error, starting nothing', async () => {
    await app.getByRole('textbox', { name: /^GQL query/ }).fill('from:logs | count by');
    await app.getByRole('button', { name: 'Start export' }).click();
    await app.locator('[role=alert][data-code=VALIDATION_ERROR]').waitFor();
    expect(await app.getByText('VALIDATION_ERROR').count()).toBe(0);
    expect(await app.getByRole('row').filter({ hasText: 'CSV' }).count()).toBe(1);
  });
});
