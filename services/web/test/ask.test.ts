import type { Browser, Page } from 'playwright-core';
import { eventually, launchChromium, openWebApp, screenshot, setupProject, startTestServer, type ProjectSetup, type TestServer } from '@tlm/testkit';
import { sendRouteLogs } from './routeLogs';

/**
 * "Ask AI" in Debian's headless Chromium against a started server: questions in plain words answered from the
 * project's logs by the built-in translator, streamed into the page with the query and what it read; follow-ups,
 * the way to the explorer and back, a new conversation, and the plan's token allowance used up.
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

const askPath = () => `/orgs/${setup.session.organization.id}/projects/${setup.project.id}/ask`;
const conversations = async () =>
  (await server.standalone.metadata.query<{ n: number }>('select count(*)::int as n from ai_conversations where project_id = $1', [setup.project.id]))[0]!.n;
const turns = () => page.getByRole('list', { name: 'Conversation' }).locator(':scope > li');

describe('Ask AI', () => {
  it('answers an example question with the number, the query behind it and a link to the explorer', async () => {
    await page.goto(askPath());
    await page.getByRole('heading', { name: 'Ask AI', level: 1 }).waitFor();
    await screenshot(page, 'ask-empty');
    await page.getByRole('button', { name: 'How many error logs in the last hour?' }).click();
    const answer = turns().nth(1);
    await answer.getByText('from:logs severity:error | count | last:1h', { exact: true }).waitFor();
    // The query is shown above the reply, so the reply leaves out the query it ends with for other clients.
    await answer.getByText('The answer is 3.', { exact: true }).waitFor();
    expect(await answer.locator('.ask-value').textContent()).toBe('3');
    expect(await turns().nth(0).textContent()).toBe('You:How many error logs in the last hour?');
    // The conversation is a log: a screen reader reads each turn as it is added, the answer once it is whole.
    const log = page.getByRole('log', { name: 'Conversation' });
    expect(await log.getAttribute('aria-live')).toBe('polite');
    expect(await log.getByRole('list', { name: 'Conversation' }).count()).toBe(1);
    expect(await answer.getAttribute('aria-busy')).toBe('false');
    expect(await conversations()).toBe(1);
  });

  it('builds a follow-up on the question before, sent with Enter, and shows its groups as a table', async () => {
    // A short window, where the conversation is taller than the page.
    await page.setViewportSize({ width: 1360, height: 560 });
    const input = page.getByLabel('Your question');
    await input.fill('by route');
    await input.press('Enter');
    const answer = turns().nth(3);
    const groups = answer.getByRole('table', { name: 'Groups of from:logs severity:error | count by route | last:1h' });
    await groups.getByRole('row', { name: '/checkout 2' }).waitFor();
    await groups.getByRole('row', { name: '/search 1' }).waitFor();
    expect(await input.inputValue()).toBe('');
    // The newest answer is scrolled into view, its end above the question box that stays at the window's bottom.
    await eventually(async () => {
      const reply = (await answer.locator('.ask-reply').boundingBox())!;
      const form = (await page.locator('.ask-form').boundingBox())!;
      expect(reply.y + reply.height).toBeLessThanOrEqual(form.y + 1);
      expect(reply.y).toBeGreaterThanOrEqual(0);
    });
    await page.setViewportSize({ width: 1360, height: 900 });
    // The same server conversation: the follow-up needed it.
    expect(await conversations()).toBe(1);
    await screenshot(page, 'ask-conversation');
  });

  it('opens a query in the explorer, and keeps the conversation for the way back', async () => {
    await turns().nth(3).getByRole('link', { name: 'Open in Explore' }).click();
    await page.getByRole('heading', { name: 'Explore' }).waitFor();
    expect(new URL(page.url()).searchParams.get('q')).toBe('from:logs severity:error | count by route | last:1h');
    await page.goBack();
    await page.getByRole('heading', { name: 'Ask AI', level: 1 }).waitFor();
    expect(await turns().count()).toBe(4);
    // A reload too: the tab keeps it.
    await page.reload();
    await turns().nth(3).getByRole('table').waitFor();
    // And a follow-up after the reload still goes on with the same server conversation.
    await page.getByLabel('Your question').fill('and over the last 7 days?');
    await page.getByRole('button', { name: 'Ask', exact: true }).click();
    await turns().nth(5).getByText('from:logs severity:error | count by route | last:7d', { exact: true }).waitFor();
    expect(await conversations()).toBe(1);
  });

  it('starts a new conversation, whose examples are each a question answered with a query', async () => {
    await page.getByRole('button', { name: 'New conversation' }).click();
    await page.getByRole('heading', { name: 'Try' }).waitFor();
    const examples = await page.getByRole('region', { name: 'Try' }).getByRole('button').allTextContents();
    expect(examples).toHaveLength(4);
    const chat = `/api/orgs/${setup.session.organization.id}/projects/${setup.project.id}/ai/chat`;
    for (const example of examples) {
      const answer = await server.api.post(chat, { token: setup.session.token, body: { message: example } });
      expect([example, answer.status, answer.body.queries.length]).toEqual([example, 200, 1]);
    }
    expect(await page.getByRole('list', { name: 'Conversation' }).count()).toBe(0);
    await page.reload();
    await page.getByRole('heading', { name: 'Try' }).waitFor();
  });

  it("says when the plan's chat tokens are used up, with the way to the plan, storing nothing", async () => {
    const month = `${new Date().toISOString().slice(0, 7)}-01`;
    await server.standalone.metadata.query(
      `insert into usage_counters (project_id, signal, month, items) values ($1, 'ai_prompt_tokens', $2, 100000)
       on conflict (project_id, signal, month) do update set items = excluded.items`,
      [setup.project.id, month],
    );
    const stored = await conversations();
    await page.getByLabel('Your question').fill('how many logs today?');
    await page.getByLabel('Your question').press('Enter');
    const refused = turns().nth(1).getByRole('alert');
    await refused.getByText('The free plan includes 100,000 AI chat tokens a month.').waitFor();
    expect(await refused.getAttribute('data-code')).toBe('QUOTA_EXCEEDED');
    await refused.getByRole('link', { name: 'See the plan and its usage' }).waitFor();
    await screenshot(page, 'ask-quota');
    expect(await conversations()).toBe(stored);
    // The question can be asked again once there are tokens: the form is free.
    expect(await page.getByRole('button', { name: 'Ask', exact: true }).isDisabled()).toBe(true);
    await page.getByLabel('Your question').fill('how many logs?');
    expect(await page.getByRole('button', { name: 'Ask', exact: true }).isDisabled()).toBe(false);
  });
});
