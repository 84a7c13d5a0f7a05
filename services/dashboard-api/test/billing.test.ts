import { createHmac } from 'node:crypto';
import { signup, startTestServer, type TestServer } from '@tlm/testkit';

/** POST /api/billing/webhook: a billing provider, signing with BILLING_WEBHOOK_SECRET, sets an organization's plan. */

const SECRET = 'billing-webhook-secret-0123456789abcdef';
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ BILLING_WEBHOOK_SECRET: SECRET });
});
afterAll(() => server.close());

const now = () => Math.floor(Date.now() / 1000);
const sign = (body: string, at = now(), secret = SECRET) => `t=${at},v1=${createHmac('sha256', secret).update(`${at}.${body}`).digest('hex')}`;
const send = (body: string, signature?: string) =>
  server.api.post('/api/billing/webhook', { body, headers: { 'content-type': 'application/json', ...(signature ? { 'x-tlm-signature': signature } : {}) } });

async function storedPlan(orgId: string): Promise<string | undefined> {
  const [row] = await server.standalone.metadata.query<{ plan: string }>('select plan from organizations where id = $1', [orgId]);
  return row?.plan;
}

it('sets the plan named by a signed event, ignoring the fields it does not know', async () => {
  const owner = await signup(server.api);
  const body = JSON.stringify({ organization_id: owner.organization.id, plan: 'pro', customer: 'cus_123' });
  const reply = await send(body, sign(body));
  expect(reply.status).toBe(200);
  expect(reply.body).toMatchObject({ id: owner.organization.id, plan: 'pro', limits: { maxApiKeys: 100 } });
  expect(await storedPlan(owner.organization.id)).toBe('pro');
});

describe('refusals, which change nothing', () => {
  let orgId: string;
  let body: string;
  beforeAll(async () => {
    orgId = (await signup(server.api)).organization.id;
    body = JSON.stringify({ organization_id: orgId, plan: 'team' });
  });
  afterEach(async () => expect(await storedPlan(orgId)).toBe('free'));

  it.each([
    ['no signature', () => undefined, 'missing or malformed X-TLM-Signature: send t=<unix seconds>,v1=<hex HMAC-SHA256>'],
    ['a malformed signature', () => 'v1=abc', 'missing or malformed X-TLM-Signature: send t=<unix seconds>,v1=<hex HMAC-SHA256>'],
    ['a signature by another secret', () => sign(body, now(), 'another-secret-of-at-least-32-chars!!'), 'invalid signature'],
    ['a signature of another body', () => sign(body.replace('team', 'pro')), 'invalid signature'],
    ['a signature ten minutes old', () => sign(body, now() - 600), 'the signature is more than 5 minutes away from the server time'],
  ])('answers %s with 401 UNAUTHORIZED', async (_name, signature, message) => {
    const reply = await send(body, signature());
    expect(reply.status).toBe(401);
    expect(reply.body.error).toEqual({ code: 'UNAUTHORIZED', message });
  });

  it.each([
    ['a body that is not JSON', () => 'plan=team'],
    ['an unknown plan', () => JSON.stringify({ organization_id: orgId, plan: 'enterprise' })],
    ['no organization', () => JSON.stringify({ plan: 'team' })],
  ])('answers a signed event with %s with 400 VALIDATION_ERROR', async (_name, text) => {
    const reply = await send(text(), sign(text()));
    expect(reply.status).toBe(400);
    expect(reply.body.error.code).toBe('VALIDATION_ERROR');
  });

  it('answers a signed event for an unknown organization with 404 NOT_FOUND', async () => {
    const unknown = JSON.stringify({ organization_id: '00000000-0000-4000-8000-000000000000', plan: 'team' });
    const reply = await send(unknown, sign(unknown));
    expect(reply.status).toBe(404);
    expect(reply.body.error.code).toBe('NOT_FOUND');
  });
});

it('is disabled with 404 NOT_FOUND on a server without BILLING_WEBHOOK_SECRET', async () => {
  const plain = await startTestServer();
  try {
    const owner = await signup(plain.api);
    const body = JSON.stringify({ organization_id: owner.organization.id, plan: 'team' });
    const reply = await plain.api.post('/api/billing/webhook', { body, headers: { 'x-tlm-signature': sign(body) } });
    expect(reply.status).toBe(404);
    expect(reply.body.error.message).toBe('billing webhooks are disabled: set BILLING_WEBHOOK_SECRET');
  } finally {
    await plain.close();
  }
});
