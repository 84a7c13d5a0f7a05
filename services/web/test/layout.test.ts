import type { Browser, Page } from 'playwright-core';
import { eventually, gqlRows, launchChromium, openWebApp, screenshot, setupProject, startTestServer, type ProjectSetup, type TestServer } from '@tlm/testkit';

/**
 * The shell on a phone and on a laptop: no signed-in page is wider than the screen. On a phone the top bar wraps and
 * the project's pages become a strip above the content; a table wider than the screen scrolls inside its own box. On
 * a laptop an issue whose culprit is a long path does not widen the issue list past the window. Each page names its
 * browser tab.
 */

/** A culprit as a deep monorepo names it: function and path, 120 characters without a space to break at. */
const LONG_FILE = 'src/authentication/signup/validation/fields/validateSignupFormFieldsAgainstTheOrganizationPolicies.ts';
/** A function name of 56 characters in an issue's title. */
const LONG_FUNCTION = 'renderTreeRecursivelyWithAVeryLongFunctionNameForLayout';

let server: TestServer;
let setup: ProjectSetup;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  server = await startTestServer();
  setup = await setupProject(server.api);
  browser = await launchChromium();
  const logs = await server.api.post('/v1/logs', {
    token: setup.secretKey,
    body: { batch: Array.from({ length: 30 }, (_, index) => ({ severity: index % 3 === 0 ? 'error' : 'info', message: `checkout step ${index} finished`, properties: { route: '/checkout', duration_ms: 40 + index } })) },
  });
  expect(logs.status).toBe(202);
  const error = {
    event_id: 'a'.repeat(32),
    // An hour and more ago: "Last seen" reads "1 h 22 min ago", the widest it gets.
    timestamp: (Date.now() - 82 * 60_000) / 1000,
    platform: 'javascript',
    exception: { values: [{ type: 'ValidationError', value: 'the e-mail address is taken', stacktrace: { frames: [{ function: 'validateSignupFormFields', filename: LONG_FILE, lineno: 12, in_app: true }] } }] },
  };
  // A second issue whose title holds one long identifier, which a phone's title column cannot hold on one line.
  const long = { ...error, event_id: 'b'.repeat(32), exception: { values: [{ type: 'RangeError', value: `could not draw ${LONG_FUNCTION}`, stacktrace: { frames: [{ function: LONG_FUNCTION, filename: 'src/ui/tree.ts', lineno: 3, in_app: true }] } }] } };
  for (const event of [error, long]) {
    const sent = await server.api.post('/v1/envelope', { token: setup.secretKey, body: `${JSON.stringify({ event_id: event.event_id })}\n{"type":"event"}\n${JSON.stringify(event)}\n` });
    expect(sent.status).toBe(200);
  }
  await eventually(async () => expect(await gqlRows(server.api, setup.secretKey, 'from:issues | sort title | fields culprit')).toEqual([{ culprit: expect.stringContaining('src/ui/tree.ts') }, { culprit: expect.stringContaining(LONG_FILE) }]), 15_000, 200);
  await eventually(async () => expect(await gqlRows(server.api, setup.secretKey, 'from:logs | count')).toEqual([{ value: 30 }]), 15_000, 200);
  // A trace whose root span has a long name, for the traces list on a phone.
  const start = BigInt(Date.now() - 120_000) * 1_000_000n;
  const traces = await server.api.post('/v1/otlp/v1/traces', {
    token: setup.secretKey,
    body: {
      resourceSpans: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'web-frontend' } }] },
          scopeSpans: [{ scope: { name: 'layout' }, spans: [{ traceId: 'ab'.repeat(16), spanId: 'cd'.repeat(8), name: 'POST /api/payments/charge-with-a-rather-long-operation-name', kind: 2, startTimeUnixNano: String(start), endTimeUnixNano: String(start + 580_000_000n), status: { code: 2 } }] }],
        },
      ],
    },
  });
  expect(traces.status).toBe(200);
  ({ page } = await openWebApp(browser, server.url, setup.session.token));
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const orgPath = () => `/orgs/${setup.session.organization.id}`;
const projectPath = () => `${orgPath()}/projects/${setup.project.id}`;

/** How far the page reaches past the window sideways, in CSS pixels: 0 when nothing scrolls the page sideways. */
const overflow = (target: Page) => target.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

describe('the shell on narrow and wide screens', () => {
  it('fits every signed-in page of a phone 390 pixels wide, the top bar and the project pages wrapping instead', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    const pages: [string, string, RegExp, string][] = [
      ['projects', `${orgPath()}/projects`, /^Projects/, 'Projects · tlm'],
      ['explore', `${projectPath()}/explore`, /^Explore$/, 'Explore · tlm'],
      ['ask', `${projectPath()}/ask`, /^Ask AI$/, 'Ask AI · tlm'],
      ['dashboards', `${projectPath()}/dashboards`, /^Dashboards$/, 'Dashboards · tlm'],
      ['issues', `${projectPath()}/issues`, /^Issues$/, 'Issues · tlm'],
      ['traces', `${projectPath()}/traces`, /^Traces$/, 'Traces · tlm'],
      ['keys', `${projectPath()}/keys`, /^API keys/, 'API keys · tlm'],
      ['organization', `${orgPath()}/settings`, /^Organization/, 'Organization · tlm'],
      ['usage', `${orgPath()}/usage`, /^Plan/, 'Plan & usage · tlm'],
    ];
    for (const [name, url, heading, title] of pages) {
      await page.goto(url);
      await page.getByRole('heading', { level: 1, name: heading }).waitFor();
      // A page's tables fill in after its heading; a table wider than the phone is what used to widen the page.
      if (name === 'explore') {
        await page.getByText(/^30 rows/).waitFor();
        // A log's message is the column a phone shows first, not one to scroll to.
        const message = (await page.getByRole('columnheader', { name: 'message' }).boundingBox())!;
        expect(message.x + 100).toBeLessThanOrEqual(390);
        // An opened row's fields wrap within the screen, though the table is wider.
        await page.getByRole('button', { name: 'Row details' }).first().click();
        const detail = (await page.locator('.explore-detail').first().boundingBox())!;
        expect(detail.x + detail.width).toBeLessThanOrEqual(390);
        await screenshot(page, 'phone-explore-row');
        await page.getByRole('button', { name: 'Row details' }).first().click();
      }
      if (name === 'issues') {
        await page.getByRole('link', { name: /ValidationError/ }).waitFor();
        // A row's Resolve is on the screen, and the status tabs keep one line.
        for (const name of [/^Resolve ValidationError/, /^Resolve RangeError/]) {
          const resolve = (await page.getByRole('button', { name }).boundingBox())!;
          expect(resolve.x + resolve.width).toBeLessThanOrEqual(390);
        }
        const tabs = await page.getByRole('tab').evaluateAll((all) => new Set(all.map((tab) => Math.round(tab.getBoundingClientRect().top))).size);
        expect(tabs).toBe(1);
      }
      if (name === 'traces') {
        // A trace's duration and start stay on the screen beside a long root span name and its service.
        const table = page.getByRole('table', { name: 'Traces' });
        const started = (await table.getByRole('columnheader', { name: 'Started' }).boundingBox())!;
        expect(started.x + started.width).toBeLessThanOrEqual(390);
        for (const text of ['580 ms', /ago$/]) {
          const box = (await table.getByRole('row').nth(1).getByText(text).boundingBox())!;
          expect(box.x + box.width).toBeLessThanOrEqual(390);
        }
      }
      if (name === 'keys') {
        // Each key is a card of labelled lines, its actions on the screen rather than at the end of a wide row.
        const revoke = page.getByRole('button', { name: /^Revoke / }).first();
        await revoke.waitFor();
        const box = (await revoke.boundingBox())!;
        expect(box.x + box.width).toBeLessThanOrEqual(390);
      }
      await screenshot(page, `phone-${name}`);
      expect([name, await overflow(page)]).toEqual([name, 0]);
      // Each page names its browser tab, so tabs and history entries tell the pages apart.
      expect(await page.title()).toBe(title);
    }
    // Every link of the top bar and of the project's strip is on the page, reachable.
    await page.goto(`${projectPath()}/issues`);
    await page.getByRole('heading', { level: 1, name: 'Issues' }).waitFor();
    for (const name of ['Plan & usage', 'Status pages', 'Organization', 'Account']) {
      const box = await page.getByRole('banner').getByRole('link', { name, exact: true }).boundingBox();
      expect(box!.x + box!.width).toBeLessThanOrEqual(390);
    }
    await page.getByRole('navigation', { name: 'Project pages' }).getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { level: 1, name: /^Project/ }).waitFor();
  });

  it("keeps the organization last worked in on the account page: its switcher and its links stay", async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${orgPath()}/usage`);
    await page.getByRole('heading', { level: 1, name: /^Plan/ }).waitFor();
    await page.goto('/account');
    await page.getByRole('heading', { level: 1, name: 'Your account' }).waitFor();
    expect(await page.getByLabel('Organization', { exact: true }).inputValue()).toBe(setup.session.organization.id);
    await page.getByRole('banner').getByRole('link', { name: 'Plan & usage' }).click();
    await page.waitForURL(`**${orgPath()}/usage`);
  });

  it('keeps the project last worked in on the organization\'s pages: the switcher names it and its pages stay a click away', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${projectPath()}/issues`);
    await page.getByRole('heading', { level: 1, name: 'Issues' }).waitFor();
    // An arrow key on a switcher shows the next choice without leaving the page; leaving the switcher puts the
    // current one back, and Enter goes to the choice shown.
    const project = page.getByLabel('Project', { exact: true });
    await project.focus();
    await page.keyboard.press('ArrowDown');
    expect(await project.inputValue()).toBe('__all');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(new URL(page.url()).pathname).toBe(`${projectPath()}/issues`);
    await page.keyboard.press('Tab');
    expect(await project.inputValue()).toBe(setup.project.id);
    await project.focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await page.waitForURL(`**${orgPath()}/projects`);
    await page.getByRole('banner').getByRole('link', { name: 'Status pages' }).click();
    await page.waitForURL(`**${orgPath()}/status-pages`);
    expect(await page.getByLabel('Project', { exact: true }).inputValue()).toBe(setup.project.id);
    expect(await page.getByRole('combobox', { name: 'Project' }).getByRole('option', { name: 'Choose a project' }).count()).toBe(0);
    await screenshot(page, 'org-page-keeps-project');
    // A link of a page that leads to another leaves with its page: the focus goes to the new page's heading, not to nothing.
    await page.getByRole('navigation', { name: 'Project pages' }).getByRole('link', { name: 'Issues' }).click();
    await page.getByRole('link', { name: /ValidationError/ }).click();
    await page.getByRole('heading', { level: 1, name: /ValidationError/ }).waitFor();
    await eventually(async () => expect(await page.evaluate(() => [document.activeElement?.tagName, document.activeElement?.textContent])).toEqual(['H1', 'ValidationError: the e-mail address is taken']));
    await page.getByRole('navigation', { name: 'Project pages' }).getByRole('link', { name: 'Explore' }).click();
    await page.waitForURL(`**${projectPath()}/explore**`);
    // A log-out leaves nothing of the workplace in the browser for the next person (another user: a log-out ends
    // every session of its user).
    const someone = await setupProject(server.api);
    const other = await openWebApp(browser, server.url, someone.session.token);
    try {
      await other.page.goto(`/orgs/${someone.session.organization.id}/projects/${someone.project.id}/issues`);
      await other.page.getByRole('heading', { level: 1, name: 'Issues' }).waitFor();
      const stored = () => other.page.evaluate(() => Object.keys(window.localStorage).filter((key) => key.startsWith('tlm.project.') || key === 'tlm.organization'));
      await eventually(async () => expect(await stored()).toHaveLength(2), 5_000, 100);
      await other.page.getByRole('button', { name: 'Log out' }).click();
      await other.page.waitForURL(/\/login/);
      expect(await stored()).toEqual([]);
    } finally {
      await other.page.context().close();
    }
  });

  it('tells a visitor of a server that sends no mail that no reset link can come, in their words', async () => {
    const visitor = await browser.newContext({ baseURL: server.url, viewport: { width: 1280, height: 800 } });
    try {
      const forgot = await visitor.newPage();
      await forgot.goto('/forgot-password');
      await forgot.getByLabel('Email').fill('someone@example.com');
      await forgot.getByRole('button', { name: 'Send reset link' }).click();
      const notice = forgot.getByRole('alert');
      await notice.getByText('This server does not send email, so it cannot mail you a reset link.').waitFor();
      // How the server is set up is its operator's business: no setting and no error code for the visitor.
      expect(await notice.textContent()).not.toMatch(/SMTP|PUBLIC_URL|MAIL_NOT_CONFIGURED/);
    } finally {
      await visitor.close();
    }
  });

  it('keeps the issue list within a laptop window when an issue names a long culprit', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${projectPath()}/issues`);
    const title = page.getByRole('link', { name: /ValidationError/ });
    await title.waitFor();
    await screenshot(page, 'issues-long-culprit');
    expect(await overflow(page)).toBe(0);
    // The culprit is cut with an ellipsis and whole in its tooltip.
    await expect(page.getByTitle(new RegExp(LONG_FILE.replace(/\./g, '\\.'))).isVisible()).resolves.toBe(true);
  });

  it('breaks an issue title between words on a phone, not inside them', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.goto(`${projectPath()}/issues`);
      const title = page.getByRole('link', { name: /ValidationError/ });
      await title.waitFor();
      await screenshot(page, 'issues-phone-title');
      // A word broken across two lines has two boxes (a break after a hyphen is a break between words).
      const broken = await title.evaluate((link) => {
        const words: string[] = [];
        const texts = document.createTreeWalker(link, NodeFilter.SHOW_TEXT);
        for (let text = texts.nextNode() as Text | null; text; text = texts.nextNode() as Text | null) {
          for (const match of text.data.matchAll(/[^\s-]+/g)) {
            const range = document.createRange();
            range.setStart(text, match.index!);
            range.setEnd(text, match.index! + match[0].length);
            if (range.getClientRects().length > 1) words.push(match[0]);
          }
        }
        return words;
      });
      expect(broken).toEqual([]);
      expect(await overflow(page)).toBe(0);
      // The issue's own page breaks its long culprit rather than widening the page.
      await title.click();
      await page.getByRole('heading', { level: 1, name: /ValidationError/ }).waitFor();
      await page.getByTitle('culprit').waitFor();
      await screenshot(page, 'issue-phone-culprit');
      expect(await overflow(page)).toBe(0);
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });
});
