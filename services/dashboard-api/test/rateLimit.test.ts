import { PLANS } from '@tlm/core';
import { findUserByEmail } from '@tlm/metadata-store';
import { setPlan, setupProject, startTestServer, uniqueEmail, type ProjectSetup, type Reply, type TestServer } from '@tlm/testkit';

/**
 * The dashboard API's own budgets (docs/api.md "Rate limits"): per organization at its plan's apiRequestsPerSecond,
 * per person on routes of no organization, per client address before an account; none of them shares a count with
 * ingest's requestsPerSecond. The server trusts loopback as a proxy, so X-Forwarded-For gives each test an address.
 */

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ RATE_LIMIT_ENABLED: 'true', TRUSTED_PROXIES: 'loopback' });
});
afterAll(() => server.close());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
let addresses = 0;
const nextAddress = () => `203.0.113.${(addresses += 1)}`;

/**
 * Fires the requests `fire` makes at once at the start of a fresh one-second window (the limiter's fixed window). A
 * burst that did not finish inside its window proves nothing, so it is fired again, up to three times; routes
 * counted on arrival (the address budget, before the body and the password hash) are fired once, as their answers
 * take as long as scrypt does.
 */
async function burst(fire: () => Promise<Reply>[], options: { countedOnArrival?: boolean } = {}): Promise<Reply[]> {
  for (let attempt = 1; ; attempt += 1) {
    await sleep(1_000 - (Date.now() % 1_000) + 20);
    const started = Date.now();
    const replies = await Promise.all(fire());
    const inWindow = Math.floor(Date.now() / 1_000) === Math.floor(started / 1_000);
    if (inWindow || options.countedOnArrival || attempt === 3) return replies;
  }
}

/** How many replies had each status. */
function statuses(replies: Reply[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const reply of replies) counts[reply.status] = (counts[reply.status] ?? 0) + 1;
  return counts;
}

function expectRateLimited(replies: Reply[]): void {
  for (const reply of replies.filter((candidate) => candidate.status === 429)) {
    expect(reply.body.error.code).toBe('RATE_LIMITED');
    expect(reply.headers.get('retry-after')).toBe('1');
  }
}

const gql = (setup: ProjectSetup, q = 'from:logs | count') =>
  server.api.get(`/api/orgs/${setup.session.organization.id}/projects/${setup.project.id}/gql?q=${encodeURIComponent(q)}`, {
    token: setup.session.token,
  });

const sendLog = (setup: ProjectSetup, message: string) =>
  server.api.post('/v1/logs', { token: setup.secretKey, body: { batch: [{ severity: 'info', message }] } });

const times = <T>(count: number, make: (index: number) => T): T[] => Array.from({ length: count }, (_, index) => make(index));

async function freeProject(): Promise<ProjectSetup> {
  const setup = await setupProject(server.api);
  await setPlan(server.api, setup.session, 'free');
  // The key is resolved once before any burst, so the bursts measure the limiter rather than the key cache.
  expect((await sendLog(setup, 'warm the key cache')).status).toBe(202);
  return setup;
}

describe('per-organization /api budget', () => {
  const limit = PLANS.free.apiRequestsPerSecond;
  const ingestLimit = PLANS.free.requestsPerSecond;

  it('answers a Free organization the GQL requests over its 25 a second with 429 RATE_LIMITED and Retry-After, the rest with 200', async () => {
    expect(limit).toBe(25);
    const setup = await freeProject();
    const answer = await server.api.get(`/api/orgs/${setup.session.organization.id}`, { token: setup.session.token });
    expect(answer.body.limits).toMatchObject({ requests_per_second: 10, api_requests_per_second: 25 });

    const replies = await burst(() => times(limit + 5, () => gql(setup)));
    expect(statuses(replies)).toEqual({ 200: limit, 429: 5 });
    expectRateLimited(replies);

    // The next window answers again.
    await sleep(1_000 - (Date.now() % 1_000) + 20);
    expect((await gql(setup)).status).toBe(200);
  });

  it('counts ingest and /api apart: each at its own limit in the same second, neither refuses the other', async () => {
    const setup = await freeProject();
    const replies = await burst(() => [
      ...times(ingestLimit + 1, (index) => sendLog(setup, `ingest at its limit ${index}`)),
      ...times(limit + 1, () => gql(setup)),
    ]);
    expect(statuses(replies.slice(0, ingestLimit + 1))).toEqual({ 202: ingestLimit, 429: 1 });
    expect(statuses(replies.slice(ingestLimit + 1))).toEqual({ 200: limit, 429: 1 });
    expectRateLimited(replies);
  });

  it('leaves another organization alone while one is over its budget', async () => {
    const [busy, bystander] = [await freeProject(), await freeProject()];
    const replies = await burst(() => [...times(limit + 5, () => gql(busy)), ...times(limit, () => gql(bystander))]);
    expect(statuses(replies.slice(0, limit + 5))).toEqual({ 200: limit, 429: 5 });
    expect(statuses(replies.slice(limit + 5))).toEqual({ 200: limit });
  });
});

describe('per-person /api budget on routes of no organization', () => {
  it('answers GET /api/auth/me over 10 a second with 429 RATE_LIMITED, and leaves the organization budget to its routes', async () => {
    const setup = await freeProject();
    const me = () => server.api.get('/api/auth/me', { token: setup.session.token });
    const replies = await burst(() => [...times(11, me), ...times(PLANS.free.apiRequestsPerSecond, () => gql(setup))]);
    expect(statuses(replies.slice(0, 11))).toEqual({ 200: 10, 429: 1 });
    expectRateLimited(replies);
    expect(statuses(replies.slice(11))).toEqual({ 200: PLANS.free.apiRequestsPerSecond });
  });
});

describe('per-address /api budget before an account', () => {
  const password = 'correct horse battery staple';

  it('answers sign-ups over 10 a second from one address with 429 RATE_LIMITED, creates no account for them, and leaves other addresses alone', async () => {
    const [address, elsewhere] = [nextAddress(), nextAddress()];
    const signup = (email: string, from: string) => server.api.post('/api/auth/signup', { body: { email, password }, headers: { 'x-forwarded-for': from } });
    let emails: string[] = [];
    const replies = await burst(() => {
      emails = [...times(12, () => uniqueEmail('burst')), uniqueEmail('elsewhere')];
      return emails.map((email, index) => signup(email, index < 12 ? address : elsewhere));
    }, { countedOnArrival: true });
    expect(statuses(replies.slice(0, 12))).toEqual({ 201: 10, 429: 2 });
    expectRateLimited(replies);
    expect(replies[12]!.status).toBe(201);
    for (const [index, reply] of replies.entries()) {
      const account = await findUserByEmail(server.standalone.metadata, emails[index]!);
      if (reply.status === 429) expect(account).toBeUndefined();
      else expect(account?.id).toBe(reply.body.user.id);
    }
  }, 120_000);

  it('answers log-ins over 10 a second from one address with 429 RATE_LIMITED before checking the password', async () => {
    const address = nextAddress();
    const replies = await burst(() =>
      times(11, () => server.api.post('/api/auth/login', { body: { email: uniqueEmail('nobody'), password }, headers: { 'x-forwarded-for': address } })),
      { countedOnArrival: true },
    );
    expect(statuses(replies)).toEqual({ 401: 10, 429: 1 });
    expectRateLimited(replies);
    expect(replies.filter((reply) => reply.status === 401).every((reply) => reply.body.error.code === 'UNAUTHORIZED')).toBe(true);
  }, 120_000);
});
