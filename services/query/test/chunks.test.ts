import { gunzipSync, gzipSync } from 'node:zlib';
import { setupProject, startTestServer, type TestServer } from '@tlm/testkit';

let server: TestServer;
let setup: Awaited<ReturnType<typeof setupProject>>;
let other: Awaited<ReturnType<typeof setupProject>>;

const NOW = Date.now();
const T0 = NOW - 3_600_000;
/** Free plan retention is 3 days; this is well past it. */
const LONG_AGO = NOW - 10 * 86_400_000;

const events = (count: number, start: number) => JSON.stringify(Array.from({ length: count }, (_, i) => ({ type: 3, timestamp: start + i * 1_000, data: {} })));

/** GET returning the raw bytes (the testkit client decodes text, which would hide a changed byte). */
async function getBytes(path: string, token: string): Promise<{ status: number; body: Buffer; contentType: string | null }> {
  const response = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, body: Buffer.from(await response.arrayBuffer()), contentType: response.headers.get('content-type') };
}

const upsert = (token: string, session: Record<string, unknown>) => server.api.post('/v1/replay/sessions', { token, body: session });
const sendChunk = (token: string, sessionId: string, seq: number, body: Buffer, extra = '') =>
  server.api.post(`/v1/replay/chunks?session_id=${sessionId}&seq=${seq}${extra}`, { token, body });

const chunkBodies = new Map<string, Buffer>();

beforeAll(async () => {
  server = await startTestServer();
  setup = await setupProject(server.api);
  other = await setupProject(server.api);
  for (const [id, startedAt, distinctId] of [
    ['older', T0, 'user-1'],
    ['newer', T0 + 60_000, 'user-2'],
    ['expired', LONG_AGO, 'user-1'],
  ] as const) {
    expect((await upsert(setup.publicKey, { session_id: id, distinct_id: distinctId, started_at: startedAt, url: `https://shop.example/${id}` })).status).toBe(200);
  }
  for (const seq of [0, 1, 2]) {
    // Compression level 1 makes bytes a re-compression at the default level would not reproduce.
    const body = gzipSync(events(3, T0 + seq * 5_000), { level: 1 });
    chunkBodies.set(`older/${seq}`, body);
    expect((await sendChunk(setup.publicKey, 'older', seq, body)).status).toBe(202);
  }
  // Past retention: refused, and the session stays unreadable.
  const expired = await sendChunk(setup.publicKey, 'expired', 0, gzipSync(events(1, LONG_AGO)));
  expect(expired.status).toBe(400);
  expect(expired.body.error.message).toMatch(/^the recording's events are older than the project's retention of \d+ days$/);
  expect((await upsert(other.publicKey, { session_id: 'theirs', started_at: T0 })).status).toBe(200);
  expect((await sendChunk(other.publicKey, 'theirs', 0, gzipSync(events(1, T0)))).status).toBe(202);
  expect((await sendChunk(other.publicKey, 'older', 0, gzipSync(events(2, T0)))).status).toBe(202);
});
afterAll(() => server.close());

describe('GET /v1/replay/sessions', () => {
  it("lists the key's project's sessions inside retention, newest first, with chunk counts and the end of the last chunk", async () => {
    const reply = await server.api.get('/v1/replay/sessions', { token: setup.secretKey });
    expect(reply.status).toBe(200);
    expect(reply.body.sessions).toEqual([
      expect.objectContaining({ session_id: 'newer', distinct_id: 'user-2', chunk_count: 0, ended_at: null }),
      expect.objectContaining({
        session_id: 'older',
        distinct_id: 'user-1',
        started_at: new Date(T0).toISOString(),
        url: 'https://shop.example/older',
        chunk_count: 3,
        ended_at: new Date(T0 + 10_000 + 2_000).toISOString(),
      }),
    ]);
    expect(reply.body.sessions[1].properties).toMatchObject({ $ip: '127.0.0.1' });
  });

  it('filters by distinct_id and honours limit', async () => {
    const byUser = await server.api.get('/v1/replay/sessions?distinct_id=user-1', { token: setup.secretKey });
    expect(byUser.body.sessions.map((session: { session_id: string }) => session.session_id)).toEqual(['older']);
    const limited = await server.api.get('/v1/replay/sessions?limit=1', { token: setup.secretKey });
    expect(limited.body.sessions.map((session: { session_id: string }) => session.session_id)).toEqual(['newer']);
  });

  it.each(['0', '1001', 'ten', '2.5'])('answers 400 VALIDATION_ERROR for limit=%s', async (limit) => {
    const reply = await server.api.get(`/v1/replay/sessions?limit=${limit}`, { token: setup.secretKey });
    expect(reply.status).toBe(400);
    expect(reply.body.error).toEqual({ code: 'VALIDATION_ERROR', message: 'query parameter limit must be an integer from 1 to 1000' });
  });

  it('answers 403 FORBIDDEN for a public key and 401 UNAUTHORIZED without a key', async () => {
    const publicKey = await server.api.get('/v1/replay/sessions', { token: setup.publicKey });
    expect(publicKey.status).toBe(403);
    expect(publicKey.body.error.code).toBe('FORBIDDEN');
    const anonymous = await server.api.get('/v1/replay/sessions');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error.code).toBe('UNAUTHORIZED');
  });
});

/** The chunk id rule in words, as a refusal states it. */
const ID_RULE = '1 to 128 letters, digits, ".", "_" or "-", not starting with "."';

describe('GET /v1/replay/sessions/:id', () => {
  it('returns the session and its chunks in order; another project with the same session id sees only its own', async () => {
    const reply = await server.api.get('/v1/replay/sessions/older', { token: setup.secretKey });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ session_id: 'older', distinct_id: 'user-1' });
    expect(reply.body.chunks.map((chunk: { seq: number; event_count: number }) => [chunk.seq, chunk.event_count])).toEqual([
      [0, 3],
      [1, 3],
      [2, 3],
    ]);
    expect(reply.body.chunks[0]).toEqual({
      seq: 0,
      start_ts: new Date(T0).toISOString(),
      end_ts: new Date(T0 + 2_000).toISOString(),
      event_count: 3,
      size_bytes: chunkBodies.get('older/0')!.length,
    });
    const theirs = await server.api.get('/v1/replay/sessions/older', { token: other.secretKey });
    expect(theirs.body).toMatchObject({ session_id: 'older', distinct_id: null, url: null });
    expect(theirs.body.chunks.map((chunk: { event_count: number }) => chunk.event_count)).toEqual([2]);
  });

  it("answers 404 NOT_FOUND for another project's session, an expired one and an unknown one", async () => {
    for (const id of ['theirs', 'expired', 'never-recorded']) {
      const reply = await server.api.get(`/v1/replay/sessions/${id}`, { token: setup.secretKey });
      expect([id, reply.status, reply.body.error.code]).toEqual([id, 404, 'NOT_FOUND']);
    }
  });
});

describe('GET /v1/replay/sessions/:id/chunks/:seq', () => {
  it('returns every chunk byte for byte as application/gzip', async () => {
    for (const seq of [0, 1, 2]) {
      const reply = await getBytes(`/v1/replay/sessions/older/chunks/${seq}`, setup.secretKey);
      expect(reply.status).toBe(200);
      expect(reply.contentType).toBe('application/gzip');
      expect(reply.body.equals(chunkBodies.get(`older/${seq}`)!)).toBe(true);
    }
    expect(JSON.parse(gunzipSync((await getBytes('/v1/replay/sessions/older/chunks/1', setup.secretKey)).body).toString())[0].timestamp).toBe(T0 + 5_000);
  });

  it("answers 404 NOT_FOUND for an unknown seq, another project's chunk and a chunk past retention", async () => {
    for (const path of ['/v1/replay/sessions/older/chunks/3', '/v1/replay/sessions/theirs/chunks/0', '/v1/replay/sessions/expired/chunks/0']) {
      const reply = await server.api.get(path, { token: setup.secretKey });
      expect([path, reply.status, reply.body.error.code]).toEqual([path, 404, 'NOT_FOUND']);
    }
  });

  it.each(['one', '-1', '1.5', '2147483648'])('answers 400 VALIDATION_ERROR for seq %s', async (seq) => {
    const reply = await server.api.get(`/v1/replay/sessions/older/chunks/${seq}`, { token: setup.secretKey });
    expect(reply.status).toBe(400);
    expect(reply.body.error).toEqual({ code: 'VALIDATION_ERROR', message: 'path parameter seq must be an integer from 0 to 2147483647' });
  });

  it('answers 400 VALIDATION_ERROR for a session id that cannot exist, on the session and on its chunks', async () => {
    for (const path of ['/v1/replay/sessions/a%20b/chunks/0', '/v1/replay/sessions/a%20b', '/v1/replay/sessions/.hidden', `/v1/replay/sessions/${'s'.repeat(129)}`]) {
      const reply = await server.api.get(path, { token: setup.secretKey });
      expect([path, reply.status, reply.body.error]).toEqual([path, 400, { code: 'VALIDATION_ERROR', message: `path parameter id must be ${ID_RULE}` }]);
    }
  });

  it('answers 403 FORBIDDEN for a public key', async () => {
    const reply = await server.api.get('/v1/replay/sessions/older/chunks/0', { token: setup.publicKey });
    expect(reply.status).toBe(403);
    expect(reply.body.error.code).toBe('FORBIDDEN');
  });
});

describe('profile chunk reads', () => {
  const bodies = new Map<string, string>();

  beforeAll(async () => {
    for (const [chunkId, profilerId, startedAt, release] of [
      ['c-1', 'prof-1', T0, ''],
      ['c-2', 'prof-1', T0 + 60_000, '&release=shop%401.2.0'],
      ['c-3', 'prof-2', T0 + 30_000, ''],
      ['c-old', 'prof-1', LONG_AGO, ''],
    ] as const) {
      const body = `{"chunk": "${chunkId}",  "samples": [[0, 1], [1, 2]] }\n`;
      bodies.set(chunkId, body);
      const reply = await server.api.post(`/v1/profiles/chunks?profiler_id=${profilerId}&chunk_id=${chunkId}&started_at=${startedAt}&sample_count=101${release}`, {
        token: setup.publicKey,
        body,
      });
      expect(reply.status).toBe(202);
    }
    await server.api.post('/v1/profiles/chunks?profiler_id=prof-1&chunk_id=c-theirs', { token: other.publicKey, body: '{}' });
  });

  it("lists a profiler's chunks inside retention, newest first", async () => {
    const reply = await server.api.get('/v1/profiles/chunks?profiler_id=prof-1', { token: setup.secretKey });
    expect(reply.status).toBe(200);
    expect(reply.body.chunks.map((chunk: { chunk_id: string }) => chunk.chunk_id)).toEqual(['c-2', 'c-1']);
    expect(reply.body.chunks[1]).toEqual({
      chunk_id: 'c-1',
      profiler_id: 'prof-1',
      profile_type: 'cpu',
      platform: null,
      release: null,
      environment: null,
      sample_count: 101,
      started_at: new Date(T0).toISOString(),
      ended_at: expect.any(String),
      size_bytes: Buffer.byteLength(bodies.get('c-1')!),
      received_at: expect.any(String),
    });
  });

  it("lists every profiler's chunks without profiler_id, and honours limit", async () => {
    const all = await server.api.get('/v1/profiles/chunks', { token: setup.secretKey });
    expect(all.body.chunks.map((chunk: { chunk_id: string }) => chunk.chunk_id)).toEqual(['c-2', 'c-3', 'c-1']);
    const limited = await server.api.get('/v1/profiles/chunks?limit=2', { token: setup.secretKey });
    expect(limited.body.chunks).toHaveLength(2);
  });

  it("lists a release's chunks with release", async () => {
    const reply = await server.api.get('/v1/profiles/chunks?release=shop%401.2.0', { token: setup.secretKey });
    expect(reply.body.chunks.map((chunk: { chunk_id: string; release: string }) => [chunk.chunk_id, chunk.release])).toEqual([['c-2', 'shop@1.2.0']]);
  });

  it('returns a chunk body byte for byte as application/json', async () => {
    const reply = await getBytes('/v1/profiles/chunks/c-3', setup.secretKey);
    expect(reply.status).toBe(200);
    expect(reply.contentType).toBe('application/json; charset=utf-8');
    expect(reply.body.toString()).toBe(bodies.get('c-3'));
  });

  it("answers 404 NOT_FOUND for an unknown chunk, another project's chunk and one past retention", async () => {
    for (const id of ['c-none', 'c-theirs', 'c-old']) {
      const reply = await server.api.get(`/v1/profiles/chunks/${id}`, { token: setup.secretKey });
      expect([id, reply.status, reply.body.error.code]).toEqual([id, 404, 'NOT_FOUND']);
    }
  });

  it('answers 400 VALIDATION_ERROR for a chunk id that cannot exist', async () => {
    for (const id of ['a%20b', '.c-1', 'c'.repeat(129)]) {
      const reply = await server.api.get(`/v1/profiles/chunks/${id}`, { token: setup.secretKey });
      expect([id, reply.status, reply.body.error]).toEqual([id, 400, { code: 'VALIDATION_ERROR', message: `path parameter chunk_id must be ${ID_RULE}` }]);
    }
  });

  it('answers 400 VALIDATION_ERROR for a malformed profiler_id filter or limit', async () => {
    for (const query of ['profiler_id=a%20b', 'limit=0']) {
      const reply = await server.api.get(`/v1/profiles/chunks?${query}`, { token: setup.secretKey });
      expect([query, reply.status, reply.body.error.code]).toEqual([query, 400, 'VALIDATION_ERROR']);
    }
  });

  it('answers 403 FORBIDDEN for a public key on both reads', async () => {
    for (const path of ['/v1/profiles/chunks?profiler_id=prof-1', '/v1/profiles/chunks/c-1']) {
      const reply = await server.api.get(path, { token: setup.publicKey });
      expect([path, reply.status, reply.body.error.code]).toEqual([path, 403, 'FORBIDDEN']);
    }
  });
});

describe('the same reads for members of the organization (the web app)', () => {
  const base = () => `/api/orgs/${setup.session.organization.id}/projects/${setup.project.id}`;

  it("answers a member's session with what the project's data:read key reads", async () => {
    for (const path of ['/replay/sessions', '/replay/sessions/older', '/profiles/chunks?profiler_id=prof-1']) {
      const asMember = await server.api.get(`${base()}${path}`, { token: setup.session.token });
      const asKey = await server.api.get(`/v1${path}`, { token: setup.secretKey });
      expect([path, asMember.status]).toEqual([path, 200]);
      expect(asMember.body).toEqual(asKey.body);
    }
    const chunk = await getBytes(`${base()}/replay/sessions/older/chunks/1`, setup.session.token);
    expect([chunk.status, chunk.contentType]).toEqual([200, 'application/gzip']);
    expect(chunk.body.equals(chunkBodies.get('older/1')!)).toBe(true);
  });

  it("answers 404 NOT_FOUND to someone outside the organization and 401 UNAUTHORIZED without a session", async () => {
    const outsider = await server.api.get(`${base()}/replay/sessions`, { token: other.session.token });
    expect([outsider.status, outsider.body.error.code]).toEqual([404, 'NOT_FOUND']);
    const anonymous = await server.api.get(`${base()}/profiles/chunks`);
    expect([anonymous.status, anonymous.body.error.code]).toEqual([401, 'UNAUTHORIZED']);
  });

  it("reads only the route's project: a key of another project gets nothing through it", async () => {
    const withKey = await server.api.get(`${base()}/replay/sessions`, { token: other.secretKey });
    expect(withKey.status).toBe(401);
    const theirs = await server.api.get(`${base()}/replay/sessions/theirs`, { token: setup.session.token });
    expect([theirs.status, theirs.body.error.code]).toEqual([404, 'NOT_FOUND']);
  });
});
