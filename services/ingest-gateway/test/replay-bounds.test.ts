import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { deflateSync, gzipSync } from 'node:zlib';
import { inflatingBytes } from '@tlm/core';
import { serverWithProject } from '@tlm/testkit';

const fixture = serverWithProject();

const MiB = 1024 * 1024;
const T0 = Date.now() - 60_000;

const storedChunks = (sessionId: string) =>
  fixture.server.standalone.analytics.query(`SELECT * FROM replay_chunks WHERE project_id = $project AND session_id = $id ORDER BY seq`, {
    project: fixture.setup.project.id,
    id: sessionId,
  });
/** Whether any body of the session reached the blob store, on any day. */
const storedBodies = (sessionId: string) => {
  const replays = path.join(fixture.server.dataDir, 'blobs', fixture.setup.project.id, 'replays');
  if (!existsSync(replays)) return false;
  return readdirSync(replays).some((day) => existsSync(path.join(replays, day, sessionId)));
};

let sessions = 0;
const newSessionId = () => `bounds-${process.pid}-${(sessions += 1)}`;
const replayId = () => `${process.pid.toString(16).padStart(8, '0')}${Date.now().toString(16).padStart(16, '0')}${(sessions += 1).toString(16).padStart(8, '0')}`;

const postChunk = (sessionId: string, seq: number, body: Buffer, token = fixture.setup.publicKey) =>
  fixture.server.api.post(`/v1/replay/chunks?session_id=${sessionId}&seq=${seq}`, { token, body, headers: { 'content-type': 'application/octet-stream' } });

/**
 * About 1 MB of gzip that inflates to 1 GiB of spaces: 64 gzip members of 16 MiB each, which gunzip reads one after
 * the other (RFC 1952 allows a file of several members).
 */
const gibibyteBomb = (() => {
  let bomb: Buffer | undefined;
  return () => (bomb ??= Buffer.concat(Array(64).fill(gzipSync(Buffer.alloc(16 * MiB, ' '), { level: 9 }))));
})();

/**
 * rrweb events as a recorder writes them for a busy page: a full snapshot of `nodes` DOM nodes with their text, then
 * mouse moves and text mutations, about `inflatedBytes` of JSON with text that gzip shrinks about fourfold.
 */
function realisticRecording(inflatedBytes: number): string {
  const words = randomBytes(4096).toString('base64').match(/.{1,7}/g)!;
  const text = (seed: number, count: number) => Array.from({ length: count }, (_, i) => words[(seed * 31 + i * 7) % words.length]).join(' ');
  const events: unknown[] = [{ type: 4, timestamp: T0, data: { href: 'https://shop.example/cart', width: 1280, height: 800 } }];
  const childNodes = Array.from({ length: 2_000 }, (_, id) => ({
    type: 2,
    id: id + 10,
    tagName: 'div',
    attributes: { class: `row row-${id % 17}`, 'data-sku': `sku-${id}` },
    childNodes: [{ type: 3, id: id + 100_000, textContent: text(id, 12) }],
  }));
  events.push({ type: 2, timestamp: T0 + 10, data: { node: { type: 0, id: 1, childNodes }, initialOffset: { left: 0, top: 0 } } });
  let size = JSON.stringify(events).length;
  for (let i = 0; size < inflatedBytes; i += 1) {
    const event =
      i % 3 === 0
        ? { type: 3, timestamp: T0 + 20 + i, data: { source: 0, texts: [{ id: 100_000 + (i % 2_000), value: text(i, 20) }], attributes: [], removes: [], adds: [] } }
        : { type: 3, timestamp: T0 + 20 + i, data: { source: 1, positions: [{ x: (i * 13) % 1280, y: (i * 7) % 800, id: 10 + (i % 2_000), timeOffset: -i % 50 }] } };
    events.push(event);
    size += JSON.stringify(event).length + 1;
  }
  return JSON.stringify(events);
}

/** Runs `work` and reports how far the process's resident memory rose above where it started, sampled every 5 ms. */
async function rssGrowthDuring<T>(work: () => Promise<T>): Promise<{ result: T; growthBytes: number }> {
  const before = process.memoryUsage.rss();
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 5);
  try {
    const result = await work();
    return { result, growthBytes: Math.max(peak, process.memoryUsage.rss()) - before };
  } finally {
    clearInterval(sampler);
  }
}

describe('POST /v1/replay/chunks under hostile bodies', () => {
  it('refuses 16 concurrent 1 MB chunks that inflate to 1 GiB each with 400 VALIDATION_ERROR or 429 RATE_LIMITED, stores nothing and grows memory by less than 600 MB', async () => {
    const bomb = gibibyteBomb();
    expect(bomb.length).toBeLessThan(1.1 * MiB);
    const sessionIds = Array.from({ length: 16 }, newSessionId);
    const { result: replies, growthBytes } = await rssGrowthDuring(() => Promise.all(sessionIds.map((id) => postChunk(id, 0, bomb))));
    for (const reply of replies) {
      if (reply.status === 429) {
        expect(reply.body.error.code).toBe('RATE_LIMITED');
        expect(reply.headers.get('retry-after')).toBe('1');
      } else {
        expect(reply.status).toBe(400);
        expect(reply.body.error).toEqual({ code: 'VALIDATION_ERROR', message: `the recording inflates to more than ${100 * MiB} bytes` });
      }
    }
    // 16 x 100 MiB would be inflated at once without a bound for the process; it holds 256 MiB at most.
    expect(replies.filter((reply) => reply.status === 429).length).toBeGreaterThan(0);
    expect(growthBytes).toBeLessThan(600 * 1e6);
    for (const id of sessionIds) {
      expect(await storedChunks(id)).toEqual([]);
      expect(storedBodies(id)).toBe(false);
    }
  });

  it('answers a chunk sent after the hostile ones were refused: the bytes they held are given back', async () => {
    expect(inflatingBytes.inUse).toBe(0);
    const sessionId = newSessionId();
    const reply = await postChunk(sessionId, 0, gzipSync(realisticRecording(64 * 1024)));
    expect(reply.status).toBe(202);
    expect(await storedChunks(sessionId)).toHaveLength(1);
  });

  it('accepts four concurrent multi-MB rrweb chunks of 24 MiB inflated each and stores them byte for byte', async () => {
    const chunk = gzipSync(realisticRecording(24 * MiB));
    expect(chunk.length).toBeGreaterThan(2 * MiB);
    const sessionId = newSessionId();
    const replies = await Promise.all([0, 1, 2, 3].map((seq) => postChunk(sessionId, seq, chunk)));
    expect(replies.map((reply) => reply.status)).toEqual([202, 202, 202, 202]);
    const rows = await storedChunks(sessionId);
    expect(rows.map((row) => row['seq'])).toEqual([0, 1, 2, 3]);
    for (const row of rows) {
      const stored = readFileSync(path.join(fixture.server.dataDir, 'blobs', row['blob_key'] as string));
      expect(stored.equals(chunk)).toBe(true);
    }
  });
});

/** A Sentry envelope: header line, then per item a header line with its length and the payload bytes. */
function envelope(header: Record<string, unknown>, items: [Record<string, unknown>, Buffer | string][]): Buffer {
  const parts: Buffer[] = [Buffer.from(`${JSON.stringify(header)}\n`)];
  for (const [itemHeader, payload] of items) {
    const bytes = Buffer.isBuffer(payload) ? payload : Buffer.from(payload);
    parts.push(Buffer.from(`${JSON.stringify({ ...itemHeader, length: bytes.length })}\n`), bytes, Buffer.from('\n'));
  }
  return Buffer.concat(parts);
}

const recording = (segment: number, compressed: Buffer) => Buffer.concat([Buffer.from(`${JSON.stringify({ segment_id: segment })}\n`), compressed]);

const sendEnvelope = (body: Buffer, headers: Record<string, string> = {}) =>
  fixture.server.api.post('/v1/envelope', { token: fixture.setup.publicKey, body, headers: { 'content-type': 'application/x-sentry-envelope', ...headers } });

/** An envelope of 19 recordings of about 1 MB, each inflating to 1 GiB: 19.8 MB, under the 20 MiB an envelope may be. */
const bombEnvelope = (id: string) => envelope({ event_id: id }, Array.from({ length: 19 }, (_, segment) => [{ type: 'replay_recording' }, recording(segment, gibibyteBomb())]));

describe('replay_recording envelope items under hostile bodies', () => {
  it('refuses an envelope of 19 recordings that inflate to 1 GiB each: the first reaches the 100 MiB they share, the others are not inflated', async () => {
    const id = replayId();
    const body = bombEnvelope(id);
    expect(body.length).toBeGreaterThan(19 * 1e6);
    const reply = await sendEnvelope(body);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ accepted: 0, rejected: 19 });
    expect(reply.body.errors[0]).toEqual({ index: 0, message: `replay_recording item: the recording inflates to more than ${100 * MiB} bytes` });
    for (const index of Array.from({ length: 18 }, (_, i) => i + 1)) {
      expect(reply.body.errors[index]).toEqual({ index, message: `replay_recording item: the envelope's recordings inflate to more than ${100 * MiB} bytes between them` });
    }
    expect(await storedChunks(id)).toEqual([]);
    expect(storedBodies(id)).toBe(false);
  });

  it('refuses four such envelopes at once with 200 and every item rejected or 429 RATE_LIMITED, storing nothing', async () => {
    const ids = [0, 1, 2, 3].map(replayId);
    const bodies = ids.map(bombEnvelope);
    const replies = await Promise.all(bodies.map((body) => sendEnvelope(body)));
    for (const reply of replies) {
      if (reply.status === 429) {
        expect(reply.body.error.code).toBe('RATE_LIMITED');
        expect(reply.headers.get('retry-after')).toBe('1');
      } else {
        expect(reply.status).toBe(200);
        expect(reply.body).toMatchObject({ accepted: 0, rejected: 19 });
      }
    }
    for (const id of ids) {
      expect(await storedChunks(id)).toEqual([]);
      expect(storedBodies(id)).toBe(false);
    }
  });

  it('refuses an envelope of 2,000 empty recordings (1 KB of gzip) with 400 VALIDATION_ERROR, storing none of them', async () => {
    const id = replayId();
    const body = gzipSync(envelope({ event_id: id }, Array.from({ length: 2_000 }, (_, segment) => [{ type: 'replay_recording' }, recording(segment, Buffer.from('[]'))])));
    expect(body.length).toBeLessThan(20_000);
    const reply = await sendEnvelope(body, { 'content-encoding': 'gzip' });
    expect(reply.status).toBe(400);
    expect(reply.body.error).toEqual({
      code: 'VALIDATION_ERROR',
      message: 'malformed envelope: 2000 items stored as blobs (replay recordings, profile chunks, attachments), at most 100',
    });
    expect(await storedChunks(id)).toEqual([]);
    expect(storedBodies(id)).toBe(false);
  });

  it('accepts an envelope of three normal recordings of a few MB, gzip, zlib and plain JSON, and stores each', async () => {
    const id = replayId();
    const events = realisticRecording(6 * MiB);
    const body = envelope({ event_id: id }, [
      [{ type: 'replay_recording' }, recording(0, gzipSync(events))],
      [{ type: 'replay_recording' }, recording(1, deflateSync(events))],
      [{ type: 'replay_recording' }, recording(2, Buffer.from(realisticRecording(2 * MiB)))],
    ]);
    const reply = await sendEnvelope(body);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ accepted: 3, rejected: 0 });
    expect((await storedChunks(id)).map((row) => row['seq'])).toEqual([0, 1, 2]);
  });
});
