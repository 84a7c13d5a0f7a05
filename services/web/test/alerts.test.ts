import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { eventually, launchChromium, openWebApp, screenshot, setupProject, startSmtpServer, startTestServer, type ProjectSetup, type TestServer } from '@tlm/testkit';

/**
 * Alert rules and SLOs in the web app, in Debian's headless Chromium against a started server: a rule written in the
 * form (its metric in the GQL editor, a Slack channel pointed at a receiver on loopback) fires once the logs it counts
 * arrive, its page shows it firing with its event and the event's delivery sent, and the receiver holds Slack's
 * message. The SLO page shows a real SLO's percentage, budget and burn rate.
 */

const DIST = path.resolve(process.env['WEB_DIST_DIR'] ?? path.resolve(__dirname, '../dist'), 'index.html');

let server: TestServer;
let setup: ProjectSetup;
let browser: Browser;
let context: BrowserContext;
let app: Page;
let slack: http.Server;
const slackMessages: { text: string; blocks: unknown[] }[] = [];

const projectPage = (rest: string) => `/orgs/${setup.session.organization.id}/projects/${setup.project.id}/${rest}`;

beforeAll(async () => {
  if (!existsSync(DIST)) throw new Error(`the web app is not built (${DIST} is missing): run make build`);
  slack = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      slackMessages.push(JSON.parse(body));
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => slack.listen(0, '127.0.0.1', resolve));
  server = await startTestServer({ ALERT_EVALUATION_INTERVAL_MS: '1000', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
  setup = await setupProject(server.api);
  browser = await launchChromium();
  ({ context, page: app } = await openWebApp(browser, server.url, setup.session.token));
}, 120_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await server?.close();
  await new Promise((resolve) => slack?.close(resolve));
});

const slackUrl = () => `http://127.0.0.1:${(slack.address() as AddressInfo).port}/services/T000/B000/hook`;

describe('the alert pages', () => {
  const marker = `checkout-${Date.now()}`;

  it('shows an empty list with the way to create a rule', async () => {
    await app.goto(projectPage('alerts'));
    await app.getByRole('heading', { name: 'No alert rules yet' }).waitFor();
    await app.getByRole('navigation', { name: 'Project pages' }).getByRole('link', { name: 'Alerts' }).waitFor();
  });

  it('creates a rule in the form: the metric in the GQL editor, a preview of the last day with the threshold, a Slack channel', async () => {
    // Logs from earlier in the day draw a line in the preview.
    await server.api.post('/v1/logs', {
      token: setup.secretKey,
      body: { batch: [1, 3, 5].map((hours) => ({ severity: 'error', message: `${marker} earlier failure`, timestamp: new Date(Date.now() - hours * 3_600_000).toISOString() })) },
    });
    await app.getByRole('link', { name: 'New alert rule' }).first().click();
    await app.waitForURL(/\/alerts\/new$/);
    await app.getByLabel('Name', { exact: true }).fill('Checkout errors');
    const editor = app.getByRole('textbox', { name: 'Metric', exact: true });
    await editor.click();
    await app.keyboard.press('Control+A');
    await app.keyboard.type(`from:logs severity:error "${marker}" | count`);
    await app.keyboard.press('Escape');
    await app.getByLabel('Fires when the value is').selectOption('gt');
    await app.getByLabel('Threshold', { exact: true }).fill('2');
    await app.getByLabel('Window (minutes)').fill('10');
    await app.getByLabel('Severity').selectOption('critical');
    await app.getByRole('button', { name: 'Add channel' }).click();
    await app.getByLabel('Channel 1 type').selectOption('slack');
    await app.getByLabel('Channel 1 URL').fill(slackUrl());
    const preview = app.getByRole('img', { name: /The metric over the last day in 10-minute buckets, with the threshold 2/ });
    await preview.waitFor();
    expect(Number(await preview.getAttribute('data-series'))).toBe(2);
    await app.getByText(/0 of \d+ buckets of the last day are above the threshold: the rule would have fired in them/).waitFor();
    await screenshot(app, 'alerts-form');

    await app.getByRole('button', { name: 'Create rule' }).click();
    await app.waitForURL(/\/alerts\/[0-9a-f-]{36}$/);
    await app.getByRole('heading', { name: /Checkout errors/ }).waitFor();
    const rules = (await server.api.get('/v1/alerts', { token: setup.secretKey })).body.alerts;
    expect(rules).toHaveLength(1);
    expect(rules[0]).toMatchObject({
      name: 'Checkout errors',
      metric: `from:logs severity:error "${marker}" | count`,
      comparator: 'gt',
      threshold: 2,
      window_minutes: 10,
      severity: 'critical',
      channels: [{ type: 'slack', url: slackUrl() }],
    });
  });

  it('says so when a stored rule mails a channel this server can no longer send e-mail to', async () => {
    // A rule made while the server had SMTP_URL, opened after a restart without it.
    const dataDir = mkdtempSync(path.join(tmpdir(), 'tlm-mail-'));
    const smtp = await startSmtpServer();
    let mailing: TestServer | undefined = await startTestServer({ DATA_DIR: dataDir, SMTP_URL: smtp.url, PUBLIC_URL: 'http://tlm.test' });
    let silent: TestServer | undefined;
    try {
      const owner = await setupProject(mailing.api);
      const created = await mailing.api.post('/v1/alerts', {
        token: owner.secretKey,
        body: { name: 'Mailed', metric: 'from:logs | count', threshold: 1e9, window_minutes: 5, channels: [{ type: 'email', to: 'oncall@example.com' }] },
      });
      expect(created.status).toBe(201);
      await mailing.close();
      mailing = undefined;
      silent = await startTestServer({ DATA_DIR: dataDir });
      const opened = await openWebApp(browser, silent.url, owner.session.token);
      try {
        await opened.page.goto(`/orgs/${owner.session.organization.id}/projects/${owner.project.id}/alerts/${created.body.id}/edit`);
        const channel = opened.page.getByRole('group', { name: 'Channel 1' });
        await channel.getByText('Channel 1: e-mail cannot be sent from this server: SMTP_URL is not configured. Choose another type or remove it.').waitFor();
        expect(await opened.page.getByLabel('Channel 1 type').inputValue()).toBe('email');
        // The preview's value axis is as wide as its longest label, "1,000,000,000" (the threshold), which a fixed
        // 60 pixels cut to "000,000".
        const plot = opened.page.locator('.explore-figure .u-over').first();
        await plot.waitFor();
        const room = await plot.evaluate((over) => {
          const figure = over.closest('.uplot')!.getBoundingClientRect();
          const context = document.createElement('canvas').getContext('2d')!;
          context.font = '12px system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", sans-serif';
          return { axis: over.getBoundingClientRect().left - figure.left, label: context.measureText('1,000,000,000').width };
        });
        expect(room.axis).toBeGreaterThan(room.label);
        // The time under the pointer reads as the app writes times, on the 24-hour clock.
        await plot.hover();
        const legendTime = opened.page.locator('.explore-figure .u-legend .u-series').first().locator('.u-value');
        await eventually(async () => expect(await legendTime.textContent()).toMatch(/^[A-Z][a-z]{2} \d{1,2}, \d{4}, \d{2}:\d{2}:\d{2}$/));
        await screenshot(opened.page, 'alert-channel-no-mail');
      } finally {
        await opened.context.close();
      }
    } finally {
      await mailing?.close();
      await silent?.close();
      await smtp.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('refuses a channel the server will not call and says why, keeping the form as typed', async () => {
    await app.goto(projectPage('alerts/new'));
    await app.getByLabel('Name', { exact: true }).fill('Bad channel');
    await app.getByLabel('Threshold', { exact: true }).fill('1');
    await app.getByRole('button', { name: 'Add channel' }).click();
    // A new channel takes the focus, its type first.
    const focusedLabel = () => app.evaluate(() => (document.activeElement as HTMLElement | null)?.closest('label')?.querySelector('span')?.textContent ?? document.activeElement?.tagName);
    await eventually(async () => expect(await focusedLabel()).toBe('Channel 1 type'));
    // This server has no SMTP_URL: e-mail is offered disabled, saying why.
    const email = app.getByLabel('Channel 1 type').getByRole('option', { name: 'E-mail (this server sends no e-mail)' });
    expect(await email.isDisabled()).toBe(true);
    await app.getByLabel('Channel 1 type').selectOption('pagerduty');
    await app.getByLabel('Channel 1 routing key').fill('not a key');
    // Two good channels around a second bad one: every refused channel is named at once, the good ones are not.
    await app.getByRole('button', { name: 'Add channel' }).click();
    await app.getByLabel('Channel 2 URL').fill(slackUrl());
    await app.getByRole('button', { name: 'Add channel' }).click();
    await app.getByLabel('Channel 3 type').selectOption('pagerduty');
    await app.getByLabel('Channel 3 routing key').fill('short');
    // Sent from the keyboard, as the button is disabled while saving: the refusal brings the focus to the first refused field.
    await app.getByRole('button', { name: 'Create rule' }).focus();
    await app.keyboard.press('Enter');
    await eventually(async () => expect(await focusedLabel()).toBe('Channel 1 routing key'));
    // What is said under a refused field is its description.
    const routingKey = app.getByLabel('Channel 1 routing key');
    const describedBy = (await routingKey.getAttribute('aria-describedby'))!;
    expect(await app.locator(`[id="${describedBy}"]`).textContent()).toContain("Channel 1's routing key must be 8 to 64 letters and digits");
    // Named as the form names the channel, not by its place in the API's list, and said beside the channel too.
    const refusal = app.getByRole('alert').filter({ hasText: 'routing key must be 8 to 64 letters and digits' });
    await refusal.waitFor();
    expect(await refusal.textContent()).toContain("Channel 1's routing key must be 8 to 64 letters and digits");
    expect(await refusal.textContent()).not.toContain('channels[');
    const channel = app.getByRole('group', { name: 'Channel 1' });
    expect(await channel.getAttribute('aria-invalid')).toBe('true');
    await channel.getByText("Channel 1's routing key must be 8 to 64 letters and digits").waitFor();
    expect(await refusal.textContent()).toContain("Channel 3's routing key must be 8 to 64 letters and digits");
    const third = app.getByRole('group', { name: 'Channel 3' });
    expect(await third.getAttribute('aria-invalid')).toBe('true');
    await third.getByText("Channel 3's routing key must be 8 to 64 letters and digits").waitFor();
    expect(await app.getByRole('group', { name: 'Channel 2' }).getAttribute('aria-invalid')).toBeNull();
    await screenshot(app, 'alert-channels-refused');
    expect(await app.getByLabel('Name', { exact: true }).inputValue()).toBe('Bad channel');
    expect((await server.api.get('/v1/alerts', { token: setup.secretKey })).body.alerts).toHaveLength(1);
  });

  it('writes the metric from a sentence (natural language in alert mode) into the editor, where the preview reads it', async () => {
    await app.goto(projectPage('alerts/new'));
    await app.getByLabel('Ask in plain words').fill('count of error logs');
    await app.getByRole('button', { name: 'Ask' }).click();
    const editor = app.getByRole('textbox', { name: 'Metric', exact: true });
    await eventually(async () => expect((await editor.textContent()) ?? '').toMatch(/^from:logs .*severity:error.*\| count$/), 15_000);
    await app.getByRole('img', { name: /The metric over the last day/ }).waitFor();
  });

  it('says why a sentence has no query and offers questions the project can answer, keeping the editor as it was', async () => {
    await app.goto(projectPage('alerts/new'));
    const editor = app.getByRole('textbox', { name: 'Metric', exact: true });
    await editor.waitFor();
    const before = await editor.textContent();
    await app.getByLabel('Ask in plain words').fill('how many refunds today');
    await app.getByRole('button', { name: 'Ask', exact: true }).click();
    const status = app.getByRole('status').filter({ hasText: 'No query answers that question.' });
    await status.getByText(/Nothing in this project is called "refunds"/).waitFor();
    expect(await editor.textContent()).toBe(before);
    await screenshot(app, 'alerts-nl-no-query');
    const suggestions = status.getByRole('button');
    expect(await suggestions.count()).toBeGreaterThan(0);
    const question = (await suggestions.first().textContent())!;
    await suggestions.first().click();
    expect(await app.getByLabel('Ask in plain words').inputValue()).toBe(question);
    // The suggestion is answered with a query: the note goes, and the editor holds the answer.
    await status.waitFor({ state: 'detached', timeout: 15_000 });
    expect(await editor.textContent()).toMatch(/^from:\w+ .*\| \w+/);
  });

  it('shows the rule firing once its logs arrive, with its event and the event’s Slack delivery sent', async () => {
    const rule = (await server.api.get('/v1/alerts', { token: setup.secretKey })).body.alerts[0];
    await server.api.post('/v1/logs', { token: setup.secretKey, body: { batch: Array.from({ length: 3 }, () => ({ severity: 'error', message: `${marker} failure` })) } });
    await app.goto(projectPage(`alerts/${rule.id}`));
    await eventually(async () => {
      await app.reload();
      await app.getByRole('heading', { name: /Checkout errors/ }).waitFor();
      expect(await app.locator('h1 [data-status]').textContent()).toBe('firing');
    }, 30_000, 1_000);
    const events = app.getByRole('list', { name: 'Alert events' });
    await events.getByRole('heading', { name: /Fired with value 3/ }).waitFor();
    const delivery = events.getByRole('row').filter({ hasText: 'Slack' });
    await eventually(async () => {
      await app.reload();
      await delivery.waitFor();
      expect(await delivery.getByText('sent', { exact: true }).count()).toBe(1);
    }, 15_000, 1_000);
    expect(await delivery.getByRole('cell').first().textContent()).toBe('trigger');
    expect(await delivery.getByText('200 ok').count()).toBe(1);
    expect(slackMessages.filter((message) => message.text.startsWith('Firing: Checkout errors'))).toHaveLength(1);
    await screenshot(app, 'alerts-rule');

    await app.getByRole('navigation', { name: 'Project pages' }).getByRole('link', { name: 'Alerts' }).click();
    const row = app.getByRole('row').filter({ hasText: 'Checkout errors' });
    await row.getByText('firing', { exact: true }).waitFor();
    await screenshot(app, 'alerts-list');
  });

  it('sends a test to a channel and mutes the rule for a chosen time', async () => {
    const rule = (await server.api.get('/v1/alerts', { token: setup.secretKey })).body.alerts[0];
    await app.goto(projectPage(`alerts/${rule.id}`));
    await app.getByRole('button', { name: 'Send test to channel 1' }).click();
    await app.getByRole('status').filter({ hasText: 'Test sent: 200 ok' }).waitFor();
    expect(slackMessages.filter((message) => message.text.startsWith('Test notification: Checkout errors'))).toHaveLength(1);
    await app.getByRole('table', { name: 'Test notifications' }).getByText('sent', { exact: true }).waitFor();

    await app.getByLabel('Mute for').selectOption({ label: '4 hours' });
    await app.getByRole('button', { name: 'Mute', exact: true }).click();
    await app.getByRole('button', { name: 'Unmute' }).waitFor();
    expect(await app.locator('h1 [data-status]').textContent()).toBe('muted');
    const muted = (await server.api.get(`/v1/alerts/${rule.id}`, { token: setup.secretKey })).body;
    expect(Date.parse(muted.muted_until) - Date.now()).toBeGreaterThan(3.9 * 3_600_000);
    await app.getByRole('button', { name: 'Unmute' }).click();
    await app.getByRole('button', { name: 'Mute', exact: true }).waitFor();
  });

  it('edits a rule in the same form', async () => {
    const rule = (await server.api.get('/v1/alerts', { token: setup.secretKey })).body.alerts[0];
    await app.goto(projectPage(`alerts/${rule.id}`));
    await app.getByRole('link', { name: 'Edit rule' }).click();
    await app.waitForURL(/\/edit$/);
    expect(await app.getByLabel('Channel 1 URL').inputValue()).toBe(slackUrl());
    await app.getByLabel('Threshold', { exact: true }).fill('50');
    await app.getByRole('button', { name: 'Add channel' }).click();
    // A URL without its scheme is refused in the browser, before any request, as the server would refuse it.
    const url = app.getByLabel('Channel 2 URL');
    await url.fill('example.com/webhook');
    await app.getByRole('button', { name: 'Save rule' }).click();
    expect(await url.evaluate((input: HTMLInputElement) => input.validity.patternMismatch)).toBe(true);
    expect(app.url()).toMatch(/\/edit$/);
    await url.fill(slackUrl().replace('/services/T000/B000/hook', '/webhook'));
    await app.getByRole('button', { name: 'Save rule' }).click();
    await app.waitForURL(/\/alerts\/[0-9a-f-]{36}$/);
    await app.getByText('> 50 over 10 min').waitFor();
    const saved = (await server.api.get(`/v1/alerts/${rule.id}`, { token: setup.secretKey })).body;
    expect(saved).toMatchObject({ threshold: 50, channels: [{ type: 'slack', url: slackUrl() }, { type: 'webhook', secret: expect.stringMatching(/^whsec_/) }] });
    // The webhook's signing secret is on the rule's page, to set up the receiver with.
    expect(await app.getByLabel('Signing secret of channel 2').inputValue()).toBe(saved.channels[1].secret);
    await screenshot(app, 'alerts-rule-channels');
  });

  it('answers the page and the edit page of a rule that is not there with a page that says so and a link back to the rules', async () => {
    for (const page of ['alerts/0190a5b0-0000-7000-8000-000000000000', 'alerts/0190a5b0-0000-7000-8000-000000000000/edit']) {
      await app.goto(projectPage(page));
      await app.getByRole('heading', { name: 'No such alert rule' }).waitFor();
      expect(await app.getByText('NOT_FOUND').count()).toBe(0);
      await app.getByRole('link', { name: 'All alert rules' }).click();
      await app.waitForURL(/\/alerts$/);
    }
  });

  it('deletes a rule after a confirmation focused on Cancel, and the list says it was deleted', async () => {
    const rule = (await server.api.get('/v1/alerts', { token: setup.secretKey })).body.alerts[0];
    await app.goto(projectPage(`alerts/${rule.id}`));
    await app.getByRole('button', { name: 'Delete rule', exact: true }).click();
    const confirm = app.getByRole('dialog', { name: `Delete rule "${rule.name}"?` });
    await confirm.waitFor();
    await eventually(async () => expect(await app.evaluate(() => document.activeElement?.textContent)).toBe('Cancel'));
    await confirm.getByRole('button', { name: 'Delete rule' }).click();
    await app.waitForURL(/\/alerts$/);
    await app.getByRole('status').filter({ hasText: `Deleted "${rule.name}".` }).waitFor();
    expect((await server.api.get(`/v1/alerts/${rule.id}`, { token: setup.secretKey })).status).toBe(404);
  });
});

describe('the SLO page', () => {
  it('creates an SLO and shows its percentage, error budget left and burn rate', async () => {
    const marker = `pay${Date.now()}`;
    await server.api.post('/v1/events', {
      token: setup.secretKey,
      body: { batch: [...Array.from({ length: 19 }, () => ({ event: `${marker}_ok` })), { event: `${marker}_failed` }] },
    });
    await app.goto(projectPage('slos'));
    await app.getByRole('heading', { name: 'No SLOs yet' }).waitFor();
    const form = app.getByRole('form', { name: 'Create SLO' });
    await form.getByLabel('Name', { exact: true }).fill('Payments succeed');
    // A fraction typed for a percentage is taken, and the form says what it means.
    await form.getByLabel('Target (%)', { exact: true }).fill('0.999');
    await form.getByText('A percentage: 0.999 means 0.999%, not 99.9%.').waitFor();
    await form.getByLabel('Target (%)').fill('90');
    expect(await form.getByText(/^A percentage:/).count()).toBe(0);
    // A window past the plan's retention is said to count only the days kept.
    const kept: number = (await server.api.get(`/api/orgs/${setup.session.organization.id}/usage`, { token: setup.session.token })).body.limits.retention_days;
    await form.getByLabel('Window (days)').fill(String(kept + 1));
    await form.getByText(`The plan keeps ${kept} days of data: the SLO counts the last ${kept}, not ${kept + 1}.`).waitFor();
    await form.getByLabel('Window (days)').fill(String(kept));
    expect(await form.getByText(/^The plan keeps/).count()).toBe(0);
    await form.getByLabel('Window (days)').fill('7');
    // Each query is a GQL editor named by its label alone; the hint below them is their description.
    const write = async (name: string, text: string) => {
      await form.getByRole('textbox', { name, exact: true }).click();
      await app.keyboard.press('Control+A');
      await app.keyboard.insertText(text);
    };
    await write('Good (GQL count)', `from:events event_name:${marker}_ok | count`);
    const total = form.getByRole('textbox', { name: 'Total (GQL count)', exact: true });
    expect(await total.getAttribute('aria-describedby')).toBe(await form.getByText(/Count queries without a time range/).getAttribute('id'));
    // A total that does not parse: the refusal names it, and its editor underlines the place.
    await write('Total (GQL count)', 'from:events | count by');
    await form.getByRole('button', { name: 'Create SLO' }).click();
    const refusal = form.getByRole('alert');
    await refusal.waitFor();
    expect(await refusal.textContent()).toMatch(/^Total query: expected /);
    await total.locator('.cm-lintRange-error').waitFor();
    expect((await server.api.get('/v1/slos', { token: setup.secretKey })).body.slos).toEqual([]);
    await write('Total (GQL count)', `from:events event_name:[${marker}_ok, ${marker}_failed] | count`);
    await form.getByRole('button', { name: 'Create SLO' }).click();
    const panel = app.getByRole('region', { name: 'Payments succeed' });
    await panel.waitFor();
    // 19 of 20 good: 95% against 90%, half of the 10% budget spent.
    await panel.getByText('95%', { exact: true }).waitFor();
    await panel.getByText('50%', { exact: true }).waitFor();
    await panel.getByText('19 / 20').waitFor();
    // The chart covers the window's days the plan keeps.
    const chart = panel.getByRole('img', { name: new RegExp(`Burn rate of Payments succeed per 180 minutes over ${Math.min(7, kept)} days, latest 0.5`) });
    await chart.waitFor();
    await screenshot(app, 'slos');

    await panel.getByRole('button', { name: 'Edit Payments succeed' }).click();
    const dialog = app.getByRole('dialog', { name: 'Edit Payments succeed' });
    await dialog.getByLabel('Target (%)').fill('99');
    await dialog.getByRole('button', { name: 'Save SLO' }).click();
    await panel.getByText('-400%', { exact: true }).waitFor();

    await panel.getByRole('button', { name: 'Delete Payments succeed' }).click();
    await app.getByRole('dialog', { name: 'Delete SLO "Payments succeed"?' }).getByRole('button', { name: 'Delete SLO' }).click();
    await app.getByRole('heading', { name: 'No SLOs yet' }).waitFor();
    expect((await server.api.get('/v1/slos', { token: setup.secretKey })).body.slos).toEqual([]);

    // An SLO whose window is longer than the plan keeps data says what it counts: the kept days, in its card and chart.
    const long = await server.api.post('/v1/slos', {
      token: setup.secretKey,
      body: { name: 'Long window', target_percent: 90, window_days: kept + 5, good: `from:events event_name:${marker}_ok | count`, total: 'from:events | count' },
    });
    expect(long.status).toBe(201);
    await app.reload();
    const longPanel = app.getByRole('region', { name: 'Long window' });
    await longPanel.getByText(`Good / total (${kept} d)`).waitFor();
    await longPanel.getByText(`The plan keeps ${kept} days of data: this SLO counts the last ${kept} days, not its window of ${kept + 5}.`).waitFor();
    await longPanel.getByRole('img', { name: new RegExp(`^Burn rate of Long window per \\d+ minutes over ${kept} days`) }).waitFor();
    await screenshot(app, 'slo-beyond-retention');
    expect((await server.api.delete(`/v1/slos/${long.body.id}`, { token: setup.secretKey })).status).toBe(204);
  });
});
