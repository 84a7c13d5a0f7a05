import http from 'node:http';
import { connect } from 'node:net';
import { Writable } from 'node:stream';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import express from 'express';
import pino from 'pino';
import { ConfigError } from './config';
import { conflict, rateLimited } from './errors';
import { bodyBytes, byteLimitText, createServiceApp, finishServiceApp, jsonBody, listen, MAX_BODY_BYTES, rawBody, type ReadinessCheck, type RunningServer } from './http';
import { createLogger } from './logger';
import { metricsRegistry } from './metrics';

/** The metrics registry is process-wide; a service name of this file's own keeps its samples apart. */
const SERVICE = 'http-shell-test';
const BODY_LIMIT_BYTES = 1024;

const logLines: Record<string, unknown>[] = [];
const logger = pino(
  { level: 'info' },
  new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) logLines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  }),
);

let databaseDown = false;
const readiness: ReadinessCheck[] = [
  { name: 'metadata', check: async () => undefined },
  {
    name: 'analytics',
    check: async () => {
      if (databaseDown) throw new Error('connection refused');
    },
  },
];

let server: RunningServer;

beforeAll(async () => {
  const app = createServiceApp({ service: SERVICE, logger, readiness, trustedProxies: ['loopback'] });
  app.post('/default-limit', jsonBody(), (req, res) => {
    res.json({ bytes: bodyBytes(req) });
  });
  app.post('/echo', jsonBody(BODY_LIMIT_BYTES), (req, res) => {
    res.json({ body: req.body as unknown, bytes: bodyBytes(req) });
  });
  app.post('/raw', rawBody(MAX_BODY_BYTES), (req, res) => {
    res.json({ bytes: (req.body as Buffer).length });
  });
  app.get('/items/:id', (req, res) => {
    res.json({ id: req.params['id'] });
  });
  app.get('/client-ip', (req, res) => {
    res.json({ ip: req.ip });
  });
  app.post('/conflict', () => {
    throw conflict('email already registered', { restore: true });
  });
  app.get('/limited', async () => {
    throw rateLimited(3);
  });
  app.get('/broken', async () => {
    throw new Error('database exploded');
  });
  const router = express.Router();
  router.get('/projects/:project', (_req, res) => {
    res.status(204).end();
  });
  app.use('/v1', router);
  finishServiceApp(app, logger);
  server = await listen(app, 0, '127.0.0.1', 1_000);
});

afterAll(() => server.close());

/** JSON of `count` empty objects in an array: it gzips to a few hundred bytes. */
const denseJson = (count: number) => Buffer.from(`[${Array(count).fill('{}').join(',')}]`);
const denseRefusal = (receivedBytes: number) =>
  `the body inflates to more than ${Math.max(10_000, 32 * receivedBytes).toLocaleString('en-US')} JSON objects and arrays (at most 32 per byte received, or 10,000)`;

const post = (path: string, body: string | Buffer, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
  fetch(`${server.url}${path}`, { method: 'POST', body, headers });

async function counterValue(labels: Record<string, string>): Promise<number | undefined> {
  const metric = await metricsRegistry.getSingleMetric('tlm_http_requests_total')!.get();
  const sample = metric.values.find((value) => Object.entries(labels).every(([name, wanted]) => value.labels[name] === wanted));
  return sample?.value;
}

/** The response can reach the client a moment before the server's `finish` handler has counted it. */
async function eventually<T>(check: () => Promise<T>, timeoutMs = 2_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

describe('listen', () => {
  it('serves on an ephemeral port and reports the URL it can be reached at', () => {
    expect(server.port).toBeGreaterThan(0);
    expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
  });

  it('names HOST and PORT when it cannot listen there', async () => {
    const app = createServiceApp({ service: SERVICE, logger, readiness: [], trustedProxies: [] });
    await expect(listen(app, server.port, '127.0.0.1', 1_000)).rejects.toThrow(
      `cannot listen on HOST 127.0.0.1, PORT ${server.port}: listen EADDRINUSE: address already in use 127.0.0.1:${server.port}`,
    );
  });

  it('names TRUSTED_PROXIES when an entry is not an address, a CIDR or a known name', () => {
    expect(() => createServiceApp({ service: SERVICE, logger, readiness: [], trustedProxies: ['loopback', 'garbage'] })).toThrow(
      new ConfigError('invalid configuration: TRUSTED_PROXIES invalid IP address: garbage'),
    );
  });
});

describe('error mapping', () => {
  it('answers a body that is not JSON with 400 VALIDATION_ERROR', async () => {
    const response = await post('/echo', '{"batch": [');
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: { code: 'VALIDATION_ERROR', message: 'request body is not valid JSON' } });
  });

  it('answers a body over the limit with 413 PAYLOAD_TOO_LARGE', async () => {
    const response = await post('/echo', JSON.stringify({ message: 'x'.repeat(BODY_LIMIT_BYTES) }));
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({
      error: { code: 'PAYLOAD_TOO_LARGE', message: 'request body exceeds the 1 KiB limit' },
    });
  });

  it('takes JSON bodies up to the 2 MB of SPEC.md by default, and answers 413 naming that limit above it', async () => {
    const fits = JSON.stringify({ message: 'x'.repeat(MAX_BODY_BYTES - 100) });
    const accepted = await post('/default-limit', fits);
    expect(accepted.status).toBe(200);
    expect(await accepted.json()).toEqual({ bytes: Buffer.byteLength(fits) });
    const refused = await post('/default-limit', JSON.stringify({ message: 'x'.repeat(MAX_BODY_BYTES) }));
    expect(refused.status).toBe(413);
    expect(await refused.json()).toEqual({ error: { code: 'PAYLOAD_TOO_LARGE', message: 'request body exceeds the 2 MiB limit' } });
  });

  it('writes byte limits as people do', () => {
    expect([byteLimitText(2 * 1024 * 1024), byteLimitText(64 * 1024), byteLimitText(1_500)]).toEqual(['2 MiB', '64 KiB', '1,500 bytes']);
  });

  it('counts the limit on the inflated body, so a small gzip that inflates past it is 413', async () => {
    const bomb = gzipSync(JSON.stringify({ message: ' '.repeat(BODY_LIMIT_BYTES * 10) }));
    expect(bomb.length).toBeLessThan(BODY_LIMIT_BYTES);
    const response = await post('/echo', bomb, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    expect(response.status).toBe(413);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('answers an unsupported content encoding with 400 VALIDATION_ERROR', async () => {
    const response = await post('/echo', '{}', { 'content-type': 'application/json', 'content-encoding': 'compress' });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: { code: 'VALIDATION_ERROR', message: 'unsupported content encoding or charset' },
    });
  });

  it('answers an unsupported charset with 400 VALIDATION_ERROR', async () => {
    const response = await post('/echo', '{}', { 'content-type': 'application/json; charset=latin1' });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: { code: 'VALIDATION_ERROR', message: 'unsupported content encoding or charset' },
    });
  });

  it('answers a thrown ApiError with its status and {error: {code, message, details}}', async () => {
    const response = await post('/conflict', '{}');
    expect(response.status).toBe(409);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await response.json()).toEqual({
      error: { code: 'CONFLICT', message: 'email already registered', details: { restore: true } },
    });
  });

  it('sends the headers an ApiError carries: Retry-After on 429', async () => {
    const response = await fetch(`${server.url}/limited`);
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('3');
    expect(await response.json()).toEqual({ error: { code: 'RATE_LIMITED', message: 'too many requests in a second' } });
  });

  it('answers an unexpected exception with 500 INTERNAL_ERROR without leaking its message, and logs it', async () => {
    const response = await fetch(`${server.url}/broken?token=secret`);
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ error: { code: 'INTERNAL_ERROR', message: 'internal error' } });
    const logged = logLines.find((line) => line['msg'] === 'unhandled error');
    expect(logged).toMatchObject({ method: 'GET', path: '/broken', err: { message: 'database exploded' } });
  });

  it('answers an unknown route with 404 NOT_FOUND', async () => {
    const response = await fetch(`${server.url}/no/such/route`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: { code: 'NOT_FOUND', message: 'no such route' } });
  });

  it('answers a known path with an unrouted method with 404 NOT_FOUND', async () => {
    const response = await fetch(`${server.url}/echo`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: { code: 'NOT_FOUND', message: 'no such route' } });
  });
});

describe('jsonBody', () => {
  it('parses JSON whatever the content type, since SDKs often send text/plain', async () => {
    const response = await post('/echo', '{"event":"signup"}', { 'content-type': 'text/plain' });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ body: { event: 'signup' }, bytes: 18 });
  });

  it('inflates a gzip body and reports the inflated size', async () => {
    const json = JSON.stringify({ batch: [{ event: 'a' }, { event: 'b' }] });
    const response = await post('/echo', gzipSync(json), { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ body: { batch: [{ event: 'a' }, { event: 'b' }] }, bytes: Buffer.byteLength(json) });
  });

  it('refuses a gzip, deflate or brotli body that inflates to more JSON objects and arrays than 32 per byte received with 400 VALIDATION_ERROR', async () => {
    const json = denseJson(100_000);
    for (const path of ['/default-limit', '/raw']) {
      for (const [encoding, compressed] of [
        ['gzip', gzipSync(json)],
        ['deflate', deflateSync(json)],
        ['br', brotliCompressSync(json)],
      ] as const) {
        const response = await post(path, compressed, { 'content-type': 'application/json', 'content-encoding': encoding });
        expect([encoding, response.status, await response.json()]).toEqual([encoding, 400, { error: { code: 'VALIDATION_ERROR', message: denseRefusal(compressed.length) } }]);
      }
      // Sent as it is, the same JSON costs its sender a byte per byte parsed, and is taken.
      const plain = await post(path, json);
      expect(plain.status).toBe(200);
      expect(await plain.json()).toEqual({ bytes: json.length });
    }
  });

  it('counts the bytes of a chunked gzip body as they arrive, since it has no Content-Length', async () => {
    const send = (body: Buffer) =>
      new Promise<{ status: number; body: unknown }>((resolve, reject) => {
        const request = http.request(`${server.url}/default-limit`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } });
        request.on('response', (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => resolve({ status: response.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
        });
        request.on('error', reject);
        const half = Math.floor(body.length / 2);
        request.write(body.subarray(0, half));
        setTimeout(() => request.end(body.subarray(half)), 10);
      });
    const dense = gzipSync(denseJson(100_000));
    expect(await send(dense)).toEqual({ status: 400, body: { error: { code: 'VALIDATION_ERROR', message: denseRefusal(dense.length) } } });
    // Objects every few bytes, but a text that does not compress to nothing: within 32 per byte received.
    const varied = Buffer.from(JSON.stringify(Array.from({ length: 20_000 }, (_, i) => ({ i: (i * 7919) % 100_003 }))));
    expect(await send(gzipSync(varied))).toEqual({ status: 200, body: { bytes: varied.length } });
  });

  it('accepts a JSON value that is not an object (strict off), leaving the check to the route', async () => {
    const response = await post('/echo', '"just a string"');
    expect(await response.json()).toEqual({ body: 'just a string', bytes: 15 });
  });
});

describe('probes', () => {
  it('answers /healthz with 200 {status: ok}', async () => {
    const response = await fetch(`${server.url}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
  });

  it('answers /readyz with 200 and every check when all checks pass', async () => {
    const response = await fetch(`${server.url}/readyz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      status: 'ok',
      checks: [
        { name: 'metadata', status: 'ok' },
        { name: 'analytics', status: 'ok' },
      ],
    });
  });

  it('answers /readyz with 503 naming the failing check and its error', async () => {
    databaseDown = true;
    try {
      const response = await fetch(`${server.url}/readyz`);
      expect(response.status).toBe(503);
      expect(await response.json()).toEqual({
        status: 'unavailable',
        checks: [
          { name: 'metadata', status: 'ok' },
          { name: 'analytics', status: 'error', error: 'connection refused' },
        ],
      });
    } finally {
      databaseDown = false;
    }
  });

  it('answers /readyz with 503 when a check does not answer within 2 s', async () => {
    const hanging: ReadinessCheck = { name: 'bus', check: () => new Promise<void>(() => undefined) };
    readiness.push(hanging);
    try {
      const started = Date.now();
      const response = await fetch(`${server.url}/readyz`);
      expect(Date.now() - started).toBeGreaterThanOrEqual(1_900);
      expect(response.status).toBe(503);
      expect(((await response.json()) as { checks: unknown[] }).checks[2]).toEqual({
        name: 'bus',
        status: 'error',
        error: 'no answer within 2000 ms',
      });
    } finally {
      readiness.pop();
    }
  });
});

describe('request metrics and log', () => {
  it('counts a request in tlm_http_requests_total by route pattern and status, exposed on /metrics', async () => {
    expect(await counterValue({ service: SERVICE, route: '/items/:id' })).toBeUndefined();
    await (await fetch(`${server.url}/items/42?sentry_key=abc`)).text();
    await eventually(async () => expect(await counterValue({ service: SERVICE, route: '/items/:id', status: '200' })).toBe(1));
    const exposition = await (await fetch(`${server.url}/metrics`)).text();
    expect(exposition).toContain(
      `tlm_http_requests_total{service="${SERVICE}",method="GET",route="/items/:id",status="200"} 1\n`,
    );
  });

  it('labels a route of a mounted router with its full pattern', async () => {
    await (await fetch(`${server.url}/v1/projects/p-1`)).text();
    await eventually(async () =>
      expect(await counterValue({ service: SERVICE, route: '/v1/projects/:project', status: '204' })).toBe(1),
    );
  });

  it("labels requests that matched no route 'unmatched', so paths never become label values", async () => {
    const unmatched = { service: SERVICE, method: 'GET', route: 'unmatched', status: '404' };
    const before = (await counterValue(unmatched)) ?? 0;
    await (await fetch(`${server.url}/random/path/123`)).text();
    await (await fetch(`${server.url}/random/path/456`)).text();
    await eventually(async () => expect(await counterValue(unmatched)).toBe(before + 2));
    const exposition = await (await fetch(`${server.url}/metrics`)).text();
    expect(exposition).not.toContain('/random/path');
  });

  it('writes one log line per request without the query string', async () => {
    logLines.length = 0;
    await (await fetch(`${server.url}/items/7?sentry_key=tlm_pk_us_secret`)).text();
    await eventually(async () => expect(logLines.filter((line) => line['msg'] === 'request')).toHaveLength(1));
    const line = logLines.find((entry) => entry['msg'] === 'request')!;
    expect(line).toMatchObject({ method: 'GET', route: '/items/:id', path: '/items/7', status: 200 });
    expect(typeof line['duration_ms']).toBe('number');
    expect(JSON.stringify(line)).not.toContain('sentry_key');
  });
});

describe('draining on close', () => {
  it('answers the requests in flight, then closes their keep-alive connections instead of waiting out the timeout', async () => {
    const app = createServiceApp({ service: SERVICE, logger, readiness: [], trustedProxies: [] });
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    let arrived: () => void = () => undefined;
    const inFlight = new Promise<void>((resolve) => (arrived = resolve));
    app.get('/slow', async (_req, res) => {
      arrived();
      await released;
      res.json({ done: true });
    });
    finishServiceApp(app, logger);
    // A timeout longer than jest's: only a drain that closes the connection itself lets close() resolve in time.
    const draining = await listen(app, 0, '127.0.0.1', 120_000);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
      http
        .get(`${draining.url}/slow`, { agent }, (response) => {
          let body = '';
          response.on('data', (chunk: Buffer) => (body += chunk.toString()));
          response.on('end', () => resolve({ status: response.statusCode!, body }));
        })
        .on('error', reject);
    });
    await inFlight;
    const closed = draining.close();
    release();
    expect(await answer).toEqual({ status: 200, body: '{"done":true}' });
    await closed;
    agent.destroy();
  });
});

describe('trusted proxies', () => {
  it('takes the client address from X-Forwarded-For when the peer is a trusted proxy', async () => {
    const response = await fetch(`${server.url}/client-ip`, { headers: { 'x-forwarded-for': '203.0.113.7' } });
    expect(await response.json()).toEqual({ ip: '203.0.113.7' });
  });

  it('ignores X-Forwarded-For when no proxy is trusted', async () => {
    const app = createServiceApp({ service: SERVICE, logger, readiness: [], trustedProxies: [] });
    app.get('/client-ip', (req, res) => {
      res.json({ ip: req.ip });
    });
    finishServiceApp(app, logger);
    const direct = await listen(app, 0, '127.0.0.1', 1_000);
    try {
      const response = await fetch(`${direct.url}/client-ip`, { headers: { 'x-forwarded-for': '203.0.113.7' } });
      expect(await response.json()).toEqual({ ip: '127.0.0.1' });
    } finally {
      await direct.close();
    }
  });
});

describe('slow clients', () => {
  /** Opens a raw connection and writes `parts` one every `gapMs`; resolves with what the server sent and when it closed. */
  async function trickle(url: string, parts: string[], gapMs: number): Promise<{ answer: string; closedAfterMs: number }> {
    const { hostname, port } = new URL(url);
    const socket = connect(Number(port), hostname);
    const started = Date.now();
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString()));
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    let index = 0;
    const timer = setInterval(() => {
      if (index < parts.length && !socket.destroyed) socket.write(parts[index++]!);
    }, gapMs);
    await closed;
    clearInterval(timer);
    return { answer, closedAfterMs: Date.now() - started };
  }

  let slow: RunningServer;
  beforeAll(async () => {
    const app = createServiceApp({ service: 'slow', logger: createLogger('slow', 'silent'), readiness: [], trustedProxies: [] });
    app.post('/upload', jsonBody(), (_req, res) => res.json({ ok: true }));
    finishServiceApp(app, createLogger('slow', 'silent'));
    slow = await listen(app, 0, '127.0.0.1', 1_000, { headersTimeoutMs: 1_000, requestTimeoutMs: 2_000 });
  });
  afterAll(() => slow.close());

  it('closes a connection whose headers trickle in past HEADERS_TIMEOUT_MS with 408', async () => {
    const headers = ['GET /healthz HTTP/1.1\r\n', ...Array.from({ length: 100 }, (_, n) => `X-Slow-${n}: a\r\n`)];
    const { answer, closedAfterMs } = await trickle(slow.url, headers, 200);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    // 1 s of headers allowed, checked every half second: closed well before the 20 s the headers would take.
    expect(closedAfterMs).toBeGreaterThanOrEqual(1_000);
    expect(closedAfterMs).toBeLessThan(6_000);
  });

  it('closes a connection whose body trickles in past REQUEST_TIMEOUT_MS with 408', async () => {
    const body = JSON.stringify({ message: 'x'.repeat(200) });
    const head = `POST /upload HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    const { answer, closedAfterMs } = await trickle(slow.url, [head, ...body.match(/.{1,2}/g)!], 100);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(closedAfterMs).toBeGreaterThanOrEqual(2_000);
    expect(closedAfterMs).toBeLessThan(8_000);
  });
});
