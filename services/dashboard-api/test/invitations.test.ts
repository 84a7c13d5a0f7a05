import { createHash } from 'node:crypto';
import { createProject, signup, startSmtpServer, startTestServer, uniqueEmail, type Session, type TestServer, type TestSmtpServer } from '@tlm/testkit';

/**
 * Invitations by e-mail: an owner invites an address with a role, the mail's single-use link (7 days) signs the
 * person up or, for an existing account, adds them once they are signed in as it. The tests follow the link of the
 * mail a real SMTP server received.
 */

let smtp: TestSmtpServer;
let server: TestServer;
let owner: Session;

beforeAll(async () => {
  smtp = await startSmtpServer();
  server = await startTestServer({ SMTP_URL: smtp.url, MAIL_FROM: 'Telemetry <telemetry@example.com>' });
  owner = await signup(server.api, { name: 'Olivia Owner' });
});
afterAll(async () => {
  await server?.close();
  await smtp?.close();
});

const WEB = { 'x-tlm-csrf': '1' };
const PASSWORD = 'correct horse battery staple';
const invitationsPath = (session: Session = owner) => `/api/orgs/${session.organization.id}/invitations`;

/** Invites `email` and answers the token of the link in the mail it received (the newest mail to that address). */
async function invite(email: string, role: 'owner' | 'member' = 'member'): Promise<string> {
  const earlier = new Set(smtp.mails);
  const reply = await server.api.post(invitationsPath(), { token: owner.token, body: { email, role } });
  expect(reply.status).toBe(201);
  expect(reply.body.mailed).toBe(true);
  expect(reply.body.accept_url).toBeUndefined();
  const mail = await smtp.waitForMail(email, (candidate) => !earlier.has(candidate));
  return tokenOf(mail.text);
}

function tokenOf(text: string): string {
  const match = /(https?:\/\/\S+)\/accept-invitation#token=([A-Za-z0-9_-]+)/.exec(text);
  if (!match) throw new Error(`no invitation link in: ${text}`);
  expect(match[1]).toBe(server.url);
  return match[2]!;
}

async function storedInvitations(email: string) {
  return server.standalone.metadata.query<{ token_hash: string; accepted_at: Date | null; revoked_at: Date | null; role: string }>(
    'select token_hash, accepted_at, revoked_at, role from invitations where lower(email) = lower($1) order by created_at',
    [email],
  );
}

async function storedUser(email: string) {
  const [row] = await server.standalone.metadata.query<{ id: string }>('select id from users where lower(email) = lower($1)', [email]);
  return row;
}

async function memberRoles(orgId: string): Promise<Record<string, string>> {
  const rows = await server.standalone.metadata.query<{ email: string; role: string }>(
    'select u.email, m.role from memberships m join users u on u.id = m.user_id where m.org_id = $1',
    [orgId],
  );
  return Object.fromEntries(rows.map((row) => [row.email, row.role]));
}

describe('inviting a new address', () => {
  it('mails a link that signs the person up into the organization with the role, once', async () => {
    const project = await createProject(server.api, owner, { name: 'shared' });
    const email = uniqueEmail('newcomer');
    const token = await invite(email, 'member');
    const mail = smtp.mails.find((candidate) => candidate.to.includes(email.toLowerCase()))!;
    expect(mail.subject).toBe(`Olivia Owner invited you to ${owner.organization.name}`);
    expect(mail.from).toBe('telemetry@example.com');
    expect(mail.text).toContain('expires in 7 days');

    // Only the SHA-256 of the token is stored.
    const [stored] = await storedInvitations(email);
    expect(stored!.token_hash).toBe(createHash('sha256').update(token).digest('hex'));
    expect(JSON.stringify(await server.standalone.metadata.query('select * from invitations'))).not.toContain(token);

    const pending = await server.api.get(invitationsPath(), { token: owner.token });
    expect(pending.status).toBe(200);
    expect(pending.body.invitations).toEqual([
      expect.objectContaining({ email, role: 'member', invited_by: 'Olivia Owner', expired: false }),
    ]);

    const preview = await server.api.post('/api/invitations/preview', { body: { token } });
    expect(preview.status).toBe(200);
    expect(preview.body).toEqual(
      expect.objectContaining({ email, role: 'member', organization: { id: owner.organization.id, name: owner.organization.name }, account_exists: false }),
    );

    const accepted = await server.api.post('/api/invitations/accept', { body: { token, name: 'Nina Newcomer', password: PASSWORD } });
    expect(accepted.status).toBe(201);
    expect(accepted.body).toEqual(
      expect.objectContaining({ user: expect.objectContaining({ email, name: 'Nina Newcomer' }), organization: { id: owner.organization.id, name: owner.organization.name }, role: 'member' }),
    );
    const projects = await server.api.get(`/api/orgs/${owner.organization.id}/projects`, { token: accepted.body.token });
    expect(projects.status).toBe(200);
    expect(projects.body.projects.map((candidate: { id: string }) => candidate.id)).toContain(project.id);
    // The invitation is the person's way in: no personal organization is made beside it.
    const orgs = await server.api.get('/api/orgs', { token: accepted.body.token });
    expect(orgs.body.organizations.map((organization: { id: string; role: string }) => [organization.id, organization.role])).toEqual([[owner.organization.id, 'member']]);
    const login = await server.api.post('/api/auth/login', { body: { email, password: PASSWORD } });
    expect(login.status).toBe(200);

    expect((await server.api.get(invitationsPath(), { token: owner.token })).body.invitations).toEqual([]);
    const again = await server.api.post('/api/invitations/accept', { body: { token, name: 'Someone', password: PASSWORD } });
    expect(again.status).toBe(404);
    expect(again.body.error).toEqual(expect.objectContaining({ code: 'NOT_FOUND', details: { reason: 'used' } }));
    const previewAgain = await server.api.post('/api/invitations/preview', { body: { token } });
    expect(previewAgain.status).toBe(404);
    expect(previewAgain.body.error.details).toEqual({ reason: 'used' });
  });

  it('signs the web app in with the session cookie, not a token in the body', async () => {
    const email = uniqueEmail('cookie');
    const token = await invite(email);
    const accepted = await server.api.post('/api/invitations/accept', { headers: WEB, body: { token, password: PASSWORD } });
    expect(accepted.status).toBe(201);
    expect(accepted.body.token).toBeUndefined();
    const cookie = accepted.headers.getSetCookie().find((line) => line.startsWith('tlm_session='))!.split(';', 1)[0]!;
    const me = await server.api.get('/api/auth/me', { headers: { cookie } });
    expect(me.status).toBe(200);
    expect(me.body.email).toBe(email);
  });

  it('refuses a new account without a password with 400 VALIDATION_ERROR, and keeps the invitation', async () => {
    const email = uniqueEmail('nopassword');
    const token = await invite(email);
    for (const body of [{ token }, { token, password: 'short' }, { token, password: PASSWORD, role: 'owner' }]) {
      const reply = await server.api.post('/api/invitations/accept', { body });
      expect(reply.status).toBe(400);
      expect(reply.body.error.code).toBe('VALIDATION_ERROR');
    }
    expect(await storedUser(email)).toBeUndefined();
    expect((await storedInvitations(email)).map((row) => row.accepted_at)).toEqual([null]);
    expect((await server.api.post('/api/invitations/accept', { body: { token, password: PASSWORD } })).status).toBe(201);
  });
});

describe('inviting an address that has an account', () => {
  it('adds the person once they accept signed in as that address, with the role of the invitation', async () => {
    const invitee = await signup(server.api, { name: 'Existing' });
    const token = await invite(invitee.user.email, 'owner');
    expect((await server.api.post('/api/invitations/preview', { body: { token } })).body.account_exists).toBe(true);

    const anonymous = await server.api.post('/api/invitations/accept', { body: { token, password: PASSWORD } });
    expect(anonymous.status).toBe(409);
    expect(anonymous.body.error).toEqual(expect.objectContaining({ code: 'CONFLICT', details: { login: true } }));

    const stranger = await signup(server.api);
    const wrongAccount = await server.api.post('/api/invitations/accept', { token: stranger.token, body: { token } });
    expect(wrongAccount.status).toBe(403);
    expect(wrongAccount.body.error).toEqual(expect.objectContaining({ code: 'FORBIDDEN', details: { reason: 'other_account', email: invitee.user.email } }));
    const roles = await memberRoles(owner.organization.id);
    expect(roles[stranger.user.email]).toBeUndefined();
    expect(roles[invitee.user.email]).toBeUndefined();

    const accepted = await server.api.post('/api/invitations/accept', { token: invitee.token, body: { token } });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toEqual(expect.objectContaining({ role: 'owner', organization: { id: owner.organization.id, name: owner.organization.name } }));
    expect((await memberRoles(owner.organization.id))[invitee.user.email]).toBe('owner');
    // Their own session goes on; they keep their personal organization.
    const orgs = await server.api.get('/api/orgs', { token: invitee.token });
    expect(orgs.body.organizations.map((organization: { id: string }) => organization.id).sort()).toEqual([invitee.organization.id, owner.organization.id].sort());
  });

  it('refuses to invite an address that is already a member with 409 CONFLICT, and stores nothing', async () => {
    const member = await signup(server.api);
    expect((await server.api.post(`/api/orgs/${owner.organization.id}/members`, { token: owner.token, body: { email: member.user.email, role: 'member' } })).status).toBe(201);
    const reply = await server.api.post(invitationsPath(), { token: owner.token, body: { email: member.user.email.toUpperCase(), role: 'owner' } });
    expect(reply.status).toBe(409);
    expect(reply.body.error).toEqual(expect.objectContaining({ code: 'CONFLICT', details: { member: true } }));
    expect(await storedInvitations(member.user.email)).toEqual([]);
  });
});

describe('links that no longer work', () => {
  it('refuses an expired link with 404 NOT_FOUND (reason expired) and creates no account', async () => {
    const email = uniqueEmail('late');
    const token = await invite(email);
    await server.standalone.metadata.query(`update invitations set expires_at = now() - interval '1 minute' where lower(email) = lower($1)`, [email]);
    const preview = await server.api.post('/api/invitations/preview', { body: { token } });
    expect(preview.status).toBe(404);
    expect(preview.body.error).toEqual(expect.objectContaining({ code: 'NOT_FOUND', details: { reason: 'expired' } }));
    const accepted = await server.api.post('/api/invitations/accept', { body: { token, password: PASSWORD } });
    expect(accepted.status).toBe(404);
    expect(accepted.body.error).toEqual(expect.objectContaining({ code: 'NOT_FOUND', details: { reason: 'expired' } }));
    expect(await storedUser(email)).toBeUndefined();
    // Expired invitations stay listed, marked, so the owner can send them again.
    const listed = (await server.api.get(invitationsPath(), { token: owner.token })).body.invitations;
    expect(listed.find((invitation: { email: string }) => invitation.email === email).expired).toBe(true);
  });

  it('refuses a revoked link with 404 NOT_FOUND (reason revoked); revoking twice answers 404', async () => {
    const email = uniqueEmail('revoked');
    const token = await invite(email);
    const listed = (await server.api.get(invitationsPath(), { token: owner.token })).body.invitations;
    const id = listed.find((invitation: { email: string }) => invitation.email === email).id;
    expect((await server.api.delete(`${invitationsPath()}/${id}`, { token: owner.token })).status).toBe(204);
    const accepted = await server.api.post('/api/invitations/accept', { body: { token, password: PASSWORD } });
    expect(accepted.status).toBe(404);
    expect(accepted.body.error).toEqual(expect.objectContaining({ code: 'NOT_FOUND', details: { reason: 'revoked' } }));
    expect(await storedUser(email)).toBeUndefined();
    expect((await server.api.get(invitationsPath(), { token: owner.token })).body.invitations.map((invitation: { email: string }) => invitation.email)).not.toContain(email);
    const twice = await server.api.delete(`${invitationsPath()}/${id}`, { token: owner.token });
    expect(twice.status).toBe(404);
    expect(twice.body.error.code).toBe('NOT_FOUND');
    expect((await server.api.delete(`${invitationsPath()}/not-a-uuid`, { token: owner.token })).status).toBe(404);
  });

  it('replaces the link of a pending invitation when the address is invited again', async () => {
    const email = uniqueEmail('twice');
    const first = await invite(email, 'member');
    const second = await invite(email, 'owner');
    expect(second).not.toBe(first);
    expect((await storedInvitations(email)).map((row) => row.role)).toEqual(['owner']);
    const old = await server.api.post('/api/invitations/accept', { body: { token: first, password: PASSWORD } });
    expect(old.status).toBe(404);
    expect(old.body.error).toEqual(expect.objectContaining({ code: 'NOT_FOUND', details: { reason: 'unknown' } }));
    const accepted = await server.api.post('/api/invitations/accept', { body: { token: second, password: PASSWORD } });
    expect(accepted.status).toBe(201);
    expect(accepted.body.role).toBe('owner');
  });

  it('answers 404 NOT_FOUND (reason unknown) to a token nobody issued', async () => {
    const reply = await server.api.post('/api/invitations/accept', { body: { token: 'x'.repeat(43), password: PASSWORD } });
    expect(reply.status).toBe(404);
    expect(reply.body.error.details).toEqual({ reason: 'unknown' });
  });
});

describe('who may invite', () => {
  it('refuses members who are not owners with 403 FORBIDDEN and stores nothing', async () => {
    const member = await signup(server.api);
    await server.api.post(`/api/orgs/${owner.organization.id}/members`, { token: owner.token, body: { email: member.user.email, role: 'member' } });
    const email = uniqueEmail('by-member');
    const reply = await server.api.post(invitationsPath(), { token: member.token, body: { email, role: 'member' } });
    expect(reply.status).toBe(403);
    expect(reply.body.error.code).toBe('FORBIDDEN');
    expect(await storedInvitations(email)).toEqual([]);
    expect((await server.api.get(invitationsPath(), { token: member.token })).status).toBe(403);
    const outsider = await signup(server.api);
    expect((await server.api.post(invitationsPath(), { token: outsider.token, body: { email, role: 'member' } })).status).toBe(404);
    expect((await server.api.post(invitationsPath(), { body: { email, role: 'member' } })).status).toBe(401);
    expect(await storedInvitations(email)).toEqual([]);
  });

  it.each([
    ['an address that is not one', { email: 'not an address', role: 'member' }],
    ['a role that does not exist', { email: 'valid@example.com', role: 'admin' }],
    ['no role', { email: 'valid@example.com' }],
    ['a field it does not know', { email: 'valid@example.com', role: 'member', message: 'hi' }],
  ])('refuses %s with 400 VALIDATION_ERROR and stores nothing', async (_what, body) => {
    const before = smtp.mails.length;
    const reply = await server.api.post(invitationsPath(), { token: owner.token, body });
    expect(reply.status).toBe(400);
    expect(reply.body.error.code).toBe('VALIDATION_ERROR');
    expect(await storedInvitations('valid@example.com')).toEqual([]);
    expect(await storedInvitations('not an address')).toEqual([]);
    expect(smtp.mails.length).toBe(before);
  });
});

describe('a server that cannot send mail', () => {
  let quiet: TestServer;
  beforeAll(async () => {
    quiet = await startTestServer({ SMTP_URL: '', PUBLIC_URL: 'https://telemetry.example.com' });
  });
  afterAll(() => quiet?.close());

  it('answers the link (from PUBLIC_URL) to the owner to pass on, and the link works', async () => {
    const boss = await signup(quiet.api);
    const email = uniqueEmail('shared-link');
    const reply = await quiet.api.post(`/api/orgs/${boss.organization.id}/invitations`, { token: boss.token, body: { email, role: 'member' } });
    expect(reply.status).toBe(201);
    expect(reply.body.mailed).toBe(false);
    expect(reply.body.mail_error).toBe('this server cannot send mail (SMTP_URL is not set)');
    expect(reply.body.accept_url).toMatch(/^https:\/\/telemetry\.example\.com\/accept-invitation#token=[A-Za-z0-9_-]{43}$/);
    const token = reply.body.accept_url.split('#token=')[1];
    const accepted = await quiet.api.post('/api/invitations/accept', { body: { token, password: PASSWORD } });
    expect(accepted.status).toBe(201);
    expect(accepted.body.organization.id).toBe(boss.organization.id);
  });
});
