import { createKey, eventually, setPlan, setupProject, startTestServer, type TestServer } from '@tlm/testkit';

let server: TestServer;
let setup: Awaited<ReturnType<typeof setupProject>>;

beforeAll(async () => {
  server = await startTestServer();
  setup = await setupProject(server.api);
});
afterAll(() => server.close());

async function readInfo(token = setup.secretKey) {
  const reply = await server.api.get('/v1/info', { token });
  expect(reply.status).toBe(200);
  return reply.body;
}

const keysPath = () => `/api/orgs/${setup.session.organization.id}/projects/${setup.project.id}/keys`;

describe('GET /v1/info', () => {
  it('describes the project and its organization with the plan', async () => {
    const info = await readInfo();
    expect(info.project).toMatchObject({ id: setup.project.id, name: 'web', dsn_id: setup.project.dsn_id });
    expect(info.organization).toMatchObject({ id: setup.session.organization.id, plan: 'free', region: 'us' });
    expect(info.organization.limits).toMatchObject({ requestsPerSecond: 10, maxApiKeys: 5 });
  });

  it("counts this month's logs and events of the project, not older items", async () => {
    const month = new Date().toISOString().slice(0, 7);
    expect((await readInfo()).usage).toEqual({ month, logs: 0, events: 0 });

    const logs = await server.api.post('/v1/logs', {
      token: setup.secretKey,
      body: {
        batch: [
          { severity: 'info', message: 'one' },
          { severity: 'info', message: 'two' },
          { severity: 'info', message: 'three' },
          { severity: 'info', message: 'last year', timestamp: '2020-01-15T00:00:00Z' },
        ],
      },
    });
    expect(logs.body.accepted).toBe(4);
    const events = await server.api.post('/v1/events', {
      token: setup.publicKey,
      body: { batch: [{ event: 'signup' }, { event: 'purchase' }, { properties: { no: 'name' } }] },
    });
    expect(events.body).toMatchObject({ accepted: 2, rejected: 1 });

    // Usage counters are written by the writer shortly after the 202.
    await eventually(async () => expect((await readInfo()).usage).toEqual({ month, logs: 3, events: 2 }));
  });

  it('counts the non-deleted keys of the project', async () => {
    expect((await readInfo()).key_count).toBe(2);
    const extra = await createKey(server.api, setup.session, setup.project.id, { type: 'secret', scopes: ['data:read'] });
    expect((await readInfo(extra.key)).key_count).toBe(3);

    expect((await server.api.post(`${keysPath()}/${extra.id}/revoke`, { token: setup.session.token })).status).toBe(200);
    expect((await readInfo()).key_count).toBe(3);
    expect((await server.api.delete(`${keysPath()}/${extra.id}`, { token: setup.session.token })).status).toBe(200);
    expect((await readInfo()).key_count).toBe(2);
  });

  it('shows a plan change at once', async () => {
    expect((await readInfo()).organization.plan).toBe('free');
    await setPlan(server.api, setup.session, 'starter');
    const info = await readInfo();
    expect(info.organization.plan).toBe('starter');
    expect(info.organization.limits.maxApiKeys).toBe(10);
  });

  it('refuses a public key with 403 FORBIDDEN', async () => {
    const reply = await server.api.get('/v1/info', { token: setup.publicKey });
    expect(reply.status).toBe(403);
    expect(reply.body.error.code).toBe('FORBIDDEN');
  });

  it('answers 401 UNAUTHORIZED for an unknown key', async () => {
    const reply = await server.api.get('/v1/info', { token: 'tlm_sk_us_' + 'B'.repeat(32) });
    expect(reply.status).toBe(401);
    expect(reply.body.error.code).toBe('UNAUTHORIZED');
  });
});
