import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { TEST_ADMIN_TOKEN, createKey, signup, startTestServer, type TestServer } from '@tlm/testkit';

/** PUT /admin/orgs/:org/plan: the operator sets an organization's plan; owners cannot. New organizations get DEFAULT_PLAN. */

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

async function storedPlan(orgId: string): Promise<string | undefined> {
  const [row] = await server.standalone.metadata.query<{ plan: string }>('select plan from organizations where id = $1', [orgId]);
  return row?.plan;
}

const setPlan = (orgId: string, body: unknown, token = TEST_ADMIN_TOKEN) => server.api.put(`/admin/orgs/${orgId}/plan`, { token, body });

describe('PUT /admin/orgs/:org/plan', () => {
  it('sets the plan, answers its limits, and the new limits hold at once', async () => {
    const owner = await signup(server.api);
    const reply = await setPlan(owner.organization.id, { plan: 'pro' });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ id: owner.organization.id, plan: 'pro', limits: { max_api_keys: 100, retention_days: 90 } });
    expect(await storedPlan(owner.organization.id)).toBe('pro');
    const project = await server.api.post(`/api/orgs/${owner.organization.id}/projects`, { token: owner.token, body: { name: 'p' } });
    // Free allows 5 keys; Pro allows 100.
    for (let n = 0; n < 6; n++) await createKey(server.api, owner, project.body.id, { type: 'secret' });
    const read = await server.api.get(`/api/orgs/${owner.organization.id}`, { token: owner.token });
    expect(read.body.plan).toBe('pro');
  });

  it.each([
    ['a wrong admin token', 'not-the-admin-token-at-all', 401, 'UNAUTHORIZED'],
    ['an owner\'s dashboard token', 'owner', 401, 'UNAUTHORIZED'],
  ])('refuses %s with 401 UNAUTHORIZED and changes nothing', async (_name, token, status, code) => {
    const owner = await signup(server.api);
    const reply = await setPlan(owner.organization.id, { plan: 'team' }, token === 'owner' ? owner.token : token);
    expect(reply.status).toBe(status);
    expect(reply.body.error.code).toBe(code);
    expect(await storedPlan(owner.organization.id)).toBe('free');
  });

  it.each([
    ['an unknown plan', { plan: 'enterprise' }],
    ['no plan', {}],
    ['another field', { plan: 'pro', name: 'x' }],
  ])('refuses %s with 400 VALIDATION_ERROR and changes nothing', async (_name, body) => {
    const owner = await signup(server.api);
    const reply = await setPlan(owner.organization.id, body);
    expect(reply.status).toBe(400);
    expect(reply.body.error.code).toBe('VALIDATION_ERROR');
    expect(await storedPlan(owner.organization.id)).toBe('free');
  });

  it.each(['00000000-0000-4000-8000-000000000000', 'not-an-id'])('answers 404 NOT_FOUND for the organization %s', async (orgId) => {
    const reply = await setPlan(orgId, { plan: 'pro' });
    expect(reply.status).toBe(404);
    expect(reply.body.error.code).toBe('NOT_FOUND');
  });

});

describe('tlm-admin set-plan', () => {
  const cli = path.resolve(__dirname, '../dist/cli.js');
  const run = (args: string[]) => promisify(execFile)(process.execPath, [cli, ...args], { env: { ...process.env, ADMIN_TOKEN: TEST_ADMIN_TOKEN } });

  it('sets the plan through the admin endpoint and prints the answer', async () => {
    const owner = await signup(server.api);
    const { stdout } = await run(['set-plan', owner.organization.id, 'team', '--url', server.url]);
    expect(JSON.parse(stdout)).toMatchObject({ id: owner.organization.id, plan: 'team' });
    expect(await storedPlan(owner.organization.id)).toBe('team');
  });

  it('exits 1 with the server\'s answer for an unknown plan, changing nothing', async () => {
    const owner = await signup(server.api);
    const failure = await run(['set-plan', owner.organization.id, 'enterprise', '--url', server.url]).catch((error: { code: number; stdout: string }) => error);
    expect((failure as { code: number }).code).toBe(1);
    expect(JSON.parse((failure as { stdout: string }).stdout).error.code).toBe('VALIDATION_ERROR');
    expect(await storedPlan(owner.organization.id)).toBe('free');
  });
});

describe('a server without ADMIN_TOKEN and with DEFAULT_PLAN starter', () => {
  let plain: TestServer;
  beforeAll(async () => {
    plain = await startTestServer({ ADMIN_TOKEN: '', DEFAULT_PLAN: 'starter' });
  });
  afterAll(() => plain.close());

  it('has the plan route disabled with 404 NOT_FOUND', async () => {
    const owner = await signup(plain.api);
    const reply = await plain.api.put(`/admin/orgs/${owner.organization.id}/plan`, { token: TEST_ADMIN_TOKEN, body: { plan: 'team' } });
    expect(reply.status).toBe(404);
    expect(reply.body.error.message).toBe('the admin endpoint is disabled: set ADMIN_TOKEN');
  });

  it('puts every new organization on the configured plan', async () => {
    const owner = await signup(plain.api);
    expect(owner.organization.plan).toBe('starter');
    const read = await plain.api.get(`/api/orgs/${owner.organization.id}`, { token: owner.token });
    expect(read.body.limits.max_api_keys).toBe(10);
  });
});
