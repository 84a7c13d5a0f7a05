import { createHash } from 'node:crypto';
import { request } from 'node:http';
import { signup, startSmtpServer, startTestServer, uniqueEmail, type TestServer, type TestSmtpServer } from '@tlm/testkit';

/**
 * Passwords: a reset by mailed single-use link (one hour) whose request answers alike whether or not the address has
 * an account, and a change while signed in. Both end the person's other sessions (the session epoch); the tests follow
 * the link of the mail a real SMTP server received.
 */

let smtp: TestSmtpServer;
let server: TestServer;

beforeAll(async () => {
  smtp = await startSmtpServer();
  server = await startTestServer({ SMTP_URL: smtp.url });
});
afterAll(async () => {
  await server?.close();
  await smtp?.close();
});

const WEB = { 'x-tlm-csrf': '1' };
const NEW_PASSWORD = 'a brand new passphrase';

async function requestReset(email: string) {
  return server.api.post('/api/auth/password-reset', { body: { email } });
}

/** Asks for a reset of `email` and answers the token of the link in the mail that arrives for it. */
async function resetToken(email: string): Promise<string> {
  const earlier = new Set(smtp.mails);
  expect((await requestReset(email)).status).toBe(202);
  const mail = await smtp.waitForMail(email, (candidate) => !earlier.has(candidate));
  const match = /(https?:\/\/\S+)\/reset-password#token=([A-Za-z0-9_-]+)/.exec(mail.text);
  if (!match) throw new Error(`no reset link in: ${mail.text}`);
  expect(match[1]).toBe(server.url);
  return match[2]!;
}

async function login(email: string, password: string) {
  return server.api.post('/api/auth/login', { body: { email, password } });
}

async function storedResets(userId: string) {
  return server.standalone.metadata.query<{ token_hash: string; used_at: Date | null }>('select token_hash, used_at from password_resets where user_id = $1', [userId]);
}

describe('POST /api/auth/password-reset', () => {
  it('answers the same for an address with an account and one without, and mails only the account', async () => {
    const person = await signup(server.api);
    const nobody = uniqueEmail('nobody');
    const unknown = await requestReset(nobody);
    const known = await requestReset(person.user.email);
    expect(unknown.status).toBe(202);
    expect(known.status).toBe(202);
    expect(unknown.text).toBe(known.text);
    expect(known.body).toEqual({ message: 'if an account has this address, a link to reset its password is on its way' });
    const mail = await smtp.waitForMail(person.user.email);
    expect(mail.subject).toBe('Reset your password');
    expect(mail.text).toContain('expires in one hour');
    expect(smtp.mails.some((candidate) => candidate.to.includes(nobody.toLowerCase()))).toBe(false);
  });

  it('stores only the SHA-256 of the token', async () => {
    const person = await signup(server.api);
    const token = await resetToken(person.user.email);
    expect((await storedResets(person.user.id)).map((row) => row.token_hash)).toEqual([createHash('sha256').update(token).digest('hex')]);
  });

  it("forgets a person's resets that expired a day ago when they ask for another", async () => {
    const person = await signup(server.api);
    const old = await resetToken(person.user.email);
    await server.standalone.metadata.query(`update password_resets set expires_at = now() - interval '25 hours' where user_id = $1`, [person.user.id]);
    const fresh = await resetToken(person.user.email);
    expect((await storedResets(person.user.id)).map((row) => row.token_hash)).toEqual([createHash('sha256').update(fresh).digest('hex')]);
    expect((await server.api.post('/api/auth/password-reset/confirm', { body: { token: old, password: NEW_PASSWORD } })).body.error.details).toEqual({ reason: 'unknown' });
  });

  it.each([
    ['no address', {}],
    ['an address that is not one', { email: 'not an address' }],
    ['a field it does not know', { email: 'someone@example.com', admin: true }],
  ])('refuses %s with 400 VALIDATION_ERROR and stores nothing', async (_what, body) => {
    const before = (await server.standalone.metadata.query<{ n: number }>('select count(*)::int as n from password_resets'))[0]!.n;
    const reply = await server.api.post('/api/auth/password-reset', { body });
    expect(reply.status).toBe(400);
    expect(reply.body.error.code).toBe('VALIDATION_ERROR');
    expect((await server.standalone.metadata.query<{ n: number }>('select count(*)::int as n from password_resets'))[0]!.n).toBe(before);
  });
});

describe('POST /api/auth/password-reset/confirm', () => {
  it('sets the password, ends the old sessions and answers a new one; the link works once', async () => {
    const person = await signup(server.api);
    const oldSession = (await login(person.user.email, person.password)).body.token;
    const token = await resetToken(person.user.email);

    const confirmed = await server.api.post('/api/auth/password-reset/confirm', { body: { token, password: NEW_PASSWORD } });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.user.email).toBe(person.user.email);
    expect((await server.api.get('/api/auth/me', { token: confirmed.body.token })).status).toBe(200);
    for (const stale of [person.token, oldSession]) {
      const me = await server.api.get('/api/auth/me', { token: stale });
      expect(me.status).toBe(401);
      expect(me.body.error.code).toBe('UNAUTHORIZED');
    }
    expect((await login(person.user.email, person.password)).status).toBe(401);
    expect((await login(person.user.email, NEW_PASSWORD)).status).toBe(200);

    const again = await server.api.post('/api/auth/password-reset/confirm', { body: { token, password: 'yet another passphrase' } });
    expect(again.status).toBe(404);
    expect(again.body.error).toEqual(expect.objectContaining({ code: 'NOT_FOUND', details: { reason: 'used' } }));
    expect((await login(person.user.email, NEW_PASSWORD)).status).toBe(200);
  });

  it('uses up the other links of the person once one of them works', async () => {
    const person = await signup(server.api);
    const first = await resetToken(person.user.email);
    const second = await resetToken(person.user.email);
    expect((await server.api.post('/api/auth/password-reset/confirm', { body: { token: second, password: NEW_PASSWORD } })).status).toBe(200);
    const older = await server.api.post('/api/auth/password-reset/confirm', { body: { token: first, password: 'an attacker passphrase' } });
    expect(older.status).toBe(404);
    expect(older.body.error.details).toEqual({ reason: 'used' });
  });

  it('refuses an expired link with 404 NOT_FOUND (reason expired) and keeps the password', async () => {
    const person = await signup(server.api);
    const token = await resetToken(person.user.email);
    await server.standalone.metadata.query(`update password_resets set expires_at = now() - interval '1 second' where user_id = $1`, [person.user.id]);
    const reply = await server.api.post('/api/auth/password-reset/confirm', { body: { token, password: NEW_PASSWORD } });
    expect(reply.status).toBe(404);
    expect(reply.body.error).toEqual(expect.objectContaining({ code: 'NOT_FOUND', details: { reason: 'expired' } }));
    expect((await login(person.user.email, person.password)).status).toBe(200);
    expect((await server.api.get('/api/auth/me', { token: person.token })).status).toBe(200);
  });

  it('refuses a token nobody issued with 404 NOT_FOUND (reason unknown)', async () => {
    const reply = await server.api.post('/api/auth/password-reset/confirm', { body: { token: 'y'.repeat(43), password: NEW_PASSWORD } });
    expect(reply.status).toBe(404);
    expect(reply.body.error).toEqual(expect.objectContaining({ code: 'NOT_FOUND', details: { reason: 'unknown' } }));
  });

  it('refuses a password under 8 characters with 400 VALIDATION_ERROR and leaves the link unused', async () => {
    const person = await signup(server.api);
    const token = await resetToken(person.user.email);
    for (const body of [{ token, password: 'short' }, { token }, { password: NEW_PASSWORD }]) {
      const reply = await server.api.post('/api/auth/password-reset/confirm', { body });
      expect(reply.status).toBe(400);
      expect(reply.body.error.code).toBe('VALIDATION_ERROR');
    }
    expect((await storedResets(person.user.id)).map((row) => row.used_at)).toEqual([null]);
    expect((await login(person.user.email, person.password)).status).toBe(200);
    expect((await server.api.post('/api/auth/password-reset/confirm', { body: { token, password: NEW_PASSWORD } })).status).toBe(200);
  });

  it('mails an account at most 5 links an hour and still answers 202', async () => {
    const person = await signup(server.api);
    for (let n = 0; n < 5; n++) await resetToken(person.user.email);
    const sixth = await requestReset(person.user.email);
    expect(sixth.status).toBe(202);
    // A reset of another address asked afterwards is mailed: the sixth was passed over, not pending.
    const other = await signup(server.api);
    await resetToken(other.user.email);
    expect(smtp.mails.filter((mail) => mail.to.includes(person.user.email.toLowerCase())).length).toBe(5);
    expect(await storedResets(person.user.id)).toHaveLength(5);
  });
});

describe('a server that cannot send mail', () => {
  let quiet: TestServer;
  beforeAll(async () => {
    quiet = await startTestServer({ SMTP_URL: '' });
  });
  afterAll(() => quiet?.close());

  it('answers 503 MAIL_NOT_CONFIGURED to every reset request, account or not', async () => {
    const person = await signup(quiet.api);
    const known = await quiet.api.post('/api/auth/password-reset', { body: { email: person.user.email } });
    const unknown = await quiet.api.post('/api/auth/password-reset', { body: { email: uniqueEmail('nobody') } });
    expect(known.status).toBe(503);
    expect(known.body.error.code).toBe('MAIL_NOT_CONFIGURED');
    expect(unknown.text).toBe(known.text);
    expect(await quiet.standalone.metadata.query('select * from password_resets')).toEqual([]);
  });
});

describe('reset links and the Host header', () => {
  /** A reset request whose Host header the requester chose, as an attacker would. */
  async function requestWithHost(target: TestServer, host: string, email: string): Promise<{ status: number; body: any }> {
    const url = new URL('/api/auth/password-reset', target.url);
    return new Promise((resolve, reject) => {
      const req = request(url, { method: 'POST', headers: { host, 'content-type': 'application/json' } }, (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      });
      req.on('error', reject);
      req.end(JSON.stringify({ email }));
    });
  }

  it('refuses a reset asked for under a host that is not this machine when PUBLIC_URL is not set, and mails nothing', async () => {
    const person = await signup(server.api);
    const refused = await requestWithHost(server, 'attacker.example.com', person.user.email);
    expect(refused.status).toBe(503);
    expect(refused.body.error.code).toBe('MAIL_NOT_CONFIGURED');
    expect(await storedResets(person.user.id)).toEqual([]);
    expect(smtp.mails.filter((mail) => mail.to.includes(person.user.email.toLowerCase()))).toEqual([]);
  });

  it('builds the link from PUBLIC_URL whatever host the request names', async () => {
    const published = await startTestServer({ SMTP_URL: smtp.url, PUBLIC_URL: 'https://telemetry.example.com/' });
    try {
      const person = await signup(published.api);
      expect((await requestWithHost(published, 'attacker.example.com', person.user.email)).status).toBe(202);
      const mail = await smtp.waitForMail(person.user.email);
      expect(mail.text).toMatch(/https:\/\/telemetry\.example\.com\/reset-password#token=[A-Za-z0-9_-]+/);
      expect(mail.text).not.toContain('attacker.example.com');
    } finally {
      await published.close();
    }
  });
});

describe('POST /api/auth/password', () => {
  it('changes the password, ends the other sessions and answers a new token for this client', async () => {
    const person = await signup(server.api);
    const otherDevice = (await login(person.user.email, person.password)).body.token;
    const reply = await server.api.post('/api/auth/password', { token: person.token, body: { current_password: person.password, new_password: NEW_PASSWORD } });
    expect(reply.status).toBe(200);
    expect((await server.api.get('/api/auth/me', { token: reply.body.token })).status).toBe(200);
    expect((await server.api.get('/api/auth/me', { token: person.token })).status).toBe(401);
    expect((await server.api.get('/api/auth/me', { token: otherDevice })).status).toBe(401);
    expect((await login(person.user.email, person.password)).status).toBe(401);
    expect((await login(person.user.email, NEW_PASSWORD)).status).toBe(200);
  });

  it('keeps the web app signed in with a new session cookie', async () => {
    const email = uniqueEmail('cookie');
    const created = await server.api.post('/api/auth/signup', { headers: WEB, body: { email, password: 'correct horse battery staple' } });
    const cookie = cookieOf(created.headers);
    const reply = await server.api.post('/api/auth/password', {
      headers: { ...WEB, cookie },
      body: { current_password: 'correct horse battery staple', new_password: NEW_PASSWORD },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.token).toBeUndefined();
    const fresh = cookieOf(reply.headers);
    expect((await server.api.get('/api/auth/me', { headers: { cookie: fresh } })).status).toBe(200);
    expect((await server.api.get('/api/auth/me', { headers: { cookie } })).status).toBe(401);
  });

  it('refuses a wrong current password with 403 FORBIDDEN (reason wrong_password) and changes nothing', async () => {
    const person = await signup(server.api);
    const reply = await server.api.post('/api/auth/password', { token: person.token, body: { current_password: 'not my password', new_password: NEW_PASSWORD } });
    expect(reply.status).toBe(403);
    expect(reply.body.error).toEqual(expect.objectContaining({ code: 'FORBIDDEN', details: { reason: 'wrong_password' } }));
    expect((await server.api.get('/api/auth/me', { token: person.token })).status).toBe(200);
    expect((await login(person.user.email, person.password)).status).toBe(200);
  });

  it('answers 429 RATE_LIMITED after 10 wrong current passwords, even to the right one', async () => {
    const person = await signup(server.api);
    for (let n = 0; n < 10; n++) {
      expect((await server.api.post('/api/auth/password', { token: person.token, body: { current_password: `guess ${n}`, new_password: NEW_PASSWORD } })).status).toBe(403);
    }
    const blocked = await server.api.post('/api/auth/password', { token: person.token, body: { current_password: person.password, new_password: NEW_PASSWORD } });
    expect(blocked.status).toBe(429);
    expect(blocked.body.error.code).toBe('RATE_LIMITED');
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await login(person.user.email, person.password)).status).toBe(200);
  });

  it.each([
    ['a new password under 8 characters', { current_password: 'correct horse battery staple', new_password: 'short' }],
    ['no current password', { new_password: NEW_PASSWORD }],
    ['a field it does not know', { current_password: 'correct horse battery staple', new_password: NEW_PASSWORD, email: 'x@example.com' }],
  ])('refuses %s with 400 VALIDATION_ERROR and changes nothing', async (_what, body) => {
    const person = await signup(server.api);
    const reply = await server.api.post('/api/auth/password', { token: person.token, body });
    expect(reply.status).toBe(400);
    expect(reply.body.error.code).toBe('VALIDATION_ERROR');
    expect((await server.api.get('/api/auth/me', { token: person.token })).status).toBe(200);
    expect((await login(person.user.email, person.password)).status).toBe(200);
  });

  it('answers 401 UNAUTHORIZED without a session', async () => {
    const reply = await server.api.post('/api/auth/password', { body: { current_password: 'x', new_password: NEW_PASSWORD } });
    expect(reply.status).toBe(401);
    expect(reply.body.error.code).toBe('UNAUTHORIZED');
  });
});

function cookieOf(headers: Headers): string {
  const line = headers.getSetCookie().find((candidate) => candidate.startsWith('tlm_session='));
  if (!line) throw new Error('no session cookie');
  return line.split(';', 1)[0]!;
}
