import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { createKey, denseBodyRefusal, serverWithProject } from '@tlm/testkit';

const fixture = serverWithProject();

const T0 = Date.now() - 120_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Sentry's profile chunk (sample format v2): samples at 101 Hz with times in seconds. */
const sentryChunk = (profilerId: string, chunkId: string, samples = 5) => ({
  version: '2',
  profiler_id: profilerId,
  chunk_id: chunkId,
  platform: 'node',
  release: 'api@2.0.0',
  environment: 'production',
  client_sdk: { name: 'sentry.javascript.node', version: '8.0.0' },
  profile: {
    samples: Array.from({ length: samples }, (_, i) => ({ timestamp: (T0 + i * 10) / 1000, stack_id: 0, thread_id: '1' })),
    stacks: [[0, 1]],
    frames: [{ function: 'handler', filename: 'app.js', lineno: 10 }, { function: 'main', filename: 'app.js', lineno: 1 }],
    thread_metadata: { '1': { name: 'main' } },
  },
});

const storedChunk = (chunkId: string) =>
  fixture.server.standalone.analytics.query(`SELECT * FROM profile_chunks WHERE project_id = $project AND id = $id`, { project: fixture.setup.project.id, id: chunkId });
const blobOf = (row: Record<string, unknown>) => readFileSync(path.join(fixture.server.dataDir, 'blobs', row['blob_key'] as string));

const postChunk = (query: string, body: Buffer | string, token = fixture.setup.secretKey, headers: Record<string, string> = {}) =>
  fixture.server.api.post(`/v1/profiles/chunks?${query}`, { token, body, headers: { 'content-type': 'application/json', ...headers } });

let counter = 0;
const unique = (label: string) => `${label}-${process.pid}-${(counter += 1)}`;

describe('POST /v1/profiles/chunks', () => {
  it('stores a chunk: 202 {chunk_id}, the JSON body byte for byte in the blob store and its metadata as a row', async () => {
    const chunkId = unique('chunk');
    // Spacing and key order are the client's: the stored body is the bytes sent, not a re-serialization.
    const body = Buffer.from(`{ "samples": [1, 2, 3],\n  "frames": [ "a" ] }`);
    const reply = await postChunk(
      `profiler_id=prof-a&profile_type=cpu&sample_count=303&chunk_id=${chunkId}&started_at=${T0}&ended_at=${T0 + 60_000}&platform=python&release=api%401.0`,
      body,
    );
    expect(reply.status).toBe(202);
    expect(reply.body).toEqual({ chunk_id: chunkId });
    const [row] = await storedChunk(chunkId);
    expect(row).toMatchObject({
      profiler_id: 'prof-a',
      profile_type: 'cpu',
      sample_count: 303,
      started_at: new Date(T0).toISOString(),
      ended_at: new Date(T0 + 60_000).toISOString(),
      platform: 'python',
      release: 'api@1.0',
      environment: null,
      size_bytes: body.length,
      blob_key: `${fixture.setup.project.id}/profiles/${new Date().toISOString().slice(0, 10)}/${chunkId}`,
    });
    expect(blobOf(row!).equals(body)).toBe(true);
  });

  it('names a chunk sent without chunk_id (UUIDv7), defaults profile_type to cpu and reads counts and times from a Sentry body', async () => {
    const reply = await postChunk('profiler_id=prof-b', JSON.stringify(sentryChunk('ignored', 'ignored', 7)));
    expect(reply.status).toBe(202);
    expect(reply.body.chunk_id).toMatch(UUID);
    const [row] = await storedChunk(reply.body.chunk_id);
    expect(row).toMatchObject({ profiler_id: 'prof-b', profile_type: 'cpu', sample_count: 7, started_at: new Date(T0).toISOString(), ended_at: new Date(T0 + 60).toISOString() });
  });

  it("takes the platform, release and environment a Sentry body names when the parameters leave them out, the parameters' own first", async () => {
    const fromBody = await postChunk('profiler_id=prof-c', JSON.stringify(sentryChunk('ignored', 'ignored', 3)));
    expect(fromBody.status).toBe(202);
    const [row] = await storedChunk(fromBody.body.chunk_id);
    expect(row).toMatchObject({ platform: 'node', release: 'api@2.0.0', environment: 'production' });
    const named = await postChunk('profiler_id=prof-c&release=api%403.0&environment=staging', JSON.stringify(sentryChunk('ignored', 'ignored', 3)));
    const [namedRow] = await storedChunk(named.body.chunk_id);
    expect(namedRow).toMatchObject({ platform: 'node', release: 'api@3.0', environment: 'staging' });
    // Text the parameters would refuse is not taken from the body either.
    const long = await postChunk('profiler_id=prof-c', JSON.stringify({ ...sentryChunk('ignored', 'ignored', 1), release: 'r'.repeat(257), platform: 7 }));
    const [longRow] = await storedChunk(long.body.chunk_id);
    expect(longRow).toMatchObject({ platform: null, release: null, environment: 'production' });
  });

  it('accepts a body of exactly 10 MiB', async () => {
    const chunkId = unique('big');
    const prefix = '{"pad":"';
    const body = Buffer.from(`${prefix}${'x'.repeat(10 * 1024 * 1024 - prefix.length - 2)}"}`);
    expect(body.length).toBe(10 * 1024 * 1024);
    const reply = await postChunk(`profiler_id=prof-c&chunk_id=${chunkId}`, body);
    expect(reply.status).toBe(202);
    expect(blobOf((await storedChunk(chunkId))[0]!).equals(body)).toBe(true);
  });

  it('stores a gzip-encoded upload as the JSON it inflates to', async () => {
    const chunkId = unique('gz');
    const json = JSON.stringify(sentryChunk('p', 'c', 2));
    const reply = await postChunk(`profiler_id=prof-d&chunk_id=${chunkId}`, gzipSync(json), fixture.setup.secretKey, { 'content-encoding': 'gzip' });
    expect(reply.status).toBe(202);
    expect(blobOf((await storedChunk(chunkId))[0]!).toString()).toBe(json);
  });

  it('refuses a gzip upload that inflates to more JSON objects and arrays than 32 per byte received with 400 VALIDATION_ERROR', async () => {
    const chunkId = unique('dense');
    // 100,000 `{}` as samples: about 300 KB of JSON that gzips to a few hundred bytes.
    const compressed = gzipSync(JSON.stringify({ ...sentryChunk('p', 'c', 0), samples: Array.from({ length: 100_000 }, () => ({})) }));
    const reply = await postChunk(`profiler_id=prof-dense&chunk_id=${chunkId}`, compressed, fixture.setup.secretKey, { 'content-encoding': 'gzip' });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ error: { code: 'VALIDATION_ERROR', message: denseBodyRefusal(compressed.length) } });
    expect(await storedChunk(chunkId)).toEqual([]);
    const listed = await fixture.server.api.get('/v1/profiles/chunks?profiler_id=prof-dense', { token: fixture.setup.secretKey });
    expect([listed.status, listed.body]).toEqual([200, { chunks: [] }]);
  });

  it('accepts a public key', async () => {
    expect((await postChunk('profiler_id=prof-e', '{}', fixture.setup.publicKey)).status).toBe(202);
  });

  it('answers 413 PAYLOAD_TOO_LARGE for a body over 10 MiB', async () => {
    const reply = await postChunk('profiler_id=prof-bad', Buffer.alloc(10 * 1024 * 1024 + 1, 0x20));
    expect(reply.status).toBe(413);
    expect(reply.body.error).toEqual({ code: 'PAYLOAD_TOO_LARGE', message: 'profile chunk body exceeds 10485760 bytes (10 MiB)' });
  });

  it.each([
    ['no profiler_id', 'sample_count=3', '{}', 'profiler_id is required'],
    ['a profiler_id with a slash', 'profiler_id=a%2Fb', '{}', 'profiler_id must be 1 to 128'],
    ['a chunk_id with a dot-dot path', 'profiler_id=prof-bad&chunk_id=..', '{}', 'chunk_id must be 1 to 128'],
    ['a non-integer sample_count', 'profiler_id=prof-bad&sample_count=3.5', '{}', 'sample_count must be an integer from 0 to 2147483647'],
    ['a started_at that is no time', 'profiler_id=prof-bad&started_at=now', '{}', 'started_at must be epoch milliseconds or an ISO 8601 date-time'],
    ['an ended_at before started_at', `profiler_id=prof-bad&started_at=${T0}&ended_at=${T0 - 1}`, '{}', 'ended_at is before started_at'],
    ['a body that is not JSON', 'profiler_id=prof-bad', '{"samples": [', 'the body is not valid JSON'],
    ['a JSON array body', 'profiler_id=prof-bad', '[1, 2]', 'the body must be a JSON object'],
    ['an empty body', 'profiler_id=prof-bad', '', 'the body is not valid JSON'],
  ])('answers 400 VALIDATION_ERROR for %s and stores nothing', async (_case, query, body, message) => {
    const reply = await postChunk(query, body);
    expect(reply.status).toBe(400);
    expect(reply.body.error.code).toBe('VALIDATION_ERROR');
    expect(reply.body.error.message).toContain(message);
    expect(await fixture.server.standalone.analytics.query(`SELECT id FROM profile_chunks WHERE profiler_id = 'prof-bad'`)).toEqual([]);
  });

  it('answers 401 UNAUTHORIZED without a key and 403 FORBIDDEN for a key without ingest:write', async () => {
    const anonymous = await fixture.server.api.post('/v1/profiles/chunks?profiler_id=prof-bad', { body: '{}' });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error.code).toBe('UNAUTHORIZED');
    const reader = await createKey(fixture.server.api, fixture.setup.session, fixture.setup.project.id, { type: 'secret', scopes: ['data:read'] });
    const forbidden = await postChunk('profiler_id=prof-bad', '{}', reader.key);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error.code).toBe('FORBIDDEN');
  });
});

function envelope(header: Record<string, unknown>, items: [Record<string, unknown>, string][]): Buffer {
  const lines = [JSON.stringify(header)];
  for (const [itemHeader, payload] of items) lines.push(JSON.stringify({ ...itemHeader, length: Buffer.byteLength(payload) }), payload);
  return Buffer.from(`${lines.join('\n')}\n`);
}

describe('Sentry profile_chunk envelope items', () => {
  it('stores the payload byte for byte with the profiler, chunk, platform, release and sample span it names', async () => {
    const chunkId = 'ab'.repeat(16);
    const payload = JSON.stringify(sentryChunk('cd'.repeat(16), chunkId, 4), null, 1);
    const reply = await fixture.server.api.post('/v1/envelope', {
      token: fixture.setup.publicKey,
      body: envelope({ sent_at: new Date().toISOString() }, [[{ type: 'profile_chunk', platform: 'node' }, payload]]),
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ accepted: 1, rejected: 0 });
    const [row] = await storedChunk(chunkId);
    expect(row).toMatchObject({
      profiler_id: 'cd'.repeat(16),
      profile_type: 'cpu',
      platform: 'node',
      release: 'api@2.0.0',
      environment: 'production',
      sample_count: 4,
      started_at: new Date(T0).toISOString(),
      ended_at: new Date(T0 + 30).toISOString(),
    });
    expect(blobOf(row!).toString()).toBe(payload);
  });

  it.each([
    ['no profiler_id', { chunk_id: 'c1' }, 'profile_chunk item: profiler_id is required'],
    ['a chunk_id that cannot be a key', { profiler_id: 'p1', chunk_id: '../x' }, 'profile_chunk item: chunk_id must be 1 to 128'],
  ])('rejects a chunk with %s and keeps the other items', async (_case, chunk, message) => {
    const reply = await fixture.server.api.post('/v1/envelope', {
      token: fixture.setup.publicKey,
      body: envelope({}, [
        [{ type: 'profile_chunk' }, JSON.stringify(chunk)],
        [{ type: 'analytics_event' }, JSON.stringify({ event: 'beside a bad profile' })],
      ]),
    });
    expect(reply.body).toMatchObject({ accepted: 1, rejected: 1 });
    expect(reply.body.errors).toEqual([{ index: 0, message: expect.stringContaining(message) }]);
  });
});
