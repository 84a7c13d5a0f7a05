import { execFile } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createKey, eventually, gqlRows, setupProject, startTestServer, type TestServer } from '@tlm/testkit';
import { Client, ClientError, callerLocation, parseTraceparent, resolveEndpoint, type ClientOptions } from '../src';

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

  it('sends release and environment with a captured exception without the envelope, for the log scanner to read', async () => {
    const plain = client({ release: 'shop@2.0.0', environment: 'production' });
    plain.captureException(new RangeError('client released failure'));
    await plain.flush();
    const [row] = await gql('"client released failure" | fields properties');
    expect(row!['properties']).toMatchObject({ release: 'shop@2.0.0', environment: 'production' });
  });

  it("gives an event's $distinct_id the event's own distinct id", async () => {
    const tracker = client({ distinctId: 'client-own' });
    tracker.event('client other person', {}, 'other-person');
    await tracker.flush();
    const [row] = await gql("from:events event_name:'client other person' | fields distinct_id, properties");
    expect(row).toMatchObject({ distinct_id: 'other-person', properties: expect.objectContaining({ $distinct_id: 'other-person' }) });
  });

  it('sends a full batch of the largest logs in requests within the 2 MB limit, losing none', async () => {
    const errors: Error[] = [];
    const big = client({ batchSize: 50, flushInterval: 3600, onError: (error) => errors.push(error) });
    for (let n = 0; n < 50; n++) big.info(`client big ${n} ${'x'.repeat(60_000)}`);
    await big.flush();
    expect(errors).toEqual([]);
    expect(await gql('"client big" | count')).toEqual([{ value: 50 }]);
  });

  it('tells onError about the items the service rejects one by one, and keeps their neighbours', async () => {
    const errors: Error[] = [];
    const careless = client({ flushInterval: 3600, onError: (error) => errors.push(error) });
    careless.info(`client oversized ${'x'.repeat(70_000)}`);
    careless.info('client kept beside an oversized log');
    await careless.flush();
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(ClientError);
    expect(errors[0]).toMatchObject({ status: 202, code: 'ITEMS_REJECTED' });
    expect(errors[0]!.message).toBe('/v1/logs rejected 1 item(s): item 0: message exceeds 65536 bytes');
    expect(await gql('"client kept beside an oversized log" | count')).toEqual([{ value: 1 }]);
  });

  it('sends nothing when disabled', async () => {
    const off = client({ disabled: true, batchSize: 1 });
    off.info('client disabled log');
    off.event('client disabled event');
    await off.flush();
    expect(await gql('"client disabled log" | count')).toEqual([{ value: 0 }]);
  });
});

describe('traces and web vitals', () => {
  it('sends spans with op, attributes, events and parents through the envelope; logs and errors inside join the trace', async () => {
    const tracer = client({ useEnvelope: true, release: 'shop@3.0.0', environment: 'staging' });
    let traceId = '';
    await tracer.trace({ name: 'POST /checkout', op: 'http.server', attributes: { route: '/checkout' } }, async (root) => {
      traceId = root.traceId;
      root.addEvent('cart loaded', { items: 3 });
      await tracer.trace({ name: 'SELECT orders', op: 'db.query' }, async (child) => {
        child.setAttribute('rows', 7);
      });
      tracer.info('client traced log');
      tracer.captureException(new TypeError('client traced failure'));
    });
    await tracer.flush();
    // Both may start in one millisecond: ordered by name, the root ('POST …') comes first.
    const spans = await gql(`from:spans trace_id:${traceId} | sort name asc | fields name, op, status, span_id, parent_span_id, release, environment, events, attributes`);
    expect(spans.map((span) => [span['name'], span['op'], span['status']])).toEqual([
      ['POST /checkout', 'http.server', 'ok'],
      ['SELECT orders', 'db.query', 'ok'],
    ]);
    expect(spans[0]).toMatchObject({ parent_span_id: null, release: 'shop@3.0.0', environment: 'staging', attributes: expect.objectContaining({ route: '/checkout' }) });
    expect(spans[0]!['events']).toEqual([{ name: 'cart loaded', timestamp: expect.any(String), attributes: { items: 3 } }]);
    expect(spans[1]).toMatchObject({ parent_span_id: spans[0]!['span_id'], attributes: expect.objectContaining({ rows: 7 }) });
    expect(await gql(`"client traced log" | fields trace_id`)).toEqual([{ trace_id: traceId }]);
    expect(await gql(`from:errors "client traced failure" | fields trace_id`)).toEqual([{ trace_id: traceId }]);
  });

  it('ends a span whose block threw with status error and an exception event, and passes the error on', async () => {
    const tracer = client({ useEnvelope: true });
    let traceId = '';
    await expect(
      tracer.trace({ name: 'client failing block', op: 'task' }, async (span) => {
        traceId = span.traceId;
        throw new RangeError('block failed');
      }),
    ).rejects.toThrow('block failed');
    expect(() => tracer.trace({ name: 'client failing sync block' }, () => {
      throw new Error('sync failure');
    })).toThrow('sync failure');
    await tracer.flush();
    const [span] = await gql(`from:spans trace_id:${traceId} | fields status, events`);
    expect(span).toMatchObject({ status: 'error', events: [expect.objectContaining({ name: 'exception', attributes: { 'exception.type': 'RangeError', 'exception.message': 'block failed' } })] });
    expect(await gql(`from:spans name:'client failing sync block' | fields status`)).toEqual([{ status: 'error' }]);
  });

  it("continues another service's trace from its traceparent, and gives its own for outgoing calls", async () => {
    const tracer = client({ useEnvelope: true });
    const incoming = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    let outgoing: string | undefined;
    tracer.trace({ name: 'client continued', traceparent: incoming }, (span) => {
      outgoing = tracer.traceparent();
      expect(outgoing).toBe(`00-0af7651916cd43dd8448eb211c80319c-${span.spanId}-01`);
    });
    expect(tracer.traceparent()).toBeUndefined();
    await tracer.flush();
    expect(await gql(`from:spans name:'client continued' | fields trace_id, parent_span_id`)).toEqual([
      { trace_id: '0af7651916cd43dd8448eb211c80319c', parent_span_id: 'b7ad6b7169203331' },
    ]);
    expect(parseTraceparent('ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01')).toBeUndefined();
    expect(parseTraceparent('00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01')).toBeUndefined();
  });

  it('sends web vitals, rated by the server', async () => {
    const browserish = client({ useEnvelope: true });
    browserish.vital('lcp', 3_000, '/client-vitals');
    browserish.vital('cls', 0.05, '/client-vitals');
    await browserish.flush();
    expect(await gql("from:vitals route:/client-vitals | sort name asc | fields name, value, rating")).toEqual([
      { name: 'cls', value: 0.05, rating: 'good' },
      { name: 'lcp', value: 3_000, rating: 'needs-improvement' },
    ]);
  });

  it('reports spans and vitals made without the envelope instead of sending them', async () => {
    const errors: Error[] = [];
    const plain = client({ onError: (error) => errors.push(error) });
    plain.trace({ name: 'client unsent span' }, () => undefined);
    plain.vital('lcp', 1_000, '/client-unsent');
    await plain.flush();
    expect(errors.map((error) => error.message)).toEqual(['2 spans or web vitals dropped: they are sent only with useEnvelope']);
    expect(await gql("from:spans name:'client unsent span' | count")).toEqual([{ value: 0 }]);
  });
});

describe('failures never reach the host', () => {
  let fake: http.Server;
  const answers: number[] = [];
  let requests = 0;
  /** What 429 answers (and 503 answers, when not '0') say in Retry-After. */
  let retryAfterSeconds = '0';
  beforeAll(async () => {
    fake = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        requests += 1;
        const status = answers.shift() ?? 202;
        res.writeHead(status, status === 429 ? { 'retry-after': retryAfterSeconds } : status === 503 && retryAfterSeconds !== '0' ? { 'retry-after': retryAfterSeconds } : {});
        res.end(status === 202 ? '{"accepted":1,"rejected":0,"errors":[]}' : '{"error":{"code":"X","message":"x"}}');
      });
    });
    await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => new Promise((resolve) => fake.close(resolve)));
  beforeEach(() => {
    requests = 0;
    answers.length = 0;
    retryAfterSeconds = '0';
  });
  const fakeUrl = () => `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;

  /** When each request of `run` left, from a wrapper around fetch for its duration. */
  async function attemptTimes(run: () => Promise<void>): Promise<number[]> {
    const times: number[] = [];
    const original = globalThis.fetch;
    globalThis.fetch = ((...args: Parameters<typeof fetch>) => {
      times.push(Date.now());
      return original(...args);
    }) as typeof fetch;
    try {
      await run();
    } finally {
      globalThis.fetch = original;
    }
    return times;
  }

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

  it('never throws on values it cannot read, and drops only the item that holds them', async () => {
    const errors: Error[] = [];
    const careless = client({ endpoint: fakeUrl(), onError: (error) => errors.push(error) });
    const hostile = {
      get boom(): never {
        throw new Error('getter failed');
      },
    };
    expect(() => careless.captureException(Object.create(null))).not.toThrow();
    expect(() => careless.info('getter', hostile)).not.toThrow();
    expect(() => careless.info('bigint', { n: 10n })).not.toThrow();
    careless.info('fine');
    careless.event('fine too');
    await careless.flush();
    expect(errors.map((error) => error.message)).toEqual(['getter failed', 'Do not know how to serialize a BigInt']);
    // The null-prototype value became an error log; the fine log and event went in their own requests.
    expect(requests).toBe(2);
  });

  it('backs off exponentially on 429 when Retry-After asks for less', async () => {
    answers.push(429, 429, 429);
    const paced = client({ endpoint: fakeUrl(), retryBaseMs: 40 });
    const times = await attemptTimes(async () => {
      paced.info('paced');
      await paced.flush();
    });
    expect(requests).toBe(4);
    const gaps = times.slice(1).map((time, index) => time - times[index]!);
    // The fake answers Retry-After: 0; the waits still double from retryBaseMs (timers never fire early by more than a tick).
    expect(gaps[0]).toBeGreaterThanOrEqual(38);
    expect(gaps[1]).toBeGreaterThanOrEqual(78);
    expect(gaps[2]).toBeGreaterThanOrEqual(158);
  });

  it('gives up on a request that does not answer within requestTimeoutMs', async () => {
    const silent = http.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const errors: Error[] = [];
      const waiting = client({ endpoint: `http://127.0.0.1:${(silent.address() as AddressInfo).port}`, requestTimeoutMs: 100, maxRetries: 0, onError: (error) => errors.push(error) });
      waiting.info('never answered');
      await waiting.flush();
      expect(errors.map((error) => error.name)).toEqual(['TimeoutError']);
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('sends what is queued when a script runs out of work and exits, without close()', async () => {
    const script = `const { Client } = require(${JSON.stringify(require.resolve('../dist/index.js'))});
      new Client({ apiKey: 'tlm_sk_us_x', endpoint: ${JSON.stringify(fakeUrl())} }).info('last words');`;
    const exited = await new Promise<number | null>((resolve) => execFile(process.execPath, ['-e', script], (error) => resolve(error ? (error.code as number) : 0)));
    expect(exited).toBe(0);
    expect(requests).toBe(1);
  });

  it('tries each request once at exit, so a failing service does not hold the script', async () => {
    answers.push(503, 503, 503, 503, 503, 503);
    const script = `const { Client } = require(${JSON.stringify(require.resolve('../dist/index.js'))});
      new Client({ apiKey: 'tlm_sk_us_x', endpoint: ${JSON.stringify(fakeUrl())}, retryBaseMs: 10 }).info('last words');`;
    const exited = await new Promise<number | null>((resolve) => execFile(process.execPath, ['-e', script], (error) => resolve(error ? (error.code as number) : 0)));
    expect(exited).toBe(0);
    expect(requests).toBe(1);
  });

  it('waits at least what Retry-After says before the next attempt, 503 or 429', async () => {
    answers.push(503);
    retryAfterSeconds = '1';
    const paced = client({ endpoint: fakeUrl(), retryBaseMs: 10 });
    const times = await attemptTimes(async () => {
      paced.info('after retry-after');
      await paced.flush();
    });
    expect(requests).toBe(2);
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(995);
  });

  it('is disabled without an apiKey, and says so', async () => {
    const errors: Error[] = [];
    const keyless = new Client({ endpoint: fakeUrl(), onError: (error: Error) => errors.push(error) } as unknown as ClientOptions);
    keyless.info('nowhere');
    await keyless.flush();
    expect(requests).toBe(0);
    expect(errors.map((error) => error.message)).toEqual(['apiKey is required; the client sends nothing without one']);
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
