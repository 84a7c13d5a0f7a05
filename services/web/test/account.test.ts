import type { Browser, BrowserContext, Page } from 'playwright-core';
import {
  launchChromium,
  openWebApp,
  screenshot,
  signup,
  startSmtpServer,
  startTestServer,
  type Session,
  type TestServer,
  type TestSmtpServer,
} from '@tlm/testkit';

/**
 * The account page and password recovery in the browser: changing the password keeps this browser logged in and logs
 * out the others; "Forgot password?" mails a link whose page sets a new password and logs in; deleting the account
 * says what restoring means.
 */

let smtp: TestSmtpServer;
let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  smtp = await startSmtpServer();
  server = await startTestServer({ SMTP_URL: smtp.url });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await smtp?.close();
});

async function freshBrowser(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ baseURL: server.url, viewport: { width: 1360, height: 900 }, locale: 'en-US' });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  return { context, page };
}

const login = (email: string, password: string) => server.api.post('/api/auth/login', { body: { email, password } });

describe('the account page', () => {
  let person: Session;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    person = await signup(server.api, { name: 'Ada Account' });
    ({ context, page } = await openWebApp(browser, server.url, person.token));
  });
  afterAll(() => context?.close());

  it('is linked from the top bar and shows the person and the restore rules', async () => {
    await page.goto(`/orgs/${person.organization.id}/projects`);
    await page.getByRole('heading', { name: /Projects/ }).first().waitFor();
    await page.getByRole('link', { name: 'Account', exact: true }).click();
    await page.waitForURL('**/account');
    await page.getByRole('heading', { name: 'Your account' }).waitFor();
    await page.getByText(person.user.email, { exact: true }).waitFor();
    await page.getByText(/for 30 days, logging in with your email and password brings everything back/).waitFor();
    await screenshot(page, 'account');
  });

  it('refuses a wrong current password and says so, changing nothing', async () => {
    await page.goto('/account');
    await page.getByLabel('Current password').fill('not my password');
    await page.getByLabel('New password').fill('a brand new passphrase');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('the current password is wrong').waitFor();
    expect((await login(person.user.email, person.password)).status).toBe(200);
    expect(page.url()).toMatch(/\/account$/);
  });

  it('changes the password, stays logged in here and logs out the other sessions', async () => {
    const otherDevice = (await login(person.user.email, person.password)).body.token;
    await page.goto('/account');
    await page.getByLabel('Current password').fill(person.password);
    await page.getByLabel('New password').fill('a brand new passphrase');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('Password changed. Your other sessions are logged out.').waitFor();
    await screenshot(page, 'account-password-changed');
    expect((await server.api.get('/api/auth/me', { token: otherDevice })).status).toBe(401);
    expect((await server.api.get('/api/auth/me', { token: person.token })).status).toBe(401);
    expect((await login(person.user.email, 'a brand new passphrase')).status).toBe(200);
    // This browser's new cookie still works.
    await page.reload();
    await page.getByRole('heading', { name: 'Your account' }).waitFor();
    expect(page.url()).toMatch(/\/account$/);
  });
});

describe('a forgotten password', () => {
  it('mails a link from "Forgot password?" whose page sets a new password and logs in', async () => {
    const person = await signup(server.api, { name: 'Fred Forgetful' });
    const { context, page } = await freshBrowser();
    try {
      await page.goto('/login');
      await page.getByRole('link', { name: 'Forgot password?' }).waitFor();
      await screenshot(page, 'account-login');
      await page.getByRole('link', { name: 'Forgot password?' }).click();
      await page.waitForURL('**/forgot-password');
      // The log-in page has an Email field too: the URL changes before the lazily loaded page replaces it.
      await page.getByRole('heading', { name: 'Forgot password' }).waitFor();
      await page.getByLabel('Email').fill(person.user.email);
      await page.getByRole('button', { name: 'Send reset link' }).click();
      await page.getByText(`If an account has the address ${person.user.email}, a link to choose a new password is on its way.`).waitFor();
      await screenshot(page, 'account-forgot-password');

      const mail = await smtp.waitForMail(person.user.email);
      const link = /https?:\/\/\S+\/reset-password#token=[A-Za-z0-9_-]+/.exec(mail.text)![0];
      await page.goto(link);
      await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
      await screenshot(page, 'account-reset-password');
      await page.getByLabel('New password').fill('remembered at last');
      await page.getByRole('button', { name: 'Set password and log in' }).click();
      await page.waitForURL(`**/orgs/${person.organization.id}/projects`);
      expect((await server.api.get('/api/auth/me', { token: person.token })).status).toBe(401);
      expect((await login(person.user.email, 'remembered at last')).status).toBe(200);

      // The link works once.
      await page.goto(link);
      await page.getByLabel('New password').fill('another passphrase');
      await page.getByRole('button', { name: 'Set password and log in' }).click();
      await page.getByText('This link has already been used.').waitFor();
      await page.getByRole('link', { name: 'Ask for a new link' }).waitFor();
      expect((await login(person.user.email, 'remembered at last')).status).toBe(200);
    } finally {
      await context.close();
    }
  });
});

describe('deleting the account', () => {
  it('deactivates the account and tells the person how to restore it by logging in', async () => {
    const person = await signup(server.api);
    const { context, page } = await openWebApp(browser, server.url, person.token);
    try {
      await page.goto('/account');
      await page.getByRole('button', { name: 'Delete account…' }).click();
      const dialog = page.getByRole('dialog', { name: 'Delete your account?' });
      await dialog.getByText('You can restore it for 30 days by logging in again with your email and password.').waitFor();
      await dialog.getByRole('button', { name: 'Delete account' }).click();
      await page.waitForURL('**/login?deactivated=1');
      await page.getByText('Your account is deleted. Log in again within 30 days to restore it with everything it had.').waitFor();
      const [row] = await server.standalone.metadata.query<{ deleted_at: Date | null }>('select deleted_at from users where id = $1', [person.user.id]);
      expect(row!.deleted_at).toBeInstanceOf(Date);

      await page.getByLabel('Email').fill(person.user.email);
      await page.getByLabel('Password').fill(person.password);
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.waitForURL(`**/orgs/${person.organization.id}/projects`);
      const [restored] = await server.standalone.metadata.query<{ deleted_at: Date | null }>('select deleted_at from users where id = $1', [person.user.id]);
      expect(restored!.deleted_at).toBeNull();
    } finally {
      await context.close();
    }
  });

  it('removes the account for good only after the email is typed', async () => {
    const person = await signup(server.api);
    const { context, page } = await openWebApp(browser, server.url, person.token);
    try {
      await page.goto('/account');
      await page.getByRole('button', { name: 'Delete now, for good…' }).click();
      const dialog = page.getByRole('dialog', { name: 'Delete your account for good?' });
      const confirm = dialog.getByRole('button', { name: 'Delete for good' });
      expect(await confirm.isDisabled()).toBe(true);
      await dialog.getByLabel('Your email').fill(person.user.email);
      await confirm.click();
      await page.waitForURL('**/login?deleted=1');
      expect(await server.standalone.metadata.query('select id from users where id = $1', [person.user.id])).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
