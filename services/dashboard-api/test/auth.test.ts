import { SignJWT } from 'jose';
import { createKey, createProject, signup, startTestServer, uniqueEmail, type TestServer } from '@tlm/testkit';

/** The server's token secret, known to the tests so they can sign tokens the way the server does. */
const JWT_SECRET = 'dashboard-auth-test-secret-0123456789abcdef';

let server: TestServer;

beforeAll(async () => {
  // Serves us and knows where eu is; ap has no address here.
  server = await startTestServer({ JWT_SECRET, REGION: 'us', REGION_URLS: 'eu=https://eu.telemetry.example.com' });
});
afterAll(() => server.close());

const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const nowSeconds = () => Math.floor(Date.now() / 1000);

function signToken(userId: string, options: { secret?: string; expiresAt?: number; issuedAt?: number } = {}) {
  return new SignJWT({})
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(userId)
    .setIssuer('tlm')
    .setIssuedAt(options.issuedAt ?? nowSeconds())
    .setExpirationTime(options.expiresAt ?? nowSeconds() + 3600)
    .sign(new TextEncoder().encode(options.secret ?? JWT_SECRET));
}

async function usersWithEmail(email: string) {
  return server.standalone.metadata.query<{ id: string; deleted_at: Date | null }>(
    'select id, deleted_at from users where lower(email) = lower($1)',
    [email],
  );
}

const sendLog = (key: string, message: string) => server.api.post('/v1/logs', { token: key, body: { batch: [{ severity: 'info', message }] } });

async function storedLogCount(projectId: string) {
  const [row] = await server.standalone.analytics.query('SELECT count(*) AS n FROM logs WHERE project_id = $project', { project: projectId });
  return Number(row!['n']);
}

describe('POST /api/auth/signup', () => {
  it('creates the user and a personal free organization owned by them, answering 201 with a token', async () => {
    const email = uniqueEmail('signup');
    const reply = await server.api.post('/api/auth/signup', { body: { email, password: 'long enough', name: 'Ada' } });
    expect(reply.status).toBe(201);
    expect(reply.body).toEqual({
      token: expect.any(String),
      user: { id: expect.any(String), email, name: 'Ada' },
      organization: { id: expect.any(String), name: expect.any(String), plan: 'free', region: 'us' },
    });
    const memberships = await server.standalone.metadata.query('select org_id, role from memberships where user_id = $1', [reply.body.user.id]);
    expect(memberships).toEqual([{ org_id: reply.body.organization.id, role: 'owner' }]);
    const me = await server.api.get('/api/auth/me', { token: reply.body.token });
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(reply.body.user.id);
  });

  it('rejects a malformed email with 400 VALIDATION_ERROR and creates nothing', async () => {
    const reply = await server.api.post('/api/auth/signup', { body: { email: 'not-an-email', password: 'long enough' } });
    expect(reply.status).toBe(400);
    expect(reply.body.error.code).toBe('VALIDATION_ERROR');
    expect(await usersWithEmail('not-an-email')).toHaveLength(0);
  });

  it('rejects a password under 8 characters with 400 VALIDATION_ERROR and creates nothing', async () => {
    const email = uniqueEmail('short');
    const reply = await server.api.post('/api/auth/signup', { body: { email, password: '1234567' } });
    expect(reply.status).toBe(400);
    expect(reply.body.error.code).toBe('VALIDATION_ERROR');
    expect(reply.body.error.message).toContain('password');
    expect(await usersWithEmail(email)).toHaveLength(0);
  });

  it('answers 421 WRONG_REGION with the address of a region served elsewhere, and creates nothing', async () => {
    const email = uniqueEmail('eu');
    const organizations = await server.standalone.metadata.query('select count(*)::int as n from organizations');
    const reply = await server.api.post('/api/auth/signup', { body: { email, password: 'long enough', region: 'eu' } });
    expect(reply.status).toBe(421);
    expect(reply.body.error).toEqual({
      code: 'WRONG_REGION',
      message: "this deployment serves region 'us'; sign up for region 'eu' at https://eu.telemetry.example.com",
      details: { region: 'eu', url: 'https://eu.telemetry.example.com' },
    });
    expect(await usersWithEmail(email)).toHaveLength(0);
    expect(await server.standalone.metadata.query('select count(*)::int as n from organizations')).toEqual(organizations);
  });

  it('answers 421 WRONG_REGION without an address for a region REGION_URLS does not name, and creates nothing', async () => {
    const email = uniqueEmail('ap');
    const reply = await server.api.post('/api/auth/signup', { body: { email, password: 'long enough', region: 'ap' } });
    expect(reply.status).toBe(421);
    expect(reply.body.error).toEqual({ code: 'WRONG_REGION', message: "this deployment serves region 'us', not 'ap'", details: { region: 'ap' } });
    expect(await usersWithEmail(email)).toHaveLength(0);
  });

  it("creates the organization in the deployment's own region when the sign-up names it", async () => {
    const reply = await server.api.post('/api/auth/signup', { body: { email: uniqueEmail('us'), password: 'long enough', region: 'us' } });
    expect(reply.status).toBe(201);
    expect(reply.body.organization.region).toBe('us');
  });

  it('rejects a duplicate email in any letter case with 409 CONFLICT', async () => {
    const email = uniqueEmail('dup');
    await signup(server.api, { email });
    const reply = await server.api.post('/api/auth/signup', { body: { email: email.toUpperCase(), password: 'another password' } });
    expect(reply.status).toBe(409);
    expect(reply.body.error.code).toBe('CONFLICT');
    expect(await usersWithEmail(email)).toHaveLength(1);
  });

  it('answers 409 CONFLICT with details.restore for the email of a soft-deleted account and creates no account', async () => {
    const session = await signup(server.api);
    expect((await server.api.delete('/api/auth/account', { token: session.token })).status).toBe(200);
    const organizationsBefore = await server.standalone.metadata.query('select count(*)::int as n from organizations');

    const reply = await server.api.post('/api/auth/signup', { body: { email: session.user.email, password: 'a new password' } });
    expect(reply.status).toBe(409);
    expect(reply.body.error.code).toBe('CONFLICT');
    expect(reply.body.error.details).toEqual({ restore: true });
    const users = await usersWithEmail(session.user.email);
    expect(users).toHaveLength(1);
    expect(users[0]!.id).toBe(session.user.id);
    expect(users[0]!.deleted_at).not.toBeNull();
    expect(await server.standalone.metadata.query('select count(*)::int as n from organizations')).toEqual(organizationsBefore);
  });
});

describe('POST /api/auth/login and GET /api/auth/me', () => {
  it('logs in with the right password and answers 200 with a working token', async () => {
    const session = await signup(server.api, { name: 'Grace' });
    const reply = await server.api.post('/api/auth/login', { body: { email: session.user.email, password: session.password } });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ token: expect.any(String), user: { id: session.user.id, email: session.user.email, name: 'Grace' } });
    const me = await server.api.get('/api/auth/me', { token: reply.body.token });
    expect(me.status).toBe(200);
    expect(me.body.email).toBe(session.user.email);
  });

  it('refuses a wrong password with 401 UNAUTHORIZED', async () => {
    const session = await signup(server.api);
    const reply = await server.api.post('/api/auth/login', { body: { email: session.user.email, password: 'not the password' } });
    expect(reply.status).toBe(401);
    expect(reply.body.error.code).toBe('UNAUTHORIZED');
    expect(reply.body.token).toBeUndefined();
  });

  it('refuses an unknown email with 401 UNAUTHORIZED', async () => {
    const reply = await server.api.post('/api/auth/login', { body: { email: uniqueEmail('nobody'), password: 'whatever123' } });
    expect(reply.status).toBe(401);
    expect(reply.body.error.code).toBe('UNAUTHORIZED');
  });

  it('answers 429 RATE_LIMITED to the 11th login attempt at one email from one address in 15 minutes, right password or not', async () => {
    const session = await signup(server.api);
    const from = (address: string, password: string, path = '/api/auth/login') =>
      server.api.post(path, { body: { email: session.user.email.toUpperCase(), password }, headers: { 'x-forwarded-for': address } });
    for (let attempt = 1; attempt <= 10; attempt += 1) expect((await from('203.0.113.7', `guess number ${attempt}`)).status).toBe(401);
    const refused = await from('203.0.113.7', session.password);
    expect(refused.status).toBe(429);
    expect(refused.body.error).toEqual({ code: 'RATE_LIMITED', message: expect.stringMatching(/^too many login attempts for this email; try again in \d+ seconds$/) });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(890);
    expect((await from('203.0.113.7', session.password, '/api/auth/account/restore')).status).toBe(429);
    // Another address still logs in, so guessing from one cannot lock the owner out.
    expect((await from('198.51.100.2', session.password)).status).toBe(200);
  });

  it('lists the user with every organization and the role held in each', async () => {
    const owner = await signup(server.api);
    const guest = await signup(server.api, { name: 'Guest' });
    const added = await server.api.post(`/api/orgs/${owner.organization.id}/members`, {
      token: owner.token,
      body: { email: guest.user.email, role: 'member' },
    });
    expect(added.status).toBe(201);

    const me = await server.api.get('/api/auth/me', { token: guest.token });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: guest.user.id, email: guest.user.email, name: 'Guest' });
    const roles = Object.fromEntries(me.body.organizations.map((organization: { id: string; role: string }) => [organization.id, organization.role]));
    expect(roles).toEqual({ [guest.organization.id]: 'owner', [owner.organization.id]: 'member' });
  });

  it('answers 401 UNAUTHORIZED without a token', async () => {
    const reply = await server.api.get('/api/auth/me');
    expect(reply.status).toBe(401);
    expect(reply.body.error.code).toBe('UNAUTHORIZED');
  });
});

describe('JWT verification on GET /api/auth/me', () => {
  let session: Awaited<ReturnType<typeof signup>>;

  beforeAll(async () => {
    session = await signup(server.api);
  });

  async function expectRefused(token: string) {
    const reply = await server.api.get('/api/auth/me', { token });
    expect(reply.status).toBe(401);
    expect(reply.body.error.code).toBe('UNAUTHORIZED');
  }

  it('accepts a token the test signs with the server secret (the control for the refusals below)', async () => {
    const reply = await server.api.get('/api/auth/me', { token: await signToken(session.user.id) });
    expect(reply.status).toBe(200);
    expect(reply.body.id).toBe(session.user.id);
  });

  it('refuses a token whose payload was tampered with', async () => {
    const victim = await signup(server.api);
    const [header, , signature] = session.token.split('.');
    const payload = JSON.parse(Buffer.from(session.token.split('.')[1]!, 'base64url').toString());
    await expectRefused(`${header}.${encode({ ...payload, sub: victim.user.id })}.${signature}`);
  });

  it('refuses a token whose signature was altered', async () => {
    const [header, payload, signature] = session.token.split('.');
    const flipped = signature!.startsWith('A') ? `B${signature!.slice(1)}` : `A${signature!.slice(1)}`;
    await expectRefused(`${header}.${payload}.${flipped}`);
  });

  it('refuses an expired token signed with the server secret', async () => {
    await expectRefused(await signToken(session.user.id, { issuedAt: nowSeconds() - 7200, expiresAt: nowSeconds() - 60 }));
  });

  it('refuses an unsigned token with alg none', async () => {
    const payload = { sub: session.user.id, iss: 'tlm', iat: nowSeconds(), exp: nowSeconds() + 3600 };
    await expectRefused(`${encode({ alg: 'none', typ: 'JWT' })}.${encode(payload)}.`);
  });

  it('refuses a token signed with another secret', async () => {
    await expectRefused(await signToken(session.user.id, { secret: 'a-completely-different-secret-of-enough-length' }));
  });
});

describe('DELETE /api/auth/account and restore', () => {
  async function accountWithKey() {
    const session = await signup(server.api);
    const project = await createProject(server.api, session);
    const key = await createKey(server.api, session, project.id, { type: 'secret' });
    expect((await sendLog(key.key, 'before deletion')).status).toBe(202);
    return { session, project, key: key.key };
  }

  it('soft-deletes: the keys of the owned organization answer 401 and the token stops working', async () => {
    const { session, project, key } = await accountWithKey();
    const reply = await server.api.delete('/api/auth/account', { token: session.token });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ deleted: true, immediate: false, restore_until: expect.any(String) });
    expect(Date.parse(reply.body.restore_until) - Date.now()).toBeGreaterThan(29 * 24 * 3600 * 1000);

    const refused = await sendLog(key, 'after deletion');
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('UNAUTHORIZED');
    expect((await server.api.get('/api/auth/me', { token: session.token })).status).toBe(401);
    expect(await storedLogCount(project.id)).toBe(1);
    const [organization] = await server.standalone.metadata.query<{ deleted_at: Date | null }>('select deleted_at from organizations where id = $1', [
      session.organization.id,
    ]);
    expect(organization!.deleted_at).not.toBeNull();
  });

  it('restores everything when the user logs in inside the window: the keys work again', async () => {
    const { session, project, key } = await accountWithKey();
    expect((await server.api.delete('/api/auth/account', { token: session.token })).status).toBe(200);
    expect((await sendLog(key, 'while deleted')).status).toBe(401);

    const login = await server.api.post('/api/auth/login', { body: { email: session.user.email, password: session.password } });
    expect(login.status).toBe(200);
    expect((await sendLog(key, 'after login')).status).toBe(202);
    expect(await storedLogCount(project.id)).toBe(2);
    const me = await server.api.get('/api/auth/me', { token: login.body.token });
    expect(me.body.organizations.map((organization: { id: string }) => organization.id)).toEqual([session.organization.id]);
    const projects = await server.api.get(`/api/orgs/${session.organization.id}/projects`, { token: login.body.token });
    expect(projects.body.projects.map((item: { id: string }) => item.id)).toEqual([project.id]);
  });

  it('restores through POST /api/auth/account/restore with email and password', async () => {
    const { session, key } = await accountWithKey();
    expect((await server.api.delete('/api/auth/account', { token: session.token })).status).toBe(200);

    const wrong = await server.api.post('/api/auth/account/restore', { body: { email: session.user.email, password: 'wrong password' } });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe('UNAUTHORIZED');
    expect((await sendLog(key, 'still deleted')).status).toBe(401);

    const reply = await server.api.post('/api/auth/account/restore', { body: { email: session.user.email, password: session.password } });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ restored: true, token: expect.any(String), user: { id: session.user.id } });
    expect((await sendLog(key, 'after restore')).status).toBe(202);
    const [user] = await usersWithEmail(session.user.email);
    expect(user!.deleted_at).toBeNull();
  });

  describe('an organization with two owners', () => {
    /** A's organization, with C as a second owner and M as a member; a key of its project sends a log. */
    async function coOwned() {
      const { session: a, project, key } = await accountWithKey();
      const c = await signup(server.api);
      const m = await signup(server.api);
      const org = a.organization.id;
      for (const [who, role] of [
        [c, 'owner'],
        [m, 'member'],
      ] as const) {
        expect((await server.api.post(`/api/orgs/${org}/members`, { token: a.token, body: { email: who.user.email, role } })).status).toBe(201);
      }
      return { a, c, m, org, project, key };
    }
    const orgSeenBy = async (token: string, org: string) => (await server.api.get(`/api/orgs/${org}`, { token })).status;

    it("stays active while one owner's account is active, and stops when the last one deletes theirs", async () => {
      const { a, c, m, org, key } = await coOwned();
      expect((await server.api.delete('/api/auth/account', { token: a.token })).status).toBe(200);
      expect((await sendLog(key, 'C still owns it')).status).toBe(202);
      expect(await orgSeenBy(m.token, org)).toBe(200);

      expect((await server.api.delete('/api/auth/account', { token: c.token })).status).toBe(200);
      const refused = await sendLog(key, 'no owner left');
      expect(refused.status).toBe(401);
      expect(refused.body.error.code).toBe('UNAUTHORIZED');
      expect(await orgSeenBy(m.token, org)).toBe(404);

      // Either owner coming back brings the organization back: here the first one to leave.
      const login = await server.api.post('/api/auth/login', { body: { email: a.user.email, password: a.password } });
      expect(login.status).toBe(200);
      expect((await sendLog(key, 'A is back')).status).toBe(202);
      expect(await orgSeenBy(m.token, org)).toBe(200);
    });

    it('stops when the other owner, soft-deleted, is joined by an immediate deletion, and keeps it for that owner', async () => {
      const { a, c, m, org, project, key } = await coOwned();
      expect((await server.api.delete('/api/auth/account', { token: a.token })).status).toBe(200);
      expect((await server.api.delete('/api/auth/account?immediate=true', { token: c.token })).status).toBe(200);
      expect((await sendLog(key, 'no owner left')).status).toBe(401);
      expect(await orgSeenBy(m.token, org)).toBe(404);
      // A may still restore it: the organization and its rows are kept.
      expect(await storedLogCount(project.id)).toBe(1);
      const restore = await server.api.post('/api/auth/account/restore', { body: { email: a.user.email, password: a.password } });
      expect(restore.status).toBe(200);
      expect((await sendLog(key, 'A is back')).status).toBe(202);
    });

    it("refuses with 409 CONFLICT to let the last active owner leave while the other owner's account is deleted", async () => {
      const { a, c, org, key } = await coOwned();
      expect((await server.api.delete('/api/auth/account', { token: a.token })).status).toBe(200);
      const leave = await server.api.delete(`/api/orgs/${org}/members/${c.user.id}`, { token: c.token });
      expect(leave.status).toBe(409);
      expect(leave.body.error.code).toBe('CONFLICT');
      expect((await sendLog(key, 'C still owns it')).status).toBe(202);
    });
  });

  it('purges with ?immediate=true: user, organization, projects, keys and stored logs, and the email signs up fresh', async () => {
    const { session, project, key } = await accountWithKey();
    expect(await storedLogCount(project.id)).toBe(1);

    const unclear = await server.api.delete('/api/auth/account?immediate=now', { token: session.token });
    expect(unclear.status).toBe(400);
    expect(unclear.body.error).toEqual({ code: 'VALIDATION_ERROR', message: 'query parameter immediate must be true or false' });
    expect((await sendLog(key, 'still here')).status).toBe(202);

    const reply = await server.api.delete('/api/auth/account?immediate=true', { token: session.token });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ deleted: true, immediate: true });

    const count = async (sql: string, id: string) => (await server.standalone.metadata.query<{ n: number }>(sql, [id]))[0]!.n;
    expect(await count('select count(*)::int as n from users where id = $1', session.user.id)).toBe(0);
    expect(await count('select count(*)::int as n from organizations where id = $1', session.organization.id)).toBe(0);
    expect(await count('select count(*)::int as n from memberships where user_id = $1', session.user.id)).toBe(0);
    expect(await count('select count(*)::int as n from projects where id = $1', project.id)).toBe(0);
    expect(await count('select count(*)::int as n from api_keys where project_id = $1', project.id)).toBe(0);
    expect(await storedLogCount(project.id)).toBe(0);
    expect((await sendLog(key, 'after purge')).status).toBe(401);

    const again = await server.api.post('/api/auth/signup', { body: { email: session.user.email, password: 'a fresh password' } });
    expect(again.status).toBe(201);
    expect(again.body.user.id).not.toBe(session.user.id);
    expect(again.body.organization.id).not.toBe(session.organization.id);
    const projects = await server.api.get(`/api/orgs/${again.body.organization.id}/projects`, { token: again.body.token });
    expect(projects.body.projects).toEqual([]);
  });
});
