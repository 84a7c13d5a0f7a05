import type { Browser, Page } from 'playwright-core';
import { eventually, launchChromium, openWebApp, screenshot, setupProject, startTestServer, type ProjectSetup, type TestServer } from '@tlm/testkit';
import { sendRouteLogs } from './routeLogs';

/**
 * Dashboards in Debian's headless Chromium against a started server: one created, panels added on its page and from
 * the explorer, drawn under the dashboard's time range, moved, edited (a query the server refuses changes nothing),
 * removed; the dashboard renamed and deleted.
 */

let server: TestServer;
let setup: ProjectSetup;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  server = await startTestServer();
  setup = await setupProject(server.api);
  await sendRouteLogs(server, setup);
  browser = await launchChromium();
  ({ page } = await openWebApp(browser, server.url, setup.session.token));
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const projectPage = (path: string) => `/orgs/${setup.session.organization.id}/projects/${setup.project.id}/${path}`;
const apiPath = () => `/api/orgs/${setup.session.organization.id}/projects/${setup.project.id}/dashboards`;
const stored = async () => (await server.api.get(apiPath(), { token: setup.session.token })).body.dashboards as { id: string; name: string; panels: { id: string; title: string; query: string; width: number }[] }[];
const panel = (title: string) => page.getByRole('region', { name: title, exact: true });

describe('dashboards', () => {
  it('creates a dashboard from the list, which opens empty', async () => {
    await page.goto(projectPage('dashboards'));
    await page.getByRole('heading', { name: 'No dashboards yet' }).waitFor();
    await page.getByLabel('Name').fill('Checkout health');
    await page.getByLabel('Description').fill('Errors of the checkout');
    await page.getByRole('button', { name: 'Create dashboard' }).click();
    await page.getByRole('heading', { name: 'Checkout health', level: 1 }).waitFor();
    await page.getByRole('heading', { name: 'No panels yet' }).waitFor();
    expect((await stored()).map((dashboard) => dashboard.name)).toEqual(['Checkout health']);
  });

  it('adds a panel written in the GQL editor and draws it under the dashboard\'s range', async () => {
    await page.getByRole('button', { name: 'Add panel' }).click();
    const form = page.getByRole('form', { name: 'New panel' });
    await form.getByLabel('Title').fill('Errors by route');
    const editor = form.getByRole('textbox', { name: 'GQL query' });
    // The query starts empty (an example is its placeholder), so typing is the query, and nothing empty is sent.
    await form.locator('.cm-placeholder').waitFor();
    expect(await form.getByRole('button', { name: 'Add panel' }).isDisabled()).toBe(true);
    await editor.click();
    await page.keyboard.insertText('from:logs severity:error | count by route');
    await form.getByRole('button', { name: 'Add panel' }).click();
    const errors = panel('Errors by route');
    // The range of the picker (the last 24 hours by default) replaces the query's own.
    await errors.getByText('from:logs severity:error last:24h | count by route', { exact: true }).waitFor();
    await errors.getByText('Show the 2 groups as a table').click();
    await errors.getByRole('row', { name: '/checkout 2' }).waitFor();
    expect((await stored())[0]!.panels).toEqual([{ id: expect.any(String), title: 'Errors by route', query: 'from:logs severity:error | count by route', width: 1 }]);
  });

  it('adds the query the explorer ran to the dashboard, as a panel drawn as a number', async () => {
    await page.goto(projectPage(`explore?q=${encodeURIComponent('from:logs | count')}`));
    await page.locator('.explore-stat-value').getByText('4', { exact: true }).waitFor();
    // An edit not yet run is not what the results show: the button waits for it to run.
    const editor = page.getByRole('textbox', { name: 'GQL query' });
    await editor.click();
    await page.keyboard.press('End');
    await page.keyboard.insertText(' by severity');
    expect(await page.getByRole('button', { name: 'Add to dashboard' }).isDisabled()).toBe(true);
    await page.keyboard.press('Control+A');
    await page.keyboard.insertText('from:logs | count');
    await page.getByRole('button', { name: 'Add to dashboard' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add to a dashboard' });
    expect(await dialog.getByRole('combobox').first().inputValue()).toBe((await stored())[0]!.id);
    await dialog.getByLabel('Panel title').fill('All logs');
    await dialog.getByRole('button', { name: 'Add panel' }).click();
    await dialog.getByText('Added to Checkout health.').waitFor();
    await dialog.getByRole('link', { name: 'Open the dashboard' }).click();
    await panel('All logs').locator('.explore-stat-value').getByText('4', { exact: true }).waitFor();
    await panel('Errors by route').waitFor();
    await screenshot(page, 'dashboard');
  });

  it('keeps the range in the URL, and "as each query says" runs the saved queries', async () => {
    await page.getByLabel('Time range').selectOption('1h');
    await page.waitForURL((url) => url.searchParams.get('range') === '1h');
    await panel('All logs').getByText('from:logs last:1h | count', { exact: true }).waitFor();
    await page.getByLabel('Time range').selectOption('saved');
    await panel('All logs').getByText('from:logs | count', { exact: true }).waitFor();
  });

  it('moves a panel earlier, which the server keeps, keeping focus on the moved panel', async () => {
    await page.getByRole('button', { name: 'Move All logs earlier' }).click();
    await eventually(async () => expect((await stored())[0]!.panels.map((kept) => kept.title)).toEqual(['All logs', 'Errors by route']));
    // First now, it cannot go earlier: focus is on the way back, in its new place.
    await eventually(async () => expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Move All logs later'));
    expect(await page.title()).toBe(`${(await stored())[0]!.name} · tlm`);
    await page.reload();
    await panel('Errors by route').waitFor();
    const titles = await page.locator('.dashboard-grid h2').allTextContents();
    expect(titles).toEqual(['All logs', 'Errors by route']);
  });

  it('says why a changed query is refused, changing nothing, and saves a good one', async () => {
    const before = await stored();
    await page.getByRole('button', { name: 'Edit Errors by route' }).click();
    const form = page.getByRole('form', { name: 'Edit panel Errors by route' });
    const editor = form.getByRole('textbox', { name: 'GQL query' });
    await editor.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.insertText('from:logs | count by');
    await form.getByRole('button', { name: 'Save panel' }).click();
    // The server's message, without the index it names the panel by in the list.
    const refusal = form.getByRole('alert').filter({ hasText: 'Nothing was saved.' });
    await refusal.waitFor();
    expect(await refusal.getAttribute('data-code')).toBe('VALIDATION_ERROR');
    expect(await refusal.textContent()).not.toContain('panels[');
    expect(await stored()).toEqual(before);
    await editor.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.insertText('from:logs severity:error | count by route');
    await form.getByLabel('Width').selectOption('2');
    await form.getByRole('button', { name: 'Save panel' }).click();
    await panel('Errors by route').waitFor();
    expect((await stored())[0]!.panels[1]).toEqual({ ...before[0]!.panels[1], width: 2 });
  });

  it('refuses a change made on a copy someone else has changed since, says so and reads the dashboard again', async () => {
    const [dashboard] = await stored();
    const kept = dashboard!.panels.map(({ id, title, query, width }) => ({ id, title, query, width }));
    const elsewhere = await server.api.put(`${apiPath()}/${dashboard!.id}`, { token: setup.session.token, body: { panels: [...kept, { title: 'Added elsewhere', query: 'from:logs | count' }] } });
    expect(elsewhere.status).toBe(200);
    await page.getByRole('button', { name: 'Move All logs later' }).click();
    // Said above the panels, where it is seen.
    const conflict = page.getByRole('alert').filter({ hasText: 'Someone else changed this dashboard since it was opened' });
    await conflict.waitFor();
    expect(await conflict.evaluate((notice) => notice.getBoundingClientRect().top < window.innerHeight)).toBe(true);
    await panel('Added elsewhere').waitFor();
    expect((await stored())[0]!.panels.map((panel) => panel.title)).toEqual(['All logs', 'Errors by route', 'Added elsewhere']);
    await page.getByRole('button', { name: 'Remove Added elsewhere' }).click();
    await page.getByRole('dialog', { name: 'Remove Added elsewhere?' }).getByRole('button', { name: 'Remove panel' }).click();
    await panel('Added elsewhere').waitFor({ state: 'detached' });
  });

  it('removes a panel only once confirmed, renames the dashboard and deletes it', async () => {
    // Cancelled, the panel stays.
    await page.getByRole('button', { name: 'Remove All logs' }).click();
    const confirm = page.getByRole('dialog', { name: 'Remove All logs?' });
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'hidden' });
    expect((await stored())[0]!.panels.map((kept) => kept.title)).toEqual(['All logs', 'Errors by route']);
    await page.getByRole('button', { name: 'Remove All logs' }).click();
    await confirm.getByRole('button', { name: 'Remove panel' }).click();
    await panel('All logs').waitFor({ state: 'detached' });
    expect((await stored())[0]!.panels.map((kept) => kept.title)).toEqual(['Errors by route']);
    // Focus goes to the panel that took its place.
    await eventually(async () => expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Remove Errors by route'));
    await page.getByRole('button', { name: 'Rename' }).click();
    await page.getByRole('form', { name: 'Name and description' }).getByLabel('Name').fill('Checkout');
    await page.getByRole('form', { name: 'Name and description' }).getByRole('button', { name: 'Save' }).click();
    await page.getByRole('heading', { name: 'Checkout', level: 1 }).waitFor();
    await eventually(async () => expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Rename'));
    expect(await page.title()).toBe('Checkout · tlm');
    const id = (await stored())[0]!.id;
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete dashboard' }).click();
    await page.getByRole('heading', { name: 'No dashboards yet' }).waitFor();
    // The list says why the dashboard is gone from it.
    await page.getByRole('status').filter({ hasText: 'Deleted "Checkout".' }).waitFor();
    expect(await stored()).toEqual([]);
    // Its link now says there is no such dashboard.
    await page.goto(projectPage(`dashboards/${id}`));
    await page.getByRole('heading', { name: 'No such dashboard' }).waitFor();
  });
});
