import { eventually, signup, startSmtpServer, startTestServer, type Reply, type TestServer, type TestSmtpServer } from '@tlm/testkit';

/**
 * Password resets and invitation links count against the client address's `/api` budget, as sign-up and log-in do
 * (docs/api.md "Rate limits"): 10 a second from one address, counted before the body is read.
 */

let smtp: TestSmtpServer;
let server: TestServer;

beforeAll(async () => {
  smtp = await startSmtpServer();
  server = await startTestServer({ SMTP_URL: smtp.url, RATE_LIMIT_ENABLED: 'true', TRUSTED_PROXIES: 'loopback' });
});
afterAll(async () => {
  await server?.close();
  await smtp?.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Fires the requests at once at the start of a fresh one-second window of the limiter. */
async function burst(fire: () => Promise<Reply>[]): Promise<Reply[]> {
  await sleep(1_000 - (Date.now() % 1_000) + 20);
  return Promise.all(fire());
}

function statuses(replies: Reply[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const reply of replies) counts[reply.status] = (counts[reply.status] ?? 0) + 1;
  return counts;
}

const from = (address: string) => ({ 'x-forwarded-for': address });

describe('the client address budget on password and invitation links', () => {
  it('answers password reset requests over 10 a second from one address with 429 RATE_LIMITED and mails only the others', async () => {
    const person = await signup(server.api);
    await sleep(1_000);
    const replies = await burst(() => Array.from({ length: 11 }, () => server.api.post('/api/auth/password-reset', { body: { email: person.user.email }, headers: from('198.51.100.7') })));
    expect(statuses(replies)).toEqual({ 202: 10, 429: 1 });
    const refused = replies.find((reply) => reply.status === 429)!;
    expect(refused.body.error.code).toBe('RATE_LIMITED');
    expect(refused.headers.get('retry-after')).toBe('1');
    // Five an hour reach the account, even asked for at once; the sixth to the tenth are passed over.
    await eventually(async () => expect(smtp.mails.filter((mail) => mail.to.includes(person.user.email.toLowerCase()))).toHaveLength(5));
    const [row] = await server.standalone.metadata.query<{ n: number }>('select count(*)::int as n from password_resets where user_id = $1', [person.user.id]);
    expect(row!.n).toBe(5);
  }, 60_000);

  it('answers invitation look-ups over 10 a second from one address with 429 RATE_LIMITED', async () => {
    const replies = await burst(() =>
      Array.from({ length: 11 }, () => server.api.post('/api/invitations/accept', { body: { token: 'z'.repeat(43), password: 'long enough password' }, headers: from('198.51.100.8') })),
    );
    expect(statuses(replies)).toEqual({ 404: 10, 429: 1 });
    expect(replies.find((reply) => reply.status === 429)!.body.error.code).toBe('RATE_LIMITED');
  }, 60_000);
});
