import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createKey, eventually, gqlRows, setupProject, startTestServer, type TestServer } from '@tlm/testkit';
import { Client, ClientError, callerLocation, resolveEndpoint } from '../src';

let server: TestServer;
let setup: Awaited<ReturnType<typeof setupProject>>;
const clients: Client[] = [];

beforeAll(async () => {
  server = await startTestServer();
  setup = await setupProject(server.api, { allow_browser_logs: true });
});
afterAll(async () => {
  for (const client of clients) await client.close();
  await server.close();
});

const gql = (q: string) => gqlRows(server.api, setup.secretKey, q);
const client = (options: Partial<ConstructorParameters<typeof Client>[0]> = {}) => {
  const created = new Client({ apiKey: setup.secretKey, endpoint: server.url, ...options });
  clients.push(created);
  return created;
};

describe('logs and events', () => {
  it('sends a batch once it holds batch_size items, with the default context, its own fields and the caller', async () => {
    const logger = client({ batchSize: 3, flushInterval: 3600, defaultContext: { service: 'checkout', region: 'eu' }, distinctId: 'client-user' });
    logger.info('client batch 1', { order: 1 });
    logger.warn('client batch 2', { region: 'us' });
    logger.error('client batch 3');
    const rows = await eventually(async () => {
      const found = await gql('"client batch" | sort message asc | fields severity, message, properties');
      expect(found).toHaveLength(3);
      return found;
    });
    expect(rows.map((row) => [row['severity'], row['message']])).toEqual([
      ['info', 'client batch 1'],
      ['warn', 'client batch 2'],
      ['error', 'client batch 3'],
    ]);
    expect(rows[0]!['properties']).toMatchObject({
      service: 'checkout',
      region: 'eu',
      order: 1,
      $session_id: logger.sessionId,
      $distinct_id: 'client-user',
      $sdk_name: 'tlm.node',
      $sdk_version: '0.1.0',
      $os: process.platform,
      $runtime_version: process.version,
      code_location: expect.stringMatching(/client\.test\.ts:\d+$/),
    });
    expect(rows[1]!['properties']['region']).toBe('us');
  });

  it('flushes on the interval without a full batch, and sends events with the distinct id', async () => {
    const tracker = client({ flushInterval: 0.1, distinctId: 'interval-user' });
    tracker.info('client interval log');
    tracker.event('client signup', { plan: 'pro' });
    tracker.event('client signup', { plan: 'free' }, 'someone-else');
    await eventually(async () => expect(await gql('"client interval log" | count')).toEqual([{ value: 1 }]));
    const events = await eventually(async () => {
      const found = await gql("from:events event_name:'client signup' | sort distinct_id asc | fields distinct_id, properties");
      expect(found).toHaveLength(2);
      return found;
    });
    expect(events.map((row) => [row['distinct_id'], row['properties']['plan']])).toEqual([
      ['interval-user', 'pro'],
      ['someone-else', 'free'],
    ]);
  });

  it('sends logs, events and errors through the envelope with use_envelope, errors with release and environment', async () => {
    const enveloped = client({ useEnvelope: true, release: 'shop@9.1.0', environment: 'staging', distinctId: 'env-user' });
    enveloped.info('client envelope log');
    enveloped.event('client envelope event');
    enveloped.captureException(new TypeError('client envelope failure'));
    await enveloped.flush();
    expect(await gql('"client envelope log" | count')).toEqual([{ value: 1 }]);
    expect(await gql("from:events event_name:'client envelope event' | count")).toEqual([{ value: 1 }]);
    const [error] = await gql("from:errors type:TypeError | fields value, release, environment, frames");
    expect(error).toMatchObject({ value: 'client envelope failure', release: 'shop@9.1.0', environment: 'staging' });
    expect(error!['frames'].at(-1)).toMatchObject({ filename: expect.stringContaining('client.test.ts'), in_app: true });
    // Issue snapshots follow the answer by moments.
    await eventually(async () => expect(await gql('from:issues "client envelope failure" | count')).toEqual([{ value: 1 }]));
  });

  it('sends a captured exception as an error log holding the stack without the envelope', async () => {
    const plain = client();
    plain.captureException(new RangeError('client plain failure'));
    await plain.flush();
    const [row] = await gql('"client plain failure" | fields severity, message, properties');
    expect(row).toMatchObject({ severity: 'error', properties: expect.objectContaining({ 'exception.type': 'RangeError' }) });
    expect(row!['message']).toMatch(/^RangeError: client plain failure\n\s+at /);
  });

  it('sends nothing when disabled', async () => {
    const off = client({ disabled: true, batchSize: 1 });
    off.info('client disabled log');
    off.event('client disabled event');
    await off.flush();
    expect(await gql('"client disabled log" | count')).toEqual([{ value: 0 }]);
  });
});

describe('failures never reach the host', () => {
  let fake: http.Server;
  const answers: number[] = [];
  let requests = 0;
  beforeAll(async () => {
    fake = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        requests += 1;
        const status = answers.shift() ?? 202;
        res.writeHead(status, status === 429 ? { 'retry-after': '0' } : {});
        res.end(status === 202 ? '{"accepted":1,"rejected":0,"errors":[]}' : '{"error":{"code":"X","message":"x"}}');
      });
    });
    await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => new Promise((resolve) => fake.close(resolve)));
  beforeEach(() => {
    requests = 0;
    answers.length = 0;
  });
  const fakeUrl = () => `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;

  it('retries a rate-limited batch after Retry-After and a 5xx with backoff, then delivers it', async () => {
    answers.push(429, 503, 429);
    const errors: Error[] = [];
    const retrying = client({ endpoint: fakeUrl(), retryBaseMs: 5, onError: (error) => errors.push(error) });
    retrying.info('retried');
    await retrying.flush();
    expect(requests).toBe(4);
    expect(errors).toEqual([]);
  });

  it('gives up after max_retries and drops a refused batch at once, telling onError each time', async () => {
    answers.push(503, 503, 503, 400);
    const errors: Error[] = [];
    const failing = client({ endpoint: fakeUrl(), retryBaseMs: 1, maxRetries: 2, onError: (error) => errors.push(error) });
    failing.info('given up');
    await failing.flush();
    failing.info('refused');
    await failing.flush();
    expect(requests).toBe(4);
    expect(errors.map((error) => (error as ClientError).status)).toEqual([503, 400]);
  });

  it('reports and drops a batch it cannot serialise, and keeps sending the next ones', async () => {
    const errors: Error[] = [];
    const careless = client({ endpoint: fakeUrl(), onError: (error) => errors.push(error) });
    const circular: Record<string, unknown> = {};
    circular['self'] = circular;
    careless.info('circular', circular);
    await careless.flush();
    careless.info('fine');
    await careless.flush();
    expect(errors.map((error) => error.name)).toEqual(['TypeError']);
    expect(requests).toBe(1);
  });

  it('sends what is logged while closing before it closes', async () => {
    const closing = client({ endpoint: fakeUrl() });
    closing.info('first');
    const closed = closing.close();
    closing.info('logged while closing');
    await closed;
    expect(requests).toBe(2);
    closing.info('after close');
    await closing.flush();
    expect(requests).toBe(2);
  });

  it('swallows an unreachable endpoint', async () => {
    const errors: Error[] = [];
    const lost = client({ endpoint: 'http://127.0.0.1:9', retryBaseMs: 1, maxRetries: 1, onError: (error) => errors.push(error) });
    expect(() => lost.info('nowhere')).not.toThrow();
    await expect(lost.flush()).resolves.toBeUndefined();
    expect(errors).toHaveLength(1);
  });
});

describe('alert rules and SLOs', () => {
  it('creates, updates, mutes, lists and deletes an alert rule', async () => {
    const admin = client();
    const rule = await admin.alerts.create({ name: 'client errors', metric: 'from:logs severity:error | count', threshold: 10, window_minutes: 5, severity: 'critical' });
    expect(rule).toMatchObject({ name: 'client errors', severity: 'critical', enabled: true, muted_until: null });
    expect(await admin.alerts.update(rule['id'] as string, { threshold: 20, enabled: false })).toMatchObject({ threshold: 20, enabled: false });
    const muted = await admin.alerts.mute(rule['id'] as string, 30);
    expect(Date.parse(muted['muted_until'] as string)).toBeGreaterThan(Date.now() + 29 * 60_000);
    expect((await admin.alerts.list()).map((listed) => listed['id'])).toContain(rule['id']);
    await admin.alerts.delete(rule['id'] as string);
    await expect(admin.alerts.get(rule['id'] as string)).rejects.toMatchObject({ status: 404, code: 'NOT_FOUND' });
  });

  it('creates, lists, updates and deletes an SLO, and surfaces a refused one as a ClientError', async () => {
    const admin = client();
    const slo = await admin.slos.create({ name: 'client availability', target_percent: 99.5, good: 'from:logs severity:info | count', total: 'from:logs | count' });
    expect(slo).toMatchObject({ name: 'client availability', target_percent: 99.5 });
    expect((await admin.slos.list()).map((listed) => listed['name'])).toContain('client availability');
    expect(await admin.slos.update(slo['id'] as string, { target_percent: 99 })).toMatchObject({ target_percent: 99 });
    await admin.slos.delete(slo['id'] as string);
    await expect(admin.slos.create({ name: 'bad', target_percent: 150, good: 'from:logs | count', total: 'from:logs | count' })).rejects.toBeInstanceOf(ClientError);
    const reader = await createKey(server.api, setup.session, setup.project.id, { type: 'public' });
    await expect(new Client({ apiKey: reader.key, endpoint: server.url, disabled: true }).alerts.list()).rejects.toMatchObject({ status: 403, code: 'FORBIDDEN' });
  });
});

describe('conventions', () => {
  it("resolves the endpoint from the key's region", () => {
    expect(resolveEndpoint({ apiKey: `tlm_sk_eu_${'a'.repeat(32)}`, regionEndpoints: { eu: 'https://eu.example.com/', us: 'https://us.example.com' } })).toBe('https://eu.example.com');
    expect(resolveEndpoint({ apiKey: `tlm_sk_eu_${'a'.repeat(32)}`, endpoint: 'http://mine:8080', regionEndpoints: { eu: 'https://eu.example.com' } })).toBe('http://mine:8080');
  });

  it('names the first caller outside the library', () => {
    const stack = ['Error', '    at Client.log (/app/node_modules/@tlm/client/dist/index.js:10:5)', '    at checkout (/app/src/shop.ts:42:7)'].join('\n');
    expect(callerLocation(stack, '/app/node_modules/@tlm/client/dist/index.js')).toBe('checkout@/app/src/shop.ts:42');
  });
});
