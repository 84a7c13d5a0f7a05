import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import express from 'express';
import { SLAB_MIN_BYTES, SlabPool, envelopeBody } from './body';

/** envelopeBody on a real HTTP server: each handler answers the SHA-256 and length of the body it read. */
const SLAB = 128 * 1024;
const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
/** Bytes that differ from request to request, so a slab still holding an earlier body shows. */
const bytesOf = (size: number, seed: number) => Buffer.from(Array.from({ length: size }, (_, index) => (index * 31 + seed * 7) % 251));

let server: http.Server;
let url: string;
let pool: SlabPool;
/** Resolves the handler of a request sent with `?hold=<name>`, which waits for it before reading its body again. */
const held = new Map<string, () => void>();
/** What the held handlers read once released. */
const heldResults = new Map<string, string>();
/** Errors the app's error handler saw, as (status, code). */
const seenErrors: { status: number; code: string | null }[] = [];

beforeAll(async () => {
  pool = new SlabPool(SLAB, 4);
  const app = express();
  app.post('/', envelopeBody(1024 * 1024, 'parts', pool), async (req, res) => {
    const body = req.body as Buffer;
    const hold = req.query['hold'];
    if (typeof hold === 'string') {
      // The first hash is taken at once; the second after other requests have run, from the same bytes.
      const first = sha(body);
      await new Promise<void>((resolve) => held.set(hold, resolve));
      heldResults.set(hold, first === sha(body) ? 'unchanged' : 'changed');
    }
    res.json({ sha: sha(body), length: body.length });
  });
  app.post('/small-limit', envelopeBody(SLAB_MIN_BYTES + 10, 'parts', pool), (req, res) => {
    res.json({ sha: sha(req.body as Buffer), length: (req.body as Buffer).length });
  });
  app.use(((error, _req, res, _next) => {
    seenErrors.push({ status: error.status ?? error.statusCode ?? 500, code: error.code ?? null });
    res.status(error.status ?? error.statusCode ?? 500).json({ type: error.type ?? null, code: error.code ?? null });
  }) as express.ErrorRequestHandler);
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

async function post(body: Buffer, headers: Record<string, string> = {}, path = '/') {
  const response = await fetch(`${url}${path}`, { method: 'POST', body, headers: { 'content-type': 'application/x-sentry-envelope', ...headers } });
  return { status: response.status, body: (await response.json()) as { sha?: string; length?: number; type?: string | null; code?: string | null } };
}

describe('envelope bodies', () => {
  it('reads every body exactly when slabs are reused, larger bodies before smaller ones', async () => {
    for (const [seed, size] of [SLAB, SLAB - 1, 100_000, SLAB_MIN_BYTES, SLAB_MIN_BYTES - 1, 1_000, 1, 0].entries()) {
      const body = bytesOf(size, seed);
      const answer = await post(body);
      expect(answer).toEqual({ status: 200, body: { sha: sha(body), length: size } });
    }
    // Each request gave its slab back, and the next one took it again: one slab made in all.
    expect(pool.kept).toBe(1);
  });

  it('gives requests in flight a slab each, and keeps at most the pool size afterwards', async () => {
    const bodies = Array.from({ length: 6 }, (_, seed) => bytesOf(SLAB_MIN_BYTES + 1_000 + seed, seed + 10));
    const answers = Promise.all(bodies.map((body, index) => post(body, {}, `/?hold=flight${index}`)));
    for (let waited = 0; held.size < 6 && waited < 5_000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
    // All six hold their bodies at once; none of them sees another's bytes.
    expect(pool.kept).toBe(0);
    bodies.forEach((_, index) => held.get(`flight${index}`)!());
    expect((await answers).map((answer) => answer.body.sha)).toEqual(bodies.map(sha));
    expect(bodies.map((_, index) => heldResults.get(`flight${index}`))).toEqual(Array(6).fill('unchanged'));
    expect(pool.kept).toBe(4);
    held.clear();
  });

  it('reads larger, gzip and chunked bodies through express.raw, with its limit', async () => {
    const large = bytesOf(SLAB + 1, 3);
    expect(await post(large)).toEqual({ status: 200, body: { sha: sha(large), length: SLAB + 1 } });

    const text = Buffer.from('{"event_id":"9ec79c33ec9942ab8353589fcb2e04dc"}\n{"type":"event"}\n{}\n');
    expect(await post(gzipSync(text), { 'content-encoding': 'gzip' })).toEqual({ status: 200, body: { sha: sha(text), length: text.length } });

    const chunked = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const request = http.request(`${url}/`, { method: 'POST' }, (response) => {
        let received = '';
        response.on('data', (chunk: Buffer) => (received += chunk.toString('utf8')));
        response.on('end', () => resolve({ status: response.statusCode!, text: received }));
      });
      request.on('error', reject);
      request.write(text.subarray(0, 10));
      request.end(text.subarray(10));
    });
    expect(chunked.status).toBe(200);
    expect(JSON.parse(chunked.text)).toEqual({ sha: sha(text), length: text.length });

    expect(await post(bytesOf(1024 * 1024 + 1, 4))).toEqual({ status: 413, body: { type: 'entity.too.large', code: null } });
  });

  it('takes no slab before the first bytes of a body, and keeps a limit below the slab size', async () => {
    const keptBefore = pool.kept;
    const request = http.request(`${url}/`, { method: 'POST', headers: { 'content-length': String(SLAB) } });
    request.on('error', () => undefined);
    request.flushHeaders();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(pool.kept).toBe(keptBefore);
    request.destroy();

    const body = bytesOf(SLAB_MIN_BYTES + 11, 50);
    expect(await post(body, {}, '/small-limit')).toEqual({ status: 413, body: { type: 'entity.too.large', code: null } });
    const fits = bytesOf(SLAB_MIN_BYTES + 10, 51);
    expect(await post(fits, {}, '/small-limit')).toEqual({ status: 200, body: { sha: sha(fits), length: SLAB_MIN_BYTES + 10 } });
  });

  it('never gives back the slab of a request whose client left while its handler still reads the body', async () => {
    const body = bytesOf(SLAB_MIN_BYTES + 5_000, 21);
    const keptBefore = pool.kept;
    // Sent in full, then the connection is dropped while the handler holds the body.
    const socket = await new Promise<http.ClientRequest>((resolve) => {
      const request = http.request(`${url}/?hold=left`, { method: 'POST', headers: { 'content-length': String(body.length) } });
      request.on('error', () => undefined);
      request.end(body, () => resolve(request));
    });
    for (let waited = 0; !held.has('left') && waited < 5_000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(held.has('left')).toBe(true);
    socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Other requests take every kept slab and more, and write their own bytes into them.
    const others = Array.from({ length: 6 }, (_, seed) => bytesOf(SLAB, seed + 30));
    const answers = await Promise.all(others.map((other) => post(other)));
    expect(answers.map((answer) => answer.body.sha)).toEqual(others.map(sha));
    held.get('left')!();
    for (let waited = 0; !heldResults.has('left') && waited < 5_000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(heldResults.get('left')).toBe('unchanged');
    expect(pool.kept).toBeLessThanOrEqual(Math.max(keptBefore, 4));
  });

  it('answers a body its client cut short as a validation error, and reads the next bodies whole', async () => {
    seenErrors.length = 0;
    await new Promise<void>((resolve) => {
      const request = http.request(`${url}/`, { method: 'POST', headers: { 'content-length': String(SLAB) } });
      request.on('error', () => resolve());
      request.write(bytesOf(10_000, 40), () => setTimeout(() => request.destroy(), 20));
      request.on('close', () => resolve());
    });
    for (let waited = 0; seenErrors.length === 0 && waited < 5_000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(seenErrors).toEqual([{ status: 400, code: 'VALIDATION_ERROR' }]);
    const body = bytesOf(100_000, 41);
    expect(await post(body)).toEqual({ status: 200, body: { sha: sha(body), length: 100_000 } });
  });
});
