import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { deflateSync, gunzipSync, gzipSync } from 'node:zlib';
import { createKey, denseBodyRefusal, paddedGzip, serverWithProject, setupProject, startTestServer } from '@tlm/testkit';

const fixture = serverWithProject();

const T0 = Date.now() - 60_000;
const rrwebEvents = (count: number, start = T0) =>
  Array.from({ length: count }, (_, i) => ({ type: i === 0 ? 4 : 3, timestamp: start + i * 100, data: { source: 2, x: i, y: i } }));

const storedSessions = (sessionId: string, projectId = fixture.setup.project.id) =>
  fixture.server.standalone.analytics.query(`SELECT * FROM replay_sessions WHERE project_id = $project AND id = $id`, { project: projectId, id: sessionId });
const storedChunks = (sessionId: string) =>
  fixture.server.standalone.analytics.query(`SELECT * FROM replay_chunks WHERE project_id = $project AND session_id = $id ORDER BY seq`, {
    project: fixture.setup.project.id,
    id: sessionId,
  });
const blobFile = (key: string) => path.join(fixture.server.dataDir, 'blobs', key);

let sessions = 0;
const newSessionId = () => `sess-${process.pid}-${(sessions += 1)}`;

const postChunk = (query: string, body: Buffer | string, token = fixture.setup.secretKey, headers: Record<string, string> = {}) =>
  fixture.server.api.post(`/v1/replay/chunks?${query}`, { token, body, headers: { 'content-type': 'application/octet-stream', ...headers } });

describe('POST /v1/replay/sessions', () => {
  it('upserts a session: 200 {session_id}, one row that the newest upsert replaced', async () => {
    const sessionId = newSessionId();
    const first = await fixture.server.api.post('/v1/replay/sessions', {
      token: fixture.setup.secretKey,
      body: { session_id: sessionId, distinct_id: 'user-1', started_at: new Date(T0).toISOString(), url: 'https://shop.example/', user_agent: 'Agent/1' },
    });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ session_id: sessionId });
    const second = await fixture.server.api.post('/v1/replay/sessions', {
      token: fixture.setup.secretKey,
      body: { session_id: sessionId, distinct_id: 'user-1', started_at: T0, url: 'https://shop.example/cart', plan: 'pro', screen: { width: 1280 } },
      headers: { 'user-agent': 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36' },
    });
    expect(second.status).toBe(200);
    const rows = await storedSessions(sessionId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ distinct_id: 'user-1', started_at: new Date(T0).toISOString(), url: 'https://shop.example/cart' });
    expect(rows[0]!['user_agent']).toMatch(/^Mozilla\/5\.0/);
    expect(JSON.parse(rows[0]!['properties'] as string)).toMatchObject({ plan: 'pro', 'screen.width': 1280, $browser: 'Chrome', $ip: '127.0.0.1' });
  });

  it('accepts a public key', async () => {
    const reply = await fixture.server.api.post('/v1/replay/sessions', { token: fixture.setup.publicKey, body: { session_id: newSessionId(), started_at: T0 } });
    expect(reply.status).toBe(200);
  });

  it.each([
    ['no session_id', { started_at: T0 }, 'session_id is required'],
    ['no started_at', { session_id: 's-1' }, 'started_at is required'],
    ['a started_at that is no time', { session_id: 's-1', started_at: 'yesterday' }, 'started_at must be epoch milliseconds or an ISO 8601 date-time'],
    ['a started_at two days ahead', { session_id: 's-1', started_at: Date.now() + 2 * 86_400_000 }, 'started_at is more than 24 hours in the future'],
    ['a session_id with a slash', { session_id: 'a/b', started_at: T0 }, 'session_id must match pattern'],
    ['an array body', [{ session_id: 's-1', started_at: T0 }], 'request body must be a JSON object with session_id and started_at'],
  ])('answers 400 VALIDATION_ERROR for %s and stores nothing', async (_case, body, message) => {
    const reply = await fixture.server.api.post('/v1/replay/sessions', { token: fixture.setup.secretKey, body });
    expect(reply.status).toBe(400);
    expect(reply.body.error.code).toBe('VALIDATION_ERROR');
    expect(reply.body.error.message).toContain(message);
    expect(await storedSessions('s-1')).toEqual([]);
  });

  it('answers 400 VALIDATION_ERROR for a body that is not JSON', async () => {
    const reply = await fixture.server.api.post('/v1/replay/sessions', { token: fixture.setup.secretKey, body: '{"session_id":', headers: { 'content-type': 'application/json' } });
    expect(reply.status).toBe(400);
    expect(reply.body.error.code).toBe('VALIDATION_ERROR');
  });

  it('answers 401 UNAUTHORIZED without a key and 403 FORBIDDEN for a key without ingest:write', async () => {
    const anonymous = await fixture.server.api.post('/v1/replay/sessions', { body: { session_id: 's-2', started_at: T0 } });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error.code).toBe('UNAUTHORIZED');
    const reader = await createKey(fixture.server.api, fixture.setup.session, fixture.setup.project.id, { type: 'secret', scopes: ['data:read'] });
    const forbidden = await fixture.server.api.post('/v1/replay/sessions', { token: reader.key, body: { session_id: 's-2', started_at: T0 } });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error.code).toBe('FORBIDDEN');
  });
});

describe('POST /v1/replay/chunks', () => {
  it('stores a gzipped rrweb chunk: 202 {session_id, seq}, the body byte for byte in the blob store, its metadata as a row', async () => {
    const sessionId = newSessionId();
    const body = gzipSync(JSON.stringify(rrwebEvents(5)));
    const reply = await postChunk(`session_id=${sessionId}&seq=0&start_ts=${T0}&end_ts=${T0 + 5_000}&event_count=7`, body);
    expect(reply.status).toBe(202);
    expect(reply.body).toEqual({ session_id: sessionId, seq: 0 });
    const [row] = await storedChunks(sessionId);
    const day = new Date().toISOString().slice(0, 10);
    expect(row).toMatchObject({
      seq: 0,
      start_ts: new Date(T0).toISOString(),
      end_ts: new Date(T0 + 5_000).toISOString(),
      event_count: 7,
      size_bytes: body.length,
      blob_key: `${fixture.setup.project.id}/replays/${day}/${sessionId}/0`,
    });
    expect(readFileSync(blobFile(row!['blob_key'] as string)).equals(body)).toBe(true);
  });

  it('takes the time span and event count from the events when the parameters leave them out; ISO times work too', async () => {
    const sessionId = newSessionId();
    await postChunk(`session_id=${sessionId}&seq=3`, gzipSync(JSON.stringify(rrwebEvents(4))));
    await postChunk(`session_id=${sessionId}&seq=4&start_ts=${encodeURIComponent(new Date(T0).toISOString())}`, gzipSync(JSON.stringify(rrwebEvents(2, T0 + 10_000))));
    const rows = await storedChunks(sessionId);
    expect(rows.map((row) => [row['seq'], row['start_ts'], row['end_ts'], row['event_count']])).toEqual([
      [3, new Date(T0).toISOString(), new Date(T0 + 300).toISOString(), 4],
      [4, new Date(T0).toISOString(), new Date(T0 + 10_100).toISOString(), 2],
    ]);
  });

  it('derives the times of a chunk sent without start_ts and end_ts from its events, seconds and all, and reads it back', async () => {
    const sessionId = newSessionId();
    // As Sentry's replay SDK records: rrweb events in ms, its custom events (type 5) in float seconds.
    const events = [...rrwebEvents(3), { type: 5, timestamp: (T0 - 250) / 1000, data: { tag: 'performanceSpan', payload: { op: 'navigation.navigate' } } }];
    const reply = await postChunk(`session_id=${sessionId}&seq=0`, gzipSync(JSON.stringify(events)));
    expect(reply.status).toBe(202);
    const session = await fixture.server.api.get(`/v1/replay/sessions/${sessionId}`, { token: fixture.setup.secretKey });
    expect(session.status).toBe(200);
    expect(session.body.chunks).toEqual([
      { seq: 0, start_ts: new Date(T0 - 250).toISOString(), end_ts: new Date(T0 + 200).toISOString(), event_count: 4, size_bytes: expect.any(Number) },
    ]);
    const chunk = await fixture.server.api.get(`/v1/replay/sessions/${sessionId}/chunks/0`, { token: fixture.setup.secretKey });
    expect(chunk.status).toBe(200);
  });

  it('answers 400 VALIDATION_ERROR for a start_ts older than the retention, where no read would find the chunk, and stores nothing', async () => {
    const sessionId = newSessionId();
    const old = Date.now() - 400 * 86_400_000;
    const reply = await postChunk(`session_id=${sessionId}&seq=0&start_ts=${old}`, gzipSync(JSON.stringify(rrwebEvents(2))));
    expect(reply.status).toBe(400);
    expect(reply.body.error).toEqual({ code: 'VALIDATION_ERROR', message: expect.stringMatching(/^start_ts is older than the project's retention of \d+ days$/) });
    expect(await storedChunks(sessionId)).toEqual([]);
    const session = await fixture.server.api.get(`/v1/replay/sessions/${sessionId}`, { token: fixture.setup.secretKey });
    expect(session.status).toBe(404);
  });

  it('keeps a chunk labelled Content-Encoding: gzip as the gzip it is, byte for byte', async () => {
    const sessionId = newSessionId();
    const body = gzipSync(JSON.stringify(rrwebEvents(3)));
    const reply = await postChunk(`session_id=${sessionId}&seq=0`, body, fixture.setup.secretKey, { 'content-encoding': 'gzip' });
    expect(reply.status).toBe(202);
    const [row] = await storedChunks(sessionId);
    expect(readFileSync(blobFile(row!['blob_key'] as string)).equals(body)).toBe(true);
  });

  it('replaces a chunk sent again (a retry): one row, the newest body', async () => {
    const sessionId = newSessionId();
    await postChunk(`session_id=${sessionId}&seq=1`, gzipSync(JSON.stringify(rrwebEvents(1))));
    const again = gzipSync(JSON.stringify(rrwebEvents(6)));
    await postChunk(`session_id=${sessionId}&seq=1`, again);
    const rows = await storedChunks(sessionId);
    expect(rows).toHaveLength(1);
    expect(rows[0]!['event_count']).toBe(6);
    expect(readFileSync(blobFile(rows[0]!['blob_key'] as string)).equals(again)).toBe(true);
  });

  it('accepts a public key', async () => {
    const reply = await postChunk(`session_id=${newSessionId()}&seq=0`, gzipSync('[]'), fixture.setup.publicKey);
    expect(reply.status).toBe(202);
  });

  const gzipped = gzipSync(JSON.stringify(rrwebEvents(2)));
  it.each([
    ['no seq', 'session_id=s-bad', gzipped, 'seq is required'],
    ['an empty seq', 'session_id=s-bad&seq=', gzipped, 'seq is required'],
    ['a seq that is a word', 'session_id=s-bad&seq=first', gzipped, 'seq must be an integer from 0 to 2147483647'],
    ['a fractional seq', 'session_id=s-bad&seq=1.5', gzipped, 'seq must be an integer from 0 to 2147483647'],
    ['a negative seq', 'session_id=s-bad&seq=-1', gzipped, 'seq must be an integer from 0 to 2147483647'],
    ['a seq past 2^31', 'session_id=s-bad&seq=2147483648', gzipped, 'seq must be an integer from 0 to 2147483647'],
    ['two seqs', 'session_id=s-bad&seq=1&seq=2', gzipped, 'seq must be given once'],
    ['no session_id', 'seq=0', gzipped, 'session_id is required'],
    ['a session_id with a slash', `session_id=${encodeURIComponent('a/../b')}&seq=0`, gzipped, 'session_id must be 1 to 128'],
    ['a non-integer event_count', 'session_id=s-bad&seq=0&event_count=many', gzipped, 'event_count must be an integer from 0 to 2147483647'],
    ['a start_ts that is no time', 'session_id=s-bad&seq=0&start_ts=soon', gzipped, 'start_ts must be epoch milliseconds or an ISO 8601 date-time'],
    ['a start_ts Date.parse reads but ISO 8601 does not', 'session_id=s-bad&seq=0&start_ts=May%205%202026', gzipped, 'start_ts must be epoch milliseconds or an ISO 8601 date-time'],
    ['a start_ts on a day the month lacks', 'session_id=s-bad&seq=0&start_ts=2026-02-30T00:00:00Z', gzipped, 'start_ts must be epoch milliseconds or an ISO 8601 date-time'],
    ['a negative start_ts', 'session_id=s-bad&seq=0&start_ts=-5', gzipped, 'start_ts must be epoch milliseconds or an ISO 8601 date-time'],
    ['an end_ts before start_ts', `session_id=s-bad&seq=0&start_ts=${T0}&end_ts=${T0 - 1}`, gzipped, 'end_ts is before start_ts'],
    ['a start_ts two days ahead', `session_id=s-bad&seq=0&start_ts=${Date.now() + 2 * 86_400_000}`, gzipped, 'start_ts is more than 24 hours in the future'],
    ['a body that is not gzip', 'session_id=s-bad&seq=0', Buffer.from(JSON.stringify(rrwebEvents(2))), 'the body must be gzip'],
    ['an empty body', 'session_id=s-bad&seq=0', Buffer.alloc(0), 'the body must be gzip'],
    ['a truncated gzip body', 'session_id=s-bad&seq=0', gzipped.subarray(0, gzipped.length - 6), 'the body is not valid gzip or zlib data'],
    ['gzip of text that is not JSON', 'session_id=s-bad&seq=0', gzipSync('not json'), 'the recording is not JSON'],
    ['gzip of a JSON object', 'session_id=s-bad&seq=0', gzipSync('{"events":[]}'), 'the recording must be a JSON array of rrweb events'],
  ])('answers 400 VALIDATION_ERROR for %s and stores nothing', async (_case, query, body, message) => {
    const reply = await postChunk(query, body);
    expect(reply.status).toBe(400);
    expect(reply.body.error.code).toBe('VALIDATION_ERROR');
    expect(reply.body.error.message).toContain(message);
    expect(await storedChunks('s-bad')).toEqual([]);
  });

  it('answers 400 VALIDATION_ERROR for a gzip bomb that inflates past 100 MiB', async () => {
    const bomb = gzipSync(Buffer.alloc(101 * 1024 * 1024, ' '));
    const reply = await postChunk('session_id=s-bad&seq=0', bomb);
    expect(reply.status).toBe(400);
    expect(reply.body.error.message).toBe(`the recording inflates to more than ${100 * 1024 * 1024} bytes`);
  });

  it('answers 400 VALIDATION_ERROR for a gzip chunk that inflates to more JSON objects and arrays than 32 per byte received', async () => {
    // 100,000 `{}`: about 300 KB of JSON that gzips to a few hundred bytes.
    const compressed = gzipSync(`[${Array.from({ length: 100_000 }, () => '{}').join(',')}]`);
    const sessionId = newSessionId();
    const reply = await postChunk(`session_id=${sessionId}&seq=0`, compressed);
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ error: { code: 'VALIDATION_ERROR', message: denseBodyRefusal(compressed.length) } });
    expect(await storedChunks(sessionId)).toEqual([]);
  });

  it('answers 400 VALIDATION_ERROR for a recording of more than 5 million objects and arrays, before parsing it', async () => {
    // About 15 MB of `{},` (parsing 100 MiB of it held the server for a minute) after 240 KB of base64 that gzip cannot
    // shrink below 180 KB: enough bytes received for 5 million objects and arrays not to be too dense for them.
    const padding = randomBytes(180_000).toString('base64');
    const bomb = gzipSync(`[${JSON.stringify(padding)},${'{},'.repeat(5_000_000)}{}]`);
    expect(32 * bomb.length).toBeGreaterThan(5_000_002);
    const reply = await postChunk('session_id=s-bad&seq=0', bomb);
    expect(reply.status).toBe(400);
    expect(reply.body.error).toEqual({ code: 'VALIDATION_ERROR', message: 'the recording holds more than 5000000 JSON objects and arrays' });
    expect(await storedChunks('s-bad')).toEqual([]);
  });

  it('answers 413 PAYLOAD_TOO_LARGE for a body over 10 MiB', async () => {
    const reply = await postChunk('session_id=s-bad&seq=0', Buffer.alloc(10 * 1024 * 1024 + 1, 1));
    expect(reply.status).toBe(413);
    expect(reply.body.error).toEqual({ code: 'PAYLOAD_TOO_LARGE', message: 'replay chunk body exceeds 10485760 bytes (10 MiB)' });
  });

  it('answers 401 UNAUTHORIZED without a key and 403 FORBIDDEN for a key without ingest:write', async () => {
    const anonymous = await fixture.server.api.post('/v1/replay/chunks?session_id=s-bad&seq=0', { body: gzipped });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error.code).toBe('UNAUTHORIZED');
    const reader = await createKey(fixture.server.api, fixture.setup.session, fixture.setup.project.id, { type: 'secret', scopes: ['data:read'] });
    const forbidden = await postChunk('session_id=s-bad&seq=0', gzipped, reader.key);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error.code).toBe('FORBIDDEN');
  });

  it('answers a CORS preflight so browsers can send chunks', async () => {
    const reply = await fixture.server.api.request('OPTIONS', '/v1/replay/chunks', {
      headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' },
    });
    expect(reply.status).toBe(204);
    expect(reply.headers.get('access-control-allow-origin')).toBe('https://shop.example');
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

const replayId = () => `${process.pid.toString(16).padStart(8, '0')}${Date.now().toString(16).padStart(16, '0')}${(sessions += 1).toString(16).padStart(8, '0')}`;

const replayEvent = (id: string, segment: number) => ({
  type: 'replay_event',
  replay_id: id,
  event_id: id,
  segment_id: segment,
  replay_type: 'session',
  replay_start_timestamp: T0 / 1000,
  timestamp: (T0 + 5_000) / 1000,
  urls: segment === 0 ? ['https://shop.example/', 'https://shop.example/cart'] : [],
  request: { url: 'https://shop.example/cart', headers: { 'User-Agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/121.0' } },
  user: { id: 'user-42', email: 'u42@example.com' },
  release: 'web@1.2.3',
  environment: 'production',
  platform: 'javascript',
  sdk: { name: 'sentry.javascript.browser', version: '8.0.0' },
});

const recording = (segment: number, compressed: Buffer) => Buffer.concat([Buffer.from(`${JSON.stringify({ segment_id: segment })}\n`), compressed]);

const sendEnvelope = (body: Buffer, token = fixture.setup.publicKey) =>
  fixture.server.api.post('/v1/envelope', { token, body, headers: { 'content-type': 'application/x-sentry-envelope' } });

describe('Sentry replay_event and replay_recording envelope items', () => {
  it('stores the session of segment 0 and its gzipped recording byte for byte', async () => {
    const id = replayId();
    const events = JSON.stringify(rrwebEvents(3));
    const compressed = gzipSync(events);
    const reply = await sendEnvelope(
      envelope({ event_id: id, sent_at: new Date().toISOString() }, [
        [{ type: 'replay_event' }, JSON.stringify(replayEvent(id, 0))],
        [{ type: 'replay_recording' }, recording(0, compressed)],
      ]),
    );
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ accepted: 2, rejected: 0 });
    const [session] = await storedSessions(id);
    expect(session).toMatchObject({
      distinct_id: 'user-42',
      started_at: new Date(T0).toISOString(),
      url: 'https://shop.example/',
      user_agent: 'Mozilla/5.0 (X11; Linux x86_64) Firefox/121.0',
    });
    expect(JSON.parse(session!['properties'] as string)).toMatchObject({ replay_type: 'session', release: 'web@1.2.3', environment: 'production', sdk_name: 'sentry.javascript.browser' });
    const [chunk] = await storedChunks(id);
    expect(chunk).toMatchObject({ seq: 0, event_count: 3, start_ts: new Date(T0).toISOString(), end_ts: new Date(T0 + 200).toISOString() });
    expect(readFileSync(blobFile(chunk!['blob_key'] as string)).equals(compressed)).toBe(true);
  });

  it("takes the session's user agent from the request when the replay_event names none, as browser SDKs send it", async () => {
    const id = replayId();
    const { request: _request, ...withoutHeaders } = replayEvent(id, 0);
    const reply = await fixture.server.api.post('/v1/envelope', {
      token: fixture.setup.publicKey,
      body: envelope({ event_id: id }, [[{ type: 'replay_event' }, JSON.stringify(withoutHeaders)]]),
      headers: { 'content-type': 'application/x-sentry-envelope', 'user-agent': 'Mozilla/5.0 (Windows NT 10.0) Firefox/122.0' },
    });
    expect(reply.body).toMatchObject({ accepted: 1 });
    const [session] = await storedSessions(id);
    expect(session!['user_agent']).toBe('Mozilla/5.0 (Windows NT 10.0) Firefox/122.0');
  });

  it('stores zlib-compressed and plain JSON recordings as gzip of the same events', async () => {
    const id = replayId();
    const events = JSON.stringify(rrwebEvents(4));
    const reply = await sendEnvelope(
      envelope({ event_id: id }, [
        [{ type: 'replay_recording' }, recording(1, deflateSync(events))],
      ]),
    );
    expect(reply.body).toMatchObject({ accepted: 1, rejected: 0 });
    await sendEnvelope(envelope({ event_id: id }, [[{ type: 'replay_recording' }, recording(2, Buffer.from(events))]]));
    const chunks = await storedChunks(id);
    expect(chunks.map((chunk) => chunk['seq'])).toEqual([1, 2]);
    for (const chunk of chunks) expect(gunzipSync(readFileSync(blobFile(chunk['blob_key'] as string))).toString()).toBe(events);
  });

  it('acknowledges the replay_event of a later segment without replacing the session', async () => {
    const id = replayId();
    await sendEnvelope(envelope({ event_id: id }, [[{ type: 'replay_event' }, JSON.stringify(replayEvent(id, 0))]]));
    const later = await sendEnvelope(envelope({ event_id: id }, [[{ type: 'replay_event' }, JSON.stringify({ ...replayEvent(id, 1), request: {} })]]));
    expect(later.body).toMatchObject({ accepted: 1, rejected: 0 });
    const [session] = await storedSessions(id);
    expect(session!['url']).toBe('https://shop.example/');
  });

  it('takes replay items through the Sentry DSN route with X-Sentry-Auth', async () => {
    const id = replayId();
    const reply = await fixture.server.api.post(`/api/${fixture.setup.project.dsn_id}/envelope/`, {
      body: envelope({ event_id: id }, [[{ type: 'replay_recording' }, recording(0, gzipSync('[]'))]]),
      headers: { 'x-sentry-auth': `Sentry sentry_version=7, sentry_key=${fixture.setup.publicKey}`, 'content-type': 'application/x-sentry-envelope' },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ accepted: 1, rejected: 0 });
    expect(await storedChunks(id)).toHaveLength(1);
  });

  it.each([
    ['a recording without its header line', { event_id: 'a'.repeat(32) }, gzipSync('[]'), 'replay_recording item: expected a JSON header line with an integer segment_id'],
    ['a header line without segment_id', { event_id: 'b'.repeat(32) }, Buffer.concat([Buffer.from('{"segment":0}\n'), gzipSync('[]')]), 'integer segment_id'],
    ['an envelope that names no replay', {}, recording(0, gzipSync('[]')), 'replay_recording item: the envelope header must name the replay in event_id'],
    ['a recording of a JSON object', { event_id: 'c'.repeat(32) }, recording(0, gzipSync('{}')), 'replay_recording item: the recording must be a JSON array of rrweb events'],
  ])('rejects %s with its reason and keeps the other items', async (_case, header, payload, message) => {
    const reply = await sendEnvelope(
      envelope(header, [
        [{ type: 'replay_recording' }, payload],
        [{ type: 'analytics_event' }, JSON.stringify({ event: 'beside a bad recording' })],
      ]),
    );
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ accepted: 1, rejected: 1 });
    expect(reply.body.errors[0].index).toBe(0);
    expect(reply.body.errors[0].message).toContain(message);
  });

  it("rejects a recording whose own gzip is padded: the request's bytes received, not its inflated envelope, set the budget", async () => {
    const id = replayId();
    // 200 KB of gzip header comment that the envelope's own gzip shrinks to almost nothing.
    const padded = paddedGzip(`[${Array(100_000).fill('{}').join(',')}]`, 200_000);
    const body = gzipSync(envelope({ event_id: id }, [[{ type: 'replay_recording' }, recording(0, padded)]]));
    const reply = await fixture.server.api.post('/v1/envelope', {
      token: fixture.setup.publicKey,
      body,
      headers: { 'content-type': 'application/x-sentry-envelope', 'content-encoding': 'gzip' },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ accepted: 0, rejected: 1, errors: [{ index: 0, message: `replay_recording item: ${denseBodyRefusal(body.length)}` }] });
    expect(await storedChunks(id)).toEqual([]);
  });

  it('gives the recordings of one envelope one budget between them, not 10,000 objects and arrays each', async () => {
    const id = replayId();
    const nineThousand = gzipSync(`[${Array(8_999).fill('{}').join(',')}]`);
    const body = envelope({ event_id: id }, [0, 1, 2].map((segment) => [{ type: 'replay_recording' }, recording(segment, nineThousand)]));
    // Each recording opens 9,000, under the 10,000 any body may; two of them are more than this request's bytes allow.
    expect(Math.max(10_000, 32 * body.length)).toBeLessThan(2 * 9_000);
    const reply = await sendEnvelope(body);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      accepted: 1,
      rejected: 2,
      errors: [1, 2].map((index) => ({ index, message: `replay_recording item: ${denseBodyRefusal(body.length)}` })),
    });
    expect((await storedChunks(id)).map((chunk) => chunk['seq'])).toEqual([0]);
  });

  it('rejects a replay_event whose replay id cannot be a session id', async () => {
    const reply = await sendEnvelope(envelope({}, [[{ type: 'replay_event' }, JSON.stringify({ ...replayEvent('x/y', 0), event_id: undefined })]]));
    expect(reply.body).toMatchObject({ accepted: 0, rejected: 1 });
    expect(reply.body.errors[0].message).toContain('replay_event item: session_id must match pattern');
  });
});

describe('durability order', () => {
  it('answers 500 and publishes no row when the body cannot be stored', async () => {
    const broken = await startTestServer();
    try {
      const project = await setupProject(broken.api);
      // A file where the blob directory should be: every body write fails.
      rmSync(path.join(broken.dataDir, 'blobs'), { recursive: true, force: true });
      writeFileSync(path.join(broken.dataDir, 'blobs'), 'not a directory');
      const reply = await broken.api.post('/v1/replay/chunks?session_id=s-lost&seq=0', { token: project.secretKey, body: gzipSync('[]') });
      expect(reply.status).toBe(500);
      expect(reply.body.error.code).toBe('INTERNAL_ERROR');
      expect(await broken.standalone.analytics.query(`SELECT * FROM replay_chunks WHERE project_id = $project`, { project: project.project.id })).toEqual([]);
      expect(existsSync(path.join(broken.dataDir, 'blobs', project.project.id))).toBe(false);
    } finally {
      await broken.close();
    }
  });
});
