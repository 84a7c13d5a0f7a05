import { SignJWT } from 'jose';
import { startTestServer, uniqueEmail, type TestServer } from '@tlm/testkit';

/**
 * The web app's session: an httpOnly cookie set at log-in, the CSRF header every cookie-authenticated write needs,
 * and the claims every token must carry; log-out and account deletion end a person's sessions.
 */

const JWT_SECRET = 'dashboard-session-test-secret-0123456789abcdef';
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ JWT_SECRET });
});
afterAll(() => server.close());

const WEB = { 'x-tlm-csrf': '1' };
const PASSWORD = 'correct horse battery staple';

/** The `name=value` pair of the session cookie a reply set. */
function sessionCookieOf(headers: Headers): string {
  const cookie = headers.getSetCookie().find((line) => line.startsWith('tlm_session='));
  if (!cookie) throw new Error(`no session cookie in ${JSON.stringify(headers.getSetCookie())}`);
  return cookie.split(';', 1)[0]!;
}

async function webSignup() {
  const email = uniqueEmail('web');
  const reply = await server.api.post('/api/auth/signup', { headers: WEB, body: { email, password: PASSWORD, name: 'Web' } });
  expect(reply.status).toBe(201);
  return { email, cookie: sessionCookieOf(reply.headers), orgId: reply.body.organization.id as string, reply };
}

async function projectNames(cookie: string, orgId: string): Promise<string[]> {
  const reply = await server.api.get(`/api/orgs/${orgId}/projects`, { headers: { cookie } });
  expect(reply.status).toBe(200);
  return reply.body.projects.map((project: { name: string }) => project.name);
}

describe('log-in from the web app', () => {
  it('sets an httpOnly, SameSite=Strict session cookie and answers no token at sign-up', async () => {
    const { reply } = await webSignup();
    expect(reply.body.token).toBeUndefined();
    expect(reply.body.user.name).toBe('Web');
    const line = reply.headers.getSetCookie().find((cookie) => cookie.startsWith('tlm_session='))!;
    expect(line).toMatch(/; HttpOnly/);
    expect(line).toMatch(/; SameSite=Strict/);
    expect(line).toMatch(/; Path=\//);
    expect(line).toMatch(/; Max-Age=43200/);
    expect(line).not.toMatch(/; Secure/);
  });

  it('sets the cookie and no token at log-in, and the cookie authenticates /api reads', async () => {
    const { email } = await webSignup();
    const login = await server.api.post('/api/auth/login', { headers: WEB, body: { email, password: PASSWORD } });
    expect(login.status).toBe(200);
    expect(login.body.token).toBeUndefined();
    const me = await server.api.get('/api/auth/me', { headers: { cookie: sessionCookieOf(login.headers) } });
    expect(me.status).toBe(200);
    expect(me.body.email).toBe(email);
  });

  it('marks the cookie Secure when the request came over HTTPS through a trusted proxy', async () => {
    const reply = await server.api.post('/api/auth/signup', {
      headers: { ...WEB, 'x-forwarded-proto': 'https' },
      body: { email: uniqueEmail('https'), password: PASSWORD },
    });
    expect(reply.status).toBe(201);
    expect(reply.headers.getSetCookie().find((cookie) => cookie.startsWith('tlm_session='))).toMatch(/; Secure/);
  });

  it('answers API clients (no CSRF header) with the token in the body and sets no cookie', async () => {
    const reply = await server.api.post('/api/auth/signup', { body: { email: uniqueEmail('api'), password: PASSWORD } });
    expect(reply.status).toBe(201);
    expect(typeof reply.body.token).toBe('string');
    expect(reply.headers.getSetCookie()).toEqual([]);
  });
});

describe('CSRF', () => {
  it('accepts a cookie-authenticated write that carries the CSRF header', async () => {
    const { cookie, orgId } = await webSignup();
    const reply = await server.api.post(`/api/orgs/${orgId}/projects`, { headers: { ...WEB, cookie }, body: { name: 'with header' } });
    expect(reply.status).toBe(201);
    expect(await projectNames(cookie, orgId)).toEqual(['with header']);
  });

  it('refuses a cookie-authenticated write without the CSRF header with 403 FORBIDDEN and stores nothing', async () => {
    const { cookie, orgId } = await webSignup();
    const reply = await server.api.post(`/api/orgs/${orgId}/projects`, { headers: { cookie }, body: { name: 'no header' } });
    expect(reply.status).toBe(403);
    expect(reply.body.error.code).toBe('FORBIDDEN');
    expect(reply.body.error.message).toBe('a write authenticated by the session cookie must send the x-tlm-csrf header');
    expect(await projectNames(cookie, orgId)).toEqual([]);
  });

  it('refuses a cross-site form post carrying the cookie with 403 FORBIDDEN and stores nothing', async () => {
    const { cookie, orgId } = await webSignup();
    const reply = await server.api.post(`/api/orgs/${orgId}/projects`, {
      headers: { cookie, origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded' },
      body: 'name=forged',
    });
    expect(reply.status).toBe(403);
    expect(reply.body.error.code).toBe('FORBIDDEN');
    expect(await projectNames(cookie, orgId)).toEqual([]);
  });

  it('refuses a cookie-authenticated DELETE without the header and keeps the project', async () => {
    const { cookie, orgId } = await webSignup();
    const created = await server.api.post(`/api/orgs/${orgId}/projects`, { headers: { ...WEB, cookie }, body: { name: 'kept' } });
    const reply = await server.api.delete(`/api/orgs/${orgId}/projects/${created.body.id}`, { headers: { cookie } });
    expect(reply.status).toBe(403);
    expect(await projectNames(cookie, orgId)).toEqual(['kept']);
  });

  it('needs no CSRF header when the token comes in the Authorization header', async () => {
    const signup = await server.api.post('/api/auth/signup', { body: { email: uniqueEmail('bearer'), password: PASSWORD } });
    const reply = await server.api.post(`/api/orgs/${signup.body.organization.id}/projects`, { token: signup.body.token, body: { name: 'api' } });
    expect(reply.status).toBe(201);
  });

  it('answers 401 UNAUTHORIZED to a tampered session cookie', async () => {
    const { cookie } = await webSignup();
    const reply = await server.api.get('/api/auth/me', { headers: { cookie: `${cookie}x` } });
    expect(reply.status).toBe(401);
    expect(reply.body.error.code).toBe('UNAUTHORIZED');
  });
});

describe('log-out', () => {
  it('clears the session cookie', async () => {
    const { cookie } = await webSignup();
    const reply = await server.api.post('/api/auth/logout', { headers: { ...WEB, cookie } });
    expect(reply.status).toBe(204);
    const line = reply.headers.getSetCookie().find((value) => value.startsWith('tlm_session='))!;
    expect(line).toMatch(/^tlm_session=;/);
    expect(line).toMatch(/; Max-Age=0/);
  });

  it('refuses a log-out without the CSRF header with 403 FORBIDDEN and clears nothing', async () => {
    const { cookie } = await webSignup();
    const reply = await server.api.post('/api/auth/logout', { headers: { cookie } });
    expect(reply.status).toBe(403);
    expect(reply.body.error.code).toBe('FORBIDDEN');
    expect(reply.headers.getSetCookie()).toEqual([]);
  });
});

describe('ending sessions', () => {
  const me = (headers: Record<string, string>) => server.api.get('/api/auth/me', { headers });

  it('log-out ends the token behind the cookie, as a cookie and as a Bearer copy', async () => {
    const { cookie } = await webSignup();
    const token = cookie.slice('tlm_session='.length);
    expect((await me({ cookie })).status).toBe(200);
    expect((await server.api.post('/api/auth/logout', { headers: { ...WEB, cookie } })).status).toBe(204);
    const again = await me({ cookie });
    expect(again.status).toBe(401);
    expect(again.body.error.code).toBe('UNAUTHORIZED');
    expect((await me({ authorization: `Bearer ${token}` })).status).toBe(401);
  });

  it('log-out in one place ends the person\'s other sessions, and a new log-in works', async () => {
    const { email, cookie: first } = await webSignup();
    const second = sessionCookieOf((await server.api.post('/api/auth/login', { headers: WEB, body: { email, password: PASSWORD } })).headers);
    expect((await server.api.post('/api/auth/logout', { headers: { ...WEB, cookie: second } })).status).toBe(204);
    expect((await me({ cookie: first })).status).toBe(401);
    const third = sessionCookieOf((await server.api.post('/api/auth/login', { headers: WEB, body: { email, password: PASSWORD } })).headers);
    expect((await me({ cookie: third })).status).toBe(200);
  });

  it('a log-out with an expired or foreign token still clears the cookie', async () => {
    const reply = await server.api.post('/api/auth/logout', { headers: { ...WEB, cookie: 'tlm_session=not-a-token' } });
    expect(reply.status).toBe(204);
    expect(reply.headers.getSetCookie()[0]).toMatch(/^tlm_session=;/);
  });

  it('deleting the account ends its tokens, which stay dead after a restore', async () => {
    const { email, cookie } = await webSignup();
    expect((await server.api.delete('/api/auth/account', { headers: { ...WEB, cookie } })).status).toBe(200);
    const restored = await server.api.post('/api/auth/account/restore', { headers: WEB, body: { email, password: PASSWORD } });
    expect(restored.status).toBe(200);
    expect(restored.body.restored).toBe(true);
    expect((await me({ cookie })).status).toBe(401);
    expect((await me({ cookie: sessionCookieOf(restored.headers) })).status).toBe(200);
  });
});

describe('token claims', () => {
  async function userId(): Promise<string> {
    const { cookie } = await webSignup();
    return (await server.api.get('/api/auth/me', { headers: { cookie } })).body.id;
  }

  /** A token signed with the server's secret, with the claims given and no others. */
  function forge(claims: { sub?: string; iss?: string; iat?: boolean; exp?: boolean; sev?: unknown }) {
    const jwt = new SignJWT(claims.sev === undefined ? {} : { sev: claims.sev }).setProtectedHeader({ alg: 'HS256', typ: 'JWT' });
    if (claims.sub !== undefined) jwt.setSubject(claims.sub);
    if (claims.iss !== undefined) jwt.setIssuer(claims.iss);
    if (claims.iat) jwt.setIssuedAt();
    if (claims.exp) jwt.setExpirationTime('1h');
    return jwt.sign(new TextEncoder().encode(JWT_SECRET));
  }

  it('accepts a token with every claim', async () => {
    const token = await forge({ sub: await userId(), iss: 'tlm', iat: true, exp: true, sev: 0 });
    expect((await server.api.get('/api/auth/me', { token })).status).toBe(200);
  });

  it.each([
    ['a sub that is not a user id', { sub: 'not-a-uuid', iss: 'tlm', iat: true, exp: true }],
    ['no exp', { iss: 'tlm', iat: true }],
    ['no iat', { iss: 'tlm', exp: true }],
    ['no iss', { iat: true, exp: true }],
    ['a sev that is not a whole number', { iss: 'tlm', iat: true, exp: true, sev: 'zero' }],
    ['an old sev', { iss: 'tlm', iat: true, exp: true, sev: -1 }],
  ])('answers 401 UNAUTHORIZED to a token with %s, on every /api route', async (_name, claims) => {
    const sub = 'sub' in claims ? claims.sub : await userId();
    const token = await forge({ ...claims, sub });
    for (const path of ['/api/auth/me', '/api/orgs', `/api/orgs/00000000-0000-4000-8000-000000000000/projects`]) {
      const reply = await server.api.get(path, { token });
      expect([path, reply.status, reply.body.error.code]).toEqual([path, 401, 'UNAUTHORIZED']);
    }
  });
});
