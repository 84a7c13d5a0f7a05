import { readFileSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import {
  createProject,
  eventually,
  launchChromium,
  openWebApp,
  screenshot,
  signup,
  startSmtpServer,
  startTestServer,
  uniqueEmail,
  type Session,
  type TestServer,
  type TestSmtpServer,
} from '@tlm/testkit';

/**
 * The organization page in the browser: an owner invites a person by e-mail, the person opens the mailed link in
 * another browser, signs up there and sees the organization's project; roles change, members go, invitations are
 * revoked, and the organization's data is exported and erased.
 */

let smtp: TestSmtpServer;
let server: TestServer;
let browser: Browser;
let owner: Session;
let page: Page;
let projectId: string;

beforeAll(async () => {
  smtp = await startSmtpServer();
  server = await startTestServer({ SMTP_URL: smtp.url });
  owner = await signup(server.api, { name: 'Olivia Owner' });
  projectId = (await createProject(server.api, owner, { name: 'checkout' })).id;
  browser = await launchChromium();
  ({ page } = await openWebApp(browser, server.url, owner.token));
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await smtp?.close();
});

const ONLY_OWNER = 'The only owner: make another member an owner to leave.';
const settingsPath = () => `/orgs/${owner.organization.id}/settings`;

async function roles(): Promise<Record<string, string>> {
  const reply = await server.api.get(`/api/orgs/${owner.organization.id}/members`, { token: owner.token });
  expect(reply.status).toBe(200);
  return Object.fromEntries(reply.body.members.map((member: { email: string; role: string }) => [member.email, member.role]));
}

async function pendingEmails(): Promise<string[]> {
  const reply = await server.api.get(`/api/orgs/${owner.organization.id}/invitations`, { token: owner.token });
  return reply.body.invitations.map((invitation: { email: string }) => invitation.email);
}

/** A second person's browser: its own context, so no cookie of the owner's goes with it. */
async function secondBrowser(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ baseURL: server.url, viewport: { width: 1360, height: 900 }, locale: 'en-US' });
  const other = await context.newPage();
  other.setDefaultTimeout(15_000);
  return { context, page: other };
}

function linkIn(text: string, pagePath: string): string {
  const match = new RegExp(`https?://\\S+${pagePath}#token=[A-Za-z0-9_-]+`).exec(text);
  if (!match) throw new Error(`no ${pagePath} link in: ${text}`);
  return match[0];
}

describe('inviting a person from the organization page', () => {
  const invitee = uniqueEmail('invitee');

  it('mails an invitation whose link, opened in another browser, signs the person up into the organization', async () => {
    await page.goto(settingsPath());
    await page.getByRole('heading', { name: /Organization settings/ }).waitFor();
    await page.getByLabel('Email address').fill(invitee);
    await page.getByLabel('Role', { exact: true }).selectOption('member');
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByText(`Invitation mailed to ${invitee}.`).waitFor();
    await page.getByRole('table', { name: 'Pending invitations' }).getByRole('cell', { name: invitee, exact: true }).waitFor();
    await screenshot(page, 'members-invitation-pending');
    expect(await pendingEmails()).toEqual([invitee]);

    const mail = await smtp.waitForMail(invitee);
    const link = linkIn(mail.text, '/accept-invitation');
    const { context, page: other } = await secondBrowser();
    try {
      await other.goto(link);
      await other.getByText(`Olivia Owner invited ${invitee} to join ${owner.organization.name} as a member.`).waitFor();
      await screenshot(other, 'members-accept-invitation');
      await other.getByLabel('Name').fill('Ivy Invitee');
      await other.getByLabel('Password').fill('a long enough password');
      await other.getByRole('button', { name: 'Create account and join' }).click();
      await other.waitForURL(`**/orgs/${owner.organization.id}/projects`);
      await other.getByRole('link', { name: 'checkout', exact: true }).waitFor();
      await screenshot(other, 'members-invitee-projects');
      await other.getByRole('link', { name: 'checkout', exact: true }).click();
      await other.waitForURL(`**/orgs/${owner.organization.id}/projects/${projectId}/explore`);
    } finally {
      await context.close();
    }
    expect(await roles()).toEqual({ [owner.user.email]: 'owner', [invitee]: 'member' });
    expect(await pendingEmails()).toEqual([]);
  });

  it('changes a member to owner and back, and removes them', async () => {
    await page.goto(settingsPath());
    const members = page.getByRole('table', { name: 'Members' });
    await members.getByRole('cell', { name: invitee, exact: true }).waitFor();
    // The sole owner is not offered to leave; with a second owner, they are.
    const leave = members.getByRole('button', { name: `Leave ${owner.user.email}` });
    await members.getByText(ONLY_OWNER).waitFor();
    expect(await leave.count()).toBe(0);
    await page.getByLabel(`Role of ${invitee}`).selectOption('owner');
    await eventually(async () => expect((await roles())[invitee]).toBe('owner'));
    await leave.waitFor();
    expect(await members.getByText(ONLY_OWNER).count()).toBe(0);
    await page.getByLabel(`Role of ${invitee}`).selectOption('member');
    await eventually(async () => expect((await roles())[invitee]).toBe('member'));
    await members.getByText(ONLY_OWNER).waitFor();
    await screenshot(page, 'members-organization');

    await members.getByRole('button', { name: `Remove ${invitee}` }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove member' }).click();
    await members.getByRole('cell', { name: invitee, exact: true }).waitFor({ state: 'detached' });
    expect(await roles()).toEqual({ [owner.user.email]: 'owner' });
  });

  it('says why the last owner cannot become a member, and keeps the role', async () => {
    await page.goto(settingsPath());
    await page.getByLabel(`Role of ${owner.user.email}`).selectOption('member');
    await page.getByText('Make another member an owner first: an organization always keeps at least one owner.').waitFor();
    expect(await roles()).toEqual({ [owner.user.email]: 'owner' });
    await eventually(async () => expect(await page.getByLabel(`Role of ${owner.user.email}`).inputValue()).toBe('owner'));
  });

  it('revokes a pending invitation', async () => {
    const later = uniqueEmail('later');
    await page.goto(settingsPath());
    await page.getByLabel('Email address').fill(later);
    await page.getByRole('button', { name: 'Send invitation' }).click();
    const pending = page.getByRole('table', { name: 'Pending invitations' });
    await pending.getByRole('cell', { name: later, exact: true }).waitFor();
    expect(await pendingEmails()).toEqual([later]);
    await pending.getByRole('button', { name: `Revoke the invitation of ${later}` }).click();
    await page.getByText('No pending invitations').waitFor();
    expect(await pendingEmails()).toEqual([]);
  });
});

describe('accepting an invitation with an account', () => {
  it('sends the person to log in and back to the invitation, which they accept', async () => {
    const person = await signup(server.api, { name: 'Kim Known' });
    const invited = await server.api.post(`/api/orgs/${owner.organization.id}/invitations`, {
      token: owner.token,
      body: { email: person.user.email, role: 'owner' },
    });
    expect(invited.status).toBe(201);
    const link = linkIn((await smtp.waitForMail(person.user.email)).text, '/accept-invitation');
    const { context, page: other } = await secondBrowser();
    try {
      await other.goto(link);
      await other.getByText(`This address has an account. Log in as ${person.user.email} to accept.`).waitFor();
      await other.getByRole('link', { name: 'Log in to accept' }).click();
      await other.getByLabel('Email').fill(person.user.email);
      await other.getByLabel('Password').fill(person.password);
      await other.getByRole('button', { name: 'Log in' }).click();
      await other.waitForURL('**/accept-invitation#token=*');
      await other.getByRole('button', { name: `Join ${owner.organization.name}` }).click();
      await other.waitForURL(`**/orgs/${owner.organization.id}/projects`);
      await other.getByRole('link', { name: 'checkout', exact: true }).waitFor();
    } finally {
      await context.close();
    }
    expect((await roles())[person.user.email]).toBe('owner');
  });
});

describe('opening an invitation while logged in as someone else', () => {
  it('asks to log out first, and then offers the sign-up for the invited address', async () => {
    const someoneElse = await signup(server.api, { name: 'Sam Else' });
    const email = uniqueEmail('meant-for');
    expect((await server.api.post(`/api/orgs/${owner.organization.id}/invitations`, { token: owner.token, body: { email, role: 'member' } })).status).toBe(201);
    const link = linkIn((await smtp.waitForMail(email)).text, '/accept-invitation');
    const { context, page: other } = await openWebApp(browser, server.url, someoneElse.token);
    try {
      await other.goto(link);
      await other.getByText(`You are logged in as ${someoneElse.user.email}. Log out, then accept as ${email}.`).waitFor();
      await screenshot(other, 'members-accept-other-account');
      await other.getByRole('button', { name: 'Log out' }).click();
      await other.getByRole('button', { name: 'Create account and join' }).waitFor();
      expect((await server.api.get('/api/auth/me', { token: someoneElse.token })).status).toBe(401);
    } finally {
      await context.close();
    }
    expect(await roles()).not.toHaveProperty(someoneElse.user.email);
  });
});

describe('inviting on a server that cannot send mail', () => {
  it('shows the invitation link to pass on, and the link works', async () => {
    const quiet = await startTestServer({ SMTP_URL: '' });
    const boss = await signup(quiet.api, { name: 'Quinn Quiet' });
    const { context, page: bossPage } = await openWebApp(browser, quiet.url, boss.token);
    try {
      const email = uniqueEmail('by-hand');
      await bossPage.goto(`/orgs/${boss.organization.id}/settings`);
      await bossPage.getByLabel('Email address').fill(email);
      await bossPage.getByRole('button', { name: 'Send invitation' }).click();
      await bossPage.getByText(`The invitation to ${email} was not mailed: this server cannot send mail (SMTP_URL is not set).`).waitFor();
      const link = await bossPage.locator('code.invite-link').textContent();
      expect(link).toMatch(new RegExp(`^${quiet.url}/accept-invitation#token=[A-Za-z0-9_-]{43}$`));
      await screenshot(bossPage, 'members-invitation-link');
      const token = link!.split('#token=')[1];
      const accepted = await quiet.api.post('/api/invitations/accept', { body: { token, password: 'a long enough password' } });
      expect(accepted.status).toBe(201);
    } finally {
      await context.close();
      await quiet.close();
    }
  });
});

describe('personal data on the organization page', () => {
  it('downloads the organization export', async () => {
    await page.goto(settingsPath());
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export organization data' }).click();
    const file = await (await download).path();
    const exported = JSON.parse(readFileSync(file, 'utf8'));
    expect(exported.organization).toEqual(expect.objectContaining({ id: owner.organization.id, name: owner.organization.name }));
    expect(exported.projects.map((project: { name: string }) => project.name)).toEqual(['checkout']);
  });

  it('erases one person from a project after a confirmation, and shows what went', async () => {
    await page.goto(settingsPath());
    await page.getByLabel("Person's distinct_id").fill('user-42');
    await page.getByRole('button', { name: 'Erase…' }).click();
    await page.getByRole('dialog', { name: 'Erase every record of "user-42"?' }).getByRole('button', { name: 'Erase this person' }).click();
    await page.getByText(/^Erased user-42: /).waitFor();
    await screenshot(page, 'members-organization-gdpr');
  });
});

describe('a member who is not an owner', () => {
  it('sees the members and no invitations or data controls', async () => {
    const member = await signup(server.api, { name: 'Mel Member' });
    await server.api.post(`/api/orgs/${owner.organization.id}/members`, { token: owner.token, body: { email: member.user.email, role: 'member' } });
    const { context, page: memberPage } = await openWebApp(browser, server.url, member.token);
    try {
      await memberPage.goto(settingsPath());
      await memberPage.getByRole('table', { name: 'Members' }).getByRole('cell', { name: owner.user.email, exact: true }).waitFor();
      await memberPage.getByText('Ask an owner to change roles.').waitFor();
      expect(await memberPage.getByRole('heading', { name: 'Invitations' }).count()).toBe(0);
      expect(await memberPage.getByRole('button', { name: 'Export organization data' }).count()).toBe(0);
      expect(await memberPage.getByRole('button', { name: `Remove ${owner.user.email}` }).count()).toBe(0);
      await memberPage.getByRole('button', { name: `Leave ${member.user.email}` }).waitFor();
      // Leaving lands in an organization the member still has, read after the change: never the one just left. The
      // members list, read again after leaving, answers last, so the page gives way to "No such organization" before
      // the leave settles, and the move to the start page still happens.
      await memberPage.route(`**/api/orgs/${owner.organization.id}/members`, async (route) => {
        if (route.request().method() === 'GET') await new Promise((resolve) => setTimeout(resolve, 1_000));
        await route.continue();
      });
      await memberPage.getByRole('button', { name: `Leave ${member.user.email}` }).click();
      await memberPage.getByRole('button', { name: 'Leave organization' }).click();
      await memberPage.waitForURL(new RegExp(`/orgs/${member.organization.id}/`));
      expect(await memberPage.getByRole('heading', { name: 'No such organization' }).count()).toBe(0);
    } finally {
      await context.close();
    }
  });
});
