import { createKey, eventually, serverWithProject, setPlan } from '@tlm/testkit';

const fixture = serverWithProject();

async function readInfo(token = fixture.setup.secretKey) {
  const reply = await fixture.server.api.get('/v1/info', { token });
  expect(reply.status).toBe(200);
  return reply.body;
}

const keysPath = () => `/api/orgs/${fixture.setup.session.organization.id}/projects/${fixture.setup.project.id}/keys`;

describe('GET /v1/info', () => {
  it('describes the project and its organization with the plan and its limits in snake_case', async () => {
    const info = await readInfo();
    expect(info.project).toMatchObject({ id: fixture.setup.project.id, name: 'web', dsn_id: fixture.setup.project.dsn_id });
    expect(info.organization).toMatchObject({ id: fixture.setup.session.organization.id, plan: 'free', region: 'us' });
    // Every name and value: docs/api.md "Plan limits" and the usage answer's test (services/dashboard-api).
    expect(info.organization.limits).toMatchObject({ requests_per_second: 10, max_api_keys: 5, retention_days: 3, ai_queries_per_month: 50 });
  });

  it('keeps the deprecated camelCase names of the limits readable beside the snake_case ones', async () => {
    const { limits } = (await readInfo()).organization;
    expect([limits.requestsPerSecond, limits.maxApiKeys, limits.retentionDays]).toEqual([limits.requests_per_second, limits.max_api_keys, limits.retention_days]);
  });

  it("counts the logs and events the project sent this month, whatever times they carry", async () => {
    const month = new Date().toISOString().slice(0, 7);
    expect((await readInfo()).usage).toEqual({ month, logs: 0, events: 0, ai_queries: 0, ai_prompt_tokens: 0, ai_completion_tokens: 0 });

    const logs = await fixture.server.api.post('/v1/logs', {
      token: fixture.setup.secretKey,
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
    const events = await fixture.server.api.post('/v1/events', {
      token: fixture.setup.publicKey,
      body: { batch: [{ event: 'signup' }, { event: 'purchase' }, { properties: { no: 'name' } }] },
    });
    expect(events.body).toMatchObject({ accepted: 2, rejected: 1 });

    // Usage counters are written by the writer shortly after the 202.
    // The log dated 2020 was received this month and counts, as a bill counts what was taken in.
    await eventually(async () => expect((await readInfo()).usage).toEqual({ month, logs: 4, events: 2, ai_queries: 0, ai_prompt_tokens: 0, ai_completion_tokens: 0 }));
  });

  it('counts the non-deleted keys of the project', async () => {
    expect((await readInfo()).key_count).toBe(2);
    const extra = await createKey(fixture.server.api, fixture.setup.session, fixture.setup.project.id, { type: 'secret', scopes: ['data:read'] });
    expect((await readInfo(extra.key)).key_count).toBe(3);

    expect((await fixture.server.api.post(`${keysPath()}/${extra.id}/revoke`, { token: fixture.setup.session.token })).status).toBe(200);
    expect((await readInfo()).key_count).toBe(3);
    expect((await fixture.server.api.delete(`${keysPath()}/${extra.id}`, { token: fixture.setup.session.token })).status).toBe(200);
    expect((await readInfo()).key_count).toBe(2);
  });

  it('shows a plan change at once', async () => {
    expect((await readInfo()).organization.plan).toBe('free');
    await setPlan(fixture.server.api, fixture.setup.session, 'starter');
    const info = await readInfo();
    expect(info.organization.plan).toBe('starter');
    expect(info.organization.limits.max_api_keys).toBe(10);
  });

  it('refuses a public key with 403 FORBIDDEN', async () => {
    const reply = await fixture.server.api.get('/v1/info', { token: fixture.setup.publicKey });
    expect(reply.status).toBe(403);
    expect(reply.body.error.code).toBe('FORBIDDEN');
  });

  it('answers 401 UNAUTHORIZED for an unknown key', async () => {
    const reply = await fixture.server.api.get('/v1/info', { token: 'tlm_sk_us_' + 'B'.repeat(32) });
    expect(reply.status).toBe(401);
    expect(reply.body.error.code).toBe('UNAUTHORIZED');
  });
});
