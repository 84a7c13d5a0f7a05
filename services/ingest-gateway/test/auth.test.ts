import { createKey, createProject, setPlan, setupProject, startTestServer, type Session, type TestServer } from '@tlm/testkit';

let server: TestServer;

beforeAll(async () => {
  // Rate limits are per organization, so the key-state tests below (each on its own account) do not disturb them.
  server = await startTestServer({ RATE_LIMIT_ENABLED: 'true' });
});
afterAll(() => server.close());

const keysPath = (session: Session, projectId: string) => `/api/orgs/${session.organization.id}/projects/${projectId}/keys`;

const sendLog = (key: string, message: string) => server.api.post('/v1/logs', { token: key, body: { batch: [{ severity: 'info', message }] } });

const sendEvent = (key: string, event: string) => server.api.post('/v1/events', { token: key, body: { batch: [{ event }] } });

async function storedCount(table: 'logs' | 'events', column: 'message' | 'event_name', value: string) {
  const [row] = await server.standalone.analytics.query(`SELECT count(*) AS n FROM ${table} WHERE ${column} = $value`, { value });
  return Number(row!['n']);
}

async function expectRefusedAndNothingStored(key: string, label: string) {
  const logs = await sendLog(key, `refused log ${label}`);
  expect(logs.status).toBe(401);
  expect(logs.body.error.code).toBe('UNAUTHORIZED');
  const events = await sendEvent(key, `refused event ${label}`);
  expect(events.status).toBe(401);
  expect(events.body.error.code).toBe('UNAUTHORIZED');
  expect(await storedCount('logs', 'message', `refused log ${label}`)).toBe(0);
  expect(await storedCount('events', 'event_name', `refused event ${label}`)).toBe(0);
}

describe('ingest refuses keys that may not authenticate', () => {
  let setup: Awaited<ReturnType<typeof setupProject>>;

  beforeAll(async () => {
    setup = await setupProject(server.api);
  });

  /** A key that has just been used successfully, so the gateway holds it in its cache. */
  async function usedKey(projectId = setup.project.id) {
    const key = await createKey(server.api, setup.session, projectId, { type: 'secret' });
    expect((await sendLog(key.key, 'warm the cache')).status).toBe(202);
    return key;
  }

  it('answers 401 for a revoked key and stores nothing', async () => {
    const key = await usedKey();
    expect((await server.api.post(`${keysPath(setup.session, setup.project.id)}/${key.id}/revoke`, { token: setup.session.token })).status).toBe(200);
    await expectRefusedAndNothingStored(key.key, 'revoked');
  });

  it('answers 401 for a deleted key and stores nothing', async () => {
    const key = await usedKey();
    expect((await server.api.delete(`${keysPath(setup.session, setup.project.id)}/${key.id}`, { token: setup.session.token })).status).toBe(200);
    await expectRefusedAndNothingStored(key.key, 'deleted');
  });

  it('answers 401 for a key of a deleted project, public or secret, and stores nothing', async () => {
    const project = await createProject(server.api, setup.session, { name: 'doomed' });
    const secret = await usedKey(project.id);
    const publicKey = await createKey(server.api, setup.session, project.id, { type: 'public' });
    expect((await sendEvent(publicKey.key, 'warm the cache')).status).toBe(202);
    expect((await server.api.delete(`/api/orgs/${setup.session.organization.id}/projects/${project.id}`, { token: setup.session.token })).status).toBe(200);
    await expectRefusedAndNothingStored(secret.key, 'deleted project secret');
    await expectRefusedAndNothingStored(publicKey.key, 'deleted project public');
  });
});

describe('per-account rate limit (RATE_LIMIT_ENABLED)', () => {
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  async function requestsPerSecond(session: Session): Promise<number> {
    const reply = await server.api.get(`/api/orgs/${session.organization.id}`, { token: session.token });
    expect(reply.status).toBe(200);
    return reply.body.limits.requests_per_second as number;
  }

  /**
   * Fires `count` requests at once at the start of a fresh one-second window (the limiter's fixed window), spread
   * over `keys` in turn. A burst that did not finish well inside its window proves nothing, so it is fired again.
   */
  async function burst(keys: string[], count: number, label: string) {
    for (let attempt = 1; ; attempt += 1) {
      await sleep(1_000 - (Date.now() % 1_000) + 20);
      const started = Date.now();
      const replies = await Promise.all(
        Array.from({ length: count }, (_, index) => sendLog(keys[index % keys.length]!, `${label} ${attempt}`)),
      );
      if (Math.floor(Date.now() / 1_000) === Math.floor(started / 1_000) || attempt === 3) return { replies, message: `${label} ${attempt}` };
    }
  }

  it('answers the free plan request over the limit inside one second with 429 RATE_LIMITED and Retry-After', async () => {
    const setup = await setupProject(server.api);
    await setPlan(server.api, setup.session, 'free');
    const limit = await requestsPerSecond(setup.session);
    expect(limit).toBe(10);
    expect((await sendLog(setup.secretKey, 'warm the cache')).status).toBe(202);

    const { replies, message } = await burst([setup.secretKey], limit + 1, 'free burst');
    const statuses = replies.map((reply) => reply.status).sort();
    expect(statuses).toEqual([...Array(limit).fill(202), 429]);
    const limited = replies.find((reply) => reply.status === 429)!;
    expect(limited.body.error.code).toBe('RATE_LIMITED');
    expect(limited.headers.get('retry-after')).toBe('1');
    expect(await storedCount('logs', 'message', message)).toBe(limit);

    // The next window admits requests again.
    await sleep(1_000 - (Date.now() % 1_000) + 20);
    expect((await sendLog(setup.secretKey, 'next second')).status).toBe(202);
  });

  it('counts every key and project of the account together, and leaves other accounts alone', async () => {
    const setup = await setupProject(server.api);
    await setPlan(server.api, setup.session, 'free');
    const otherProject = await createProject(server.api, setup.session, { name: 'second' });
    const otherKey = await createKey(server.api, setup.session, otherProject.id, { type: 'secret' });
    const bystander = await setupProject(server.api);
    const limit = await requestsPerSecond(setup.session);
    for (const key of [setup.secretKey, otherKey.key, bystander.secretKey]) expect((await sendLog(key, 'warm the cache')).status).toBe(202);

    const [{ replies }, bystanderReply] = await Promise.all([
      burst([setup.secretKey, otherKey.key], limit + 1, 'shared burst'),
      sleep(1_000 - (Date.now() % 1_000) + 20).then(() => sendLog(bystander.secretKey, 'bystander')),
    ]);
    expect(replies.filter((reply) => reply.status === 202)).toHaveLength(limit);
    expect(replies.filter((reply) => reply.status === 429)).toHaveLength(1);
    expect(bystanderReply.status).toBe(202);
  });

  it('follows a plan change at once: the starter limit admits more', async () => {
    const setup = await setupProject(server.api);
    await setPlan(server.api, setup.session, 'free');
    expect((await sendLog(setup.secretKey, 'warm the cache on free')).status).toBe(202);
    await setPlan(server.api, setup.session, 'starter');
    const limit = await requestsPerSecond(setup.session);
    expect(limit).toBe(20);

    const { replies, message } = await burst([setup.secretKey], limit + 1, 'starter burst');
    expect(replies.filter((reply) => reply.status === 202)).toHaveLength(limit);
    expect(replies.filter((reply) => reply.status === 429)).toHaveLength(1);
    expect(await storedCount('logs', 'message', message)).toBe(limit);
  });
});
