import { gzipSync } from 'node:zlib';
import { hashApiKey } from '@tlm/auth';
import { newId } from '@tlm/core';
import { insertApiKey } from '@tlm/metadata-store';
import { createKey, createProject, setupProject, signup, startTestServer, type TestServer } from '@tlm/testkit';

let eu: TestServer;
let us: TestServer;
let isolated: TestServer;

beforeAll(async () => {
  eu = await startTestServer({ REGION: 'eu' });
  us = await startTestServer({ REGION: 'us', REGION_URLS: `eu=${eu.url}` });
  isolated = await startTestServer({ REGION: 'us' });
});
afterAll(async () => {
  await Promise.all([us.close(), isolated.close()]);
  await eu.close();
});

const log = (message: string) => ({ batch: [{ severity: 'info', message }] });

async function stored(server: TestServer, message: string): Promise<number> {
  const rows = await server.standalone.analytics.query('SELECT count(*) AS n FROM logs WHERE message = $m', { m: message });
  return rows[0]!['n'] as number;
}

describe('keys of another region', () => {
  it('are relayed to the gateway of their region, whose answer comes back, and the data is stored only there', async () => {
    const session = await signup(eu.api);
    const project = await createProject(eu.api, session);
    const key = await createKey(eu.api, session, project.id, { type: 'secret' });
    expect(key.key).toMatch(/^tlm_sk_eu_[0-9A-Za-z]{32}$/);

    const reply = await us.api.post('/v1/logs', { token: key.key, body: log('sent to us, stored in eu') });
    expect(reply.status).toBe(202);
    expect(reply.body).toEqual({ accepted: 1, rejected: 0, errors: [] });
    expect(await stored(eu, 'sent to us, stored in eu')).toBe(1);
    expect(await stored(us, 'sent to us, stored in eu')).toBe(0);

    const refused = await us.api.post('/v1/logs', { token: key.key, body: { batch: 'nope' } });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('VALIDATION_ERROR');
  });

  it('relays PostHog capture, whose key is in the body, to its region with the body as sent (gzip-js too)', async () => {
    const session = await signup(eu.api);
    const project = await createProject(eu.api, session);
    const key = await createKey(eu.api, session, project.id, { type: 'public' });
    const events = [{ event: 'relayed posthog event', properties: { token: key.key, distinct_id: 'eu-user' } }];
    const reply = await us.api.post('/e/?compression=gzip-js', { body: gzipSync(JSON.stringify(events)), headers: { 'content-type': 'text/plain' } });
    expect([reply.status, reply.body]).toEqual([200, { status: 1, accepted: 1, rejected: 0, errors: [] }]);
    const count = async (server: TestServer) =>
      (await server.standalone.analytics.query("SELECT count(*) AS n FROM events WHERE event_name = 'relayed posthog event'"))[0]!['n'];
    expect([await count(eu), await count(us)]).toEqual([1, 0]);
    const lost = await isolated.api.post('/batch/', { body: JSON.stringify({ api_key: `tlm_pk_ap_${'a'.repeat(32)}`, batch: [] }), headers: { 'content-type': 'application/json' } });
    expect([lost.status, lost.body.error.code]).toEqual([421, 'WRONG_REGION']);
    const unreachable = await startTestServer({ REGION: 'us', REGION_URLS: 'eu=http://127.0.0.1:9' });
    try {
      const failed = await unreachable.api.post('/batch/', { body: JSON.stringify({ api_key: key.key, batch: [{ event: 'e', distinct_id: 'u' }] }), headers: { 'content-type': 'application/json' } });
      expect([failed.status, failed.body.error]).toEqual([502, { code: 'INTERNAL_ERROR', message: 'the eu region did not answer' }]);
    } finally {
      await unreachable.close();
    }
  });

  it('answer 421 WRONG_REGION with the region when no URL is configured for it', async () => {
    const reply = await isolated.api.post('/v1/logs', { token: `tlm_sk_ap_${'a'.repeat(32)}`, body: log('lost in ap') });
    expect(reply.status).toBe(421);
    expect(reply.body.error).toMatchObject({ code: 'WRONG_REGION', details: { region: 'ap' } });
  });
});

describe('legacy keys without a region segment', () => {
  it("belong to the deployment's own region", async () => {
    const setup = await setupProject(isolated.api);
    const legacy = `tlm_sk_${'L'.repeat(24)}${Date.now()}`;
    await insertApiKey(isolated.standalone.metadata, {
      id: newId(),
      projectId: setup.project.id,
      orgId: setup.session.organization.id,
      name: 'legacy',
      type: 'secret',
      scopes: ['*'],
      prefix: legacy.slice(0, 12),
      keyHash: hashApiKey(legacy),
      region: 'us',
    });
    const reply = await isolated.api.post('/v1/logs', { token: legacy, body: log('from a legacy key') });
    expect(reply.status).toBe(202);
    expect(await stored(isolated, 'from a legacy key')).toBe(1);
  });
});
