import { gzipSync } from 'node:zlib';
import { createKey, gqlRows, serverWithProject } from '@tlm/testkit';
import { PostHog } from 'posthog-node';

const fixture = serverWithProject();

const gql = (q: string) => gqlRows(fixture.server.api, fixture.setup.secretKey, q);
const keysPath = () => `/api/orgs/${fixture.setup.session.organization.id}/projects/${fixture.setup.project.id}/keys`;
const ORIGIN = { origin: 'http://shop.example' };

/** A flags request as posthog-js sends it by default: the body as base64 JSON in a `data=` form field. */
const flagsForm = (body: object, path = '/flags/?v=2&compression=base64') =>
  fixture.server.api.post(path, {
    body: new URLSearchParams({ data: Buffer.from(JSON.stringify(body)).toString('base64') }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...ORIGIN },
  });

let revoked: string | undefined;

/** One revoked public key of the project, made on first use (the free plan allows five keys). */
async function revokedKey(): Promise<string> {
  if (revoked) return revoked;
  const { server, setup } = fixture;
  const key = await createKey(server.api, setup.session, setup.project.id, { type: 'public' });
  expect((await server.api.post(`${keysPath()}/${key.id}/revoke`, { token: setup.session.token })).status).toBe(200);
  revoked = key.key;
  return revoked;
}

describe('PostHog feature flags: /flags and /decide', () => {
  it("answers posthog-js's base64 /flags/?v=2 with an empty v2 flags answer and CORS", async () => {
    const reply = await flagsForm({ token: fixture.setup.publicKey, distinct_id: 'flags-user', person_properties: { $lib: 'web' } });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('access-control-allow-origin')).toBe('http://shop.example');
    expect(reply.body).toEqual({ flags: {}, errorsWhileComputingFlags: false, requestId: expect.stringMatching(/^[0-9a-f-]{36}$/), evaluatedAt: expect.any(Number) });
    expect(Math.abs(reply.body.evaluatedAt - Date.now())).toBeLessThan(10_000);
  });

  it('takes gzip-js and JSON bodies, and answers the legacy shape to /flags without v and /decide/?v=3 with the config', async () => {
    const body = JSON.stringify({ api_key: fixture.setup.publicKey, distinct_id: 'flags-user' });
    const gzipped = await fixture.server.api.post('/flags/?v=2&compression=gzip-js', { body: gzipSync(body), headers: { 'content-type': 'text/plain' } });
    expect([gzipped.status, gzipped.body.flags]).toEqual([200, {}]);
    const legacy = await fixture.server.api.post('/flags/', { body, headers: { 'content-type': 'application/json' } });
    expect(legacy.body).toMatchObject({ featureFlags: {}, featureFlagPayloads: {}, errorsWhileComputingFlags: false });
    expect(legacy.body).not.toHaveProperty('flags');
    const decide = await fixture.server.api.post('/decide/?v=3', { body, headers: { 'content-type': 'application/json' } });
    expect(decide.body).toMatchObject({ featureFlags: {}, featureFlagPayloads: {}, supportedCompression: ['gzip', 'gzip-js'], sessionRecording: false });
    const decide4 = await fixture.server.api.post('/decide?v=4', { body, headers: { 'content-type': 'application/json' } });
    expect(decide4.body).toMatchObject({ flags: {}, hasFeatureFlags: false });
    const withConfig = await fixture.server.api.post('/flags/?v=2&config=true', { body, headers: { 'content-type': 'application/json' } });
    expect(withConfig.body).toMatchObject({ flags: {}, analytics: { endpoint: '/i/v0/e/' } });
  });

  it('gives the unmodified posthog-node an empty set of flags from /flags', async () => {
    const client = new PostHog(fixture.setup.publicKey, { host: fixture.server.url, flushAt: 1, flushInterval: 0 });
    try {
      expect(await client.getAllFlags('node-flags-user')).toEqual({});
      // A flag the project does not have is undefined, as PostHog answers for an unknown flag key.
      expect(await client.getFeatureFlag('new-checkout', 'node-flags-user')).toBeUndefined();
    } finally {
      await client.shutdown();
    }
  });

  it('answers a CORS preflight on /flags/', async () => {
    const reply = await fixture.server.api.request('OPTIONS', '/flags/?v=2', { headers: { ...ORIGIN, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' } });
    expect(reply.status).toBe(204);
    expect(reply.headers.get('access-control-allow-origin')).toBe('http://shop.example');
    expect(reply.headers.get('access-control-allow-methods')).toContain('POST');
  });

  it('answers 401 UNAUTHORIZED with CORS to an unknown key, a revoked key and no key, and stores nothing', async () => {
    const unknown = await flagsForm({ token: 'tlm_pk_us_00000000000000000000000000000000', distinct_id: 'refused-flags' });
    expect([unknown.status, unknown.body.error]).toEqual([401, { code: 'UNAUTHORIZED', message: 'invalid, revoked or deleted key' }]);
    expect(unknown.headers.get('access-control-allow-origin')).toBe('http://shop.example');
    const revoked = await flagsForm({ token: await revokedKey(), distinct_id: 'refused-flags' }, '/decide/?v=3');
    expect([revoked.status, revoked.body.error.code]).toEqual([401, 'UNAUTHORIZED']);
    const missing = await flagsForm({ distinct_id: 'refused-flags' });
    expect([missing.status, missing.body.error]).toEqual([
      401,
      { code: 'UNAUTHORIZED', message: 'missing key: send the project key as "token" or "api_key" in the body' },
    ]);
    expect(await gql('from:events distinct_id:refused-flags | count')).toEqual([{ value: 0 }]);
  });

  it('answers 400 VALIDATION_ERROR to a body that is not a JSON object and 403 FORBIDDEN to a key without ingest:write', async () => {
    const array = await fixture.server.api.post('/flags/?v=2', { body: '[1]', headers: { 'content-type': 'application/json' } });
    expect([array.status, array.body.error]).toEqual([400, { code: 'VALIDATION_ERROR', message: 'a flags request body must be a JSON object' }]);
    const reader = await createKey(fixture.server.api, fixture.setup.session, fixture.setup.project.id, { type: 'secret', scopes: ['data:read'] });
    const forbidden = await fixture.server.api.post('/flags/?v=2', { body: { token: reader.key, distinct_id: 'u' } });
    expect([forbidden.status, forbidden.body.error.code]).toEqual([403, 'FORBIDDEN']);
  });
});

describe('PostHog remote config: /array/<key>/config and config.js', () => {
  it('answers the config as JSON with CORS, and config.js as a script that leaves it for posthog-js', async () => {
    const key = fixture.setup.publicKey;
    const json = await fixture.server.api.get(`/array/${key}/config`, { headers: ORIGIN });
    expect(json.status).toBe(200);
    expect(json.headers.get('access-control-allow-origin')).toBe('http://shop.example');
    expect(json.body).toMatchObject({ token: key, supportedCompression: ['gzip', 'gzip-js'], hasFeatureFlags: false, sessionRecording: false, siteApps: [] });
    expect(json.body).not.toHaveProperty('surveys');

    const script = await fixture.server.api.get(`/array/${key}/config.js`, { headers: ORIGIN });
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/^application\/javascript/);
    expect(script.headers.get('access-control-allow-origin')).toBe('http://shop.example');
    const window: { _POSTHOG_REMOTE_CONFIG?: Record<string, { config: unknown; siteApps: unknown[] }> } = {};
    new Function('window', script.text)(window);
    expect(window._POSTHOG_REMOTE_CONFIG?.[key]).toEqual({ config: json.body, siteApps: [] });
  });

  it('answers 401 UNAUTHORIZED with CORS to an unknown or revoked key in the path, and stores nothing', async () => {
    const before = await gql('from:events | count');
    for (const path of ['config', 'config.js']) {
      const unknown = await fixture.server.api.get(`/array/tlm_pk_us_00000000000000000000000000000000/${path}`, { headers: ORIGIN });
      expect([unknown.status, unknown.body.error]).toEqual([401, { code: 'UNAUTHORIZED', message: 'invalid, revoked or deleted key' }]);
      expect(unknown.headers.get('access-control-allow-origin')).toBe('http://shop.example');
      const revoked = await fixture.server.api.get(`/array/${await revokedKey()}/${path}`, { headers: ORIGIN });
      expect([revoked.status, revoked.body.error.code]).toEqual([401, 'UNAUTHORIZED']);
    }
    expect(await gql('from:events | count')).toEqual(before);
  });
});

describe('paths no route serves', () => {
  it('answer 404 NOT_FOUND readable from any origin, so a browser sees the status and not a CORS error', async () => {
    for (const [method, path] of [
      ['GET', '/static/recorder.js'],
      ['POST', '/s/'],
      ['GET', '/array/x/array.js'],
    ] as const) {
      const reply = await fixture.server.api.request(method, path, { headers: ORIGIN, body: method === 'POST' ? 'x' : undefined });
      expect([reply.status, reply.body.error.code]).toEqual([404, 'NOT_FOUND']);
      expect(reply.headers.get('access-control-allow-origin')).toBe('*');
    }
  });
});
