import type { Browser, Page } from 'playwright-core';
import { createKey, createProject, launchChromium, openWebApp, screenshot, signup, startTestServer, type Session, type TestServer } from '@tlm/testkit';

/**
 * Plan limits in the browser: a 402 QUOTA_EXCEEDED answer opens a dialog with the limit, what is in use and the plans
 * that allow more; restoring past the limit is offered as "Restore anyway" (the forced restore).
 */

let server: TestServer;
let browser: Browser;
let page: Page;
let session: Session;
let projectId: string;

beforeAll(async () => {
  server = await startTestServer();
  session = await signup(server.api);
  projectId = (await createProject(server.api, session, { name: 'quota' })).id;
  browser = await launchChromium();
  ({ page } = await openWebApp(browser, server.url, session.token));
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const keysPath = () => `/orgs/${session.organization.id}/projects/${projectId}/keys`;

async function liveKeyNames(): Promise<string[]> {
  const reply = await server.api.get(`/api/orgs/${session.organization.id}/projects/${projectId}/keys`, { token: session.token });
  return reply.body.keys.map((key: { name: string }) => key.name).sort();
}

describe('plan limits in the browser', () => {
  it('shows the key limit in a dialog when a key over it is refused, and creates nothing', async () => {
    for (let n = 1; n <= 5; n++) await createKey(server.api, session, projectId, { type: 'secret', name: `key ${n}` });
    await page.goto(keysPath());
    await page.getByLabel('Name', { exact: true }).fill('one too many');
    await page.getByRole('button', { name: 'Create key' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('The free plan allows 5 API keys; 5 are in use.').waitFor();
    await dialog.getByText('starter').waitFor();
    await screenshot(page, 'quota-key-create');
    await dialog.getByRole('button', { name: 'Close' }).click();
    expect(await liveKeyNames()).toEqual(['key 1', 'key 2', 'key 3', 'key 4', 'key 5']);
  });

  it('offers "Restore anyway" when restoring a deleted key would go past the limit, and restores it on request', async () => {
    const keys = (await server.api.get(`/api/orgs/${session.organization.id}/projects/${projectId}/keys`, { token: session.token })).body.keys;
    const first = keys.find((key: { name: string }) => key.name === 'key 1');
    expect((await server.api.delete(`/api/orgs/${session.organization.id}/projects/${projectId}/keys/${first.id}`, { token: session.token })).status).toBe(200);
    await createKey(server.api, session, projectId, { type: 'secret', name: 'key 6' });

    await page.goto(keysPath());
    const deleted = page.getByRole('region', { name: 'Recently deleted' });
    await deleted.getByRole('row', { name: /key 1/ }).getByRole('button', { name: 'Restore' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('The free plan allows 5 API keys; 5 are in use.').waitFor();
    await screenshot(page, 'quota-key-restore');
    expect(await liveKeyNames()).toEqual(['key 2', 'key 3', 'key 4', 'key 5', 'key 6']);
    await dialog.getByRole('button', { name: 'Restore anyway' }).click();
    await deleted.getByRole('row', { name: /key 1/ }).waitFor({ state: 'detached' });
    expect(await liveKeyNames()).toEqual(['key 1', 'key 2', 'key 3', 'key 4', 'key 5', 'key 6']);
  });

  it('shows the project limit in a dialog when a project over it is refused, and creates nothing', async () => {
    await createProject(server.api, session, { name: 'second' });
    await createProject(server.api, session, { name: 'third' });
    await page.goto(`/orgs/${session.organization.id}/projects`);
    await page.getByLabel('Project name').fill('fourth');
    await page.getByRole('button', { name: 'Create project' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('The free plan allows 3 projects; 3 are in use.').waitFor();
    await screenshot(page, 'quota-project-create');
    const projects = await server.api.get(`/api/orgs/${session.organization.id}/projects`, { token: session.token });
    expect(projects.body.projects.map((project: { name: string }) => project.name).sort()).toEqual(['quota', 'second', 'third']);
  });
});
