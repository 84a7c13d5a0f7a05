import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { createKey, denseBodyRefusal, gqlRows, paddedGzip, serverWithProject } from '@tlm/testkit';
import { PostHog } from 'posthog-node';

const fixture = serverWithProject();

const gql = (q: string) => gqlRows(fixture.server.api, fixture.setup.secretKey, q);

/** A request as a PostHog client sends it: the key in the body, no Authorization header. */
const post = (path: string, body: string | Buffer, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
  fixture.server.api.post(path, { body, headers });

describe('PostHog-compatible capture with the unmodified posthog-node SDK', () => {
  it('stores captured and identify events through /batch/ (gzip), with distinct ids, properties and $set', async () => {
    const client = new PostHog(fixture.setup.publicKey, { host: fixture.server.url, flushAt: 1, flushInterval: 0 });
    client.capture({ distinctId: 'ph-user-1', event: 'ph node signup', properties: { plan: 'pro', seats: 3 } });
    client.capture({ distinctId: 'ph-user-2', event: 'ph node signup', properties: { plan: 'free' } });
    client.identify({ distinctId: 'ph-user-1', properties: { email: 'one@example.com' } });
    await client.shutdown();

    const rows = await gql("from:events event_name:'ph node signup' | sort distinct_id asc | fields distinct_id, properties");
    expect(rows.map((row) => [row['distinct_id'], row['properties']['plan']])).toEqual([
      ['ph-user-1', 'pro'],
      ['ph-user-2', 'free'],
    ]);
    expect(rows[0]!['properties']).toMatchObject({ seats: 3, $lib: 'posthog-node', distinct_id: 'ph-user-1' });
    expect(rows[0]!['properties']).not.toHaveProperty('token');
    const identified = await gql("from:events event_name:'$identify' distinct_id:ph-user-1 | fields properties");
    expect(identified).toHaveLength(1);
    expect(identified[0]!['properties']).toMatchObject({ '$set.email': 'one@example.com' });
  });
});

describe('PostHog capture bodies', () => {
  it("takes posthog-js's gzip-js arrays with the key in each event's properties.token, its offsets, and its v4/v7 uuids as row ids", async () => {
    const uuid = randomUUID();
    const events = [
      { event: '$pageview', uuid, offset: 60_000, properties: { token: fixture.setup.publicKey, distinct_id: 'js-anon-1', $current_url: 'https://shop.example/cart' } },
      { event: 'js clicked', uuid: '00000000-0000-0000-0000-000000000000', properties: { token: fixture.setup.publicKey, distinct_id: 'js-anon-1', button: 'buy' } },
    ];
    const reply = await post('/e/?compression=gzip-js&ver=1.200.0', gzipSync(JSON.stringify(events)), { 'content-type': 'text/plain' });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ status: 1, accepted: 2, rejected: 0, errors: [] });
    const rows = await gql("from:events distinct_id:js-anon-1 | sort event_name asc | fields id, event_name, timestamp, properties");
    expect(rows.map((row) => row['event_name'])).toEqual(['$pageview', 'js clicked']);
    // posthog-js's offset (ms before the request) dates the event; only a v4 or v7 uuid becomes the row id.
    expect(rows[0]).toMatchObject({ id: uuid, properties: { $current_url: 'https://shop.example/cart' } });
    expect(Date.now() - Date.parse(rows[0]!['timestamp'])).toBeGreaterThanOrEqual(60_000);
    expect(Date.now() - Date.parse(rows[0]!['timestamp'])).toBeLessThan(70_000);
    expect(rows[1]!['id']).not.toBe('00000000-0000-0000-0000-000000000000');
  });

  it('takes a base64 "data" form field (older posthog-js) and single events on /capture/ and /i/v0/e/', async () => {
    const form = new URLSearchParams({ data: Buffer.from(JSON.stringify({ api_key: fixture.setup.publicKey, event: 'form event', distinct_id: 'form-user' })).toString('base64') });
    const formReply = await post('/e/?compression=base64', form.toString(), { 'content-type': 'application/x-www-form-urlencoded' });
    expect(formReply.body).toMatchObject({ status: 1, accepted: 1 });
    for (const path of ['/capture/', '/i/v0/e/', '/capture']) {
      const reply = await post(path, JSON.stringify({ api_key: fixture.setup.publicKey, event: 'api event', properties: { distinct_id: `api-${path}`, via: path } }));
      expect([reply.status, reply.body]).toEqual([200, { status: 1, accepted: 1, rejected: 0, errors: [] }]);
    }
    expect(await gql("from:events event_name:'form event' | fields distinct_id")).toEqual([{ distinct_id: 'form-user' }]);
    expect((await gql("from:events event_name:'api event' | count"))[0]!['value']).toBe(3);
  });

  it('rejects a bad event with its reason and keeps its neighbours', async () => {
    const reply = await post('/batch/', JSON.stringify({ api_key: fixture.setup.publicKey, batch: [{ properties: { distinct_id: 'x' } }, { event: 'kept batch event', distinct_id: 'y' }] }));
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ status: 1, accepted: 1, rejected: 1, errors: [{ index: 0, message: 'event is required' }] });
    expect(await gql("from:events event_name:'kept batch event' | count")).toEqual([{ value: 1 }]);
  });

  it("moves event times by the SDK's clock skew that sent_at shows, as PostHog does", async () => {
    const skew = 2 * 86_400_000;
    const sent = Date.now() + skew;
    const reply = await post('/batch/', JSON.stringify({ api_key: fixture.setup.publicKey, sent_at: new Date(sent).toISOString(), batch: [{ event: 'skewed clock', distinct_id: 'z', timestamp: new Date(sent - 600_000).toISOString() }] }));
    expect(reply.body).toMatchObject({ accepted: 1, rejected: 0 });
    const [row] = await gql("from:events event_name:'skewed clock' | fields timestamp");
    // Ten minutes before it was sent, by the server's clock; two days ahead it would have been refused.
    expect(Math.abs(Date.parse(row!['timestamp'] as string) - (Date.now() - 600_000))).toBeLessThan(60_000);
  });

  it('rejects an event over 1 MiB and keeps its neighbours, as /v1/events does', async () => {
    const reply = await post('/batch/', JSON.stringify({ api_key: fixture.setup.publicKey, batch: [{ event: 'huge ph', distinct_id: 'h', properties: { blob: 'x'.repeat(1_500_000) } }, { event: 'small ph', distinct_id: 'h' }] }));
    expect(reply.body).toEqual({ status: 1, accepted: 1, rejected: 1, errors: [{ index: 0, message: 'item exceeds 1048576 bytes' }] });
    expect(await gql("from:events event_name:'huge ph' | count")).toEqual([{ value: 0 }]);
  });

  it('stores a property named __proto__ as a property', async () => {
    const reply = await post('/batch/', JSON.stringify({ api_key: fixture.setup.publicKey, batch: [{ event: 'proto ph', distinct_id: 'p', properties: { ['__proto__']: [7, 8], k: 1 } }] }));
    expect(reply.body).toMatchObject({ accepted: 1 });
    const [row] = await gql("from:events event_name:'proto ph' | fields properties");
    expect(row!['properties']).toMatchObject({ ['__proto__']: [7, 8], k: 1 });
    const schema = await fixture.server.api.get('/v1/schema', { token: fixture.setup.secretKey });
    expect(schema.body.event_properties.map((property: { key: string }) => property.key)).not.toContain('0');
  });

  it('answers a CORS preflight', async () => {
    const reply = await fetch(`${fixture.server.url}/e/`, { method: 'OPTIONS', headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST' } });
    expect(reply.status).toBe(204);
    expect(reply.headers.get('access-control-allow-origin')).toBe('https://shop.example');
  });

  it.each([
    ['no key anywhere: 401 UNAUTHORIZED', () => JSON.stringify({ event: 'e', distinct_id: 'u' }), 401, 'UNAUTHORIZED'],
    ['an unknown key: 401 UNAUTHORIZED', () => JSON.stringify({ api_key: 'tlm_pk_us_' + 'x'.repeat(32), event: 'e', distinct_id: 'u' }), 401, 'UNAUTHORIZED'],
    ['a body that is not JSON: 400 VALIDATION_ERROR', () => 'not json', 400, 'VALIDATION_ERROR'],
    ['JSON of another shape: 400 VALIDATION_ERROR', () => JSON.stringify({ api_key: fixture.setup.publicKey, hello: 'world' }), 400, 'VALIDATION_ERROR'],
    ['501 events: 400 VALIDATION_ERROR', () => JSON.stringify({ api_key: fixture.setup.publicKey, batch: Array.from({ length: 501 }, () => ({ event: 'e', distinct_id: 'u' })) }), 400, 'VALIDATION_ERROR'],
  ])('answers %s with the status and code it names', async (_name, body, status, code) => {
    const reply = await post('/batch/', body());
    expect(reply.status).toBe(status);
    expect(reply.body.error.code).toBe(code);
  });

  /** An event whose properties hold 100,000 `{}`: about 300 KB of JSON that gzips to a few hundred bytes. */
  const denseEvent = (distinctId: string) => ({
    event: 'dense capture',
    distinct_id: distinctId,
    properties: { token: fixture.setup.publicKey, items: Array.from({ length: 100_000 }, () => ({})) },
  });
  const denseDoors: { how: string; path: string; headers: Record<string, string>; payload: () => unknown; distinctId: string }[] = [
    {
      how: 'Content-Encoding: gzip on /batch/',
      path: '/batch/',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      payload: () => ({ api_key: fixture.setup.publicKey, batch: [denseEvent('dense-batch')] }),
      distinctId: 'dense-batch',
    },
    {
      how: 'compression=gzip-js on /e/',
      path: '/e/?compression=gzip-js&ver=1.200.0',
      headers: { 'content-type': 'text/plain' },
      payload: () => [denseEvent('dense-gzip-js')],
      distinctId: 'dense-gzip-js',
    },
  ];
  it("refuses gzip-js inside a Content-Encoding by the request's bytes received, however long the inner gzip's padding", async () => {
    const padded = paddedGzip(JSON.stringify([denseEvent('dense-two-layers')]), 60_000);
    const body = gzipSync(padded);
    const reply = await post('/e/?compression=gzip-js', body, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
    expect([reply.status, reply.body]).toEqual([400, { error: { code: 'VALIDATION_ERROR', message: denseBodyRefusal(body.length) } }]);
    expect(await gql('from:events distinct_id:dense-two-layers | count')).toEqual([{ value: 0 }]);
  });

  it.each(denseDoors)('refuses a body sent with $how that inflates to more JSON objects and arrays than 32 per byte received with 400 VALIDATION_ERROR', async ({ path, headers, payload, distinctId }) => {
    const compressed = gzipSync(JSON.stringify(payload()));
    const reply = await post(path, compressed, headers);
    expect([reply.status, reply.body]).toEqual([400, { error: { code: 'VALIDATION_ERROR', message: denseBodyRefusal(compressed.length) } }]);
    expect(await gql(`from:events distinct_id:${distinctId} | count`)).toEqual([{ value: 0 }]);
  });

  it('answers 400 for gzip-js that is not gzip and 403 FORBIDDEN for a key without ingest:write', async () => {
    const garbage = await post('/e/?compression=gzip-js', Buffer.from('not gzip'), { 'content-type': 'text/plain' });
    expect([garbage.status, garbage.body.error]).toEqual([400, { code: 'VALIDATION_ERROR', message: 'the body is not valid gzip' }]);
    const reader = await createKey(fixture.server.api, fixture.setup.session, fixture.setup.project.id, { type: 'secret', scopes: ['data:read'] });
    const reply = await post('/batch/', JSON.stringify({ api_key: reader.key, batch: [{ event: 'e', distinct_id: 'u' }] }));
    expect([reply.status, reply.body.error.code]).toEqual([403, 'FORBIDDEN']);
  });
});
