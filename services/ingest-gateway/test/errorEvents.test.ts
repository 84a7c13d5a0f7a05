import { deflateSync, gunzipSync, gzipSync } from 'node:zlib';
import { denseBodyRefusal, serverWithProject, setupProject, startTestServer, type TestServer } from '@tlm/testkit';

/** Envelope `event` items (Sentry error and message events) through both envelope routes, and their bad inputs. */
const fixture = serverWithProject();

type Item = { type: string; payload: unknown; withLength?: boolean };

/** An envelope: header line, then per item a header line (with `length` unless told otherwise) and the payload. */
function envelope(items: Item[], header: Record<string, unknown> = {}): Buffer {
  const parts: Buffer[] = [Buffer.from(`${JSON.stringify(header)}\n`)];
  for (const item of items) {
    const payload = Buffer.isBuffer(item.payload) ? item.payload : Buffer.from(typeof item.payload === 'string' ? item.payload : JSON.stringify(item.payload));
    const itemHeader = item.withLength === false ? { type: item.type } : { type: item.type, length: payload.length };
    parts.push(Buffer.from(`${JSON.stringify(itemHeader)}\n`), payload, Buffer.from('\n'));
  }
  return Buffer.concat(parts);
}

const sentryAuth = (key: string) => ({ 'x-sentry-auth': `Sentry sentry_key=${key}, sentry_version=7, sentry_client=test/1.0` });
const postSentry = (body: Buffer, key = fixture.setup.publicKey, dsnId = fixture.setup.project.dsn_id, headers: Record<string, string> = {}) =>
  fixture.server.api.post(`/api/${dsnId}/envelope/`, { body, headers: { 'content-type': 'application/x-sentry-envelope', ...sentryAuth(key), ...headers } });

const exceptionEvent = (value: string, extra: Record<string, unknown> = {}) => ({
  exception: { values: [{ type: 'TypeError', value, stacktrace: { frames: [{ function: 'pay', filename: 'src/pay.ts', lineno: 3, in_app: true }] } }] },
  platform: 'node',
  ...extra,
});

async function storedErrors(value: string) {
  return fixture.server.standalone.analytics.query(
    // A row names its stack (docs/decisions.md "Stacks are stored once"); GQL reads its frames the same way.
    `SELECT id, type, value, trace_id, coalesce(e.frames, s.frames) AS frames, extra
     FROM errors e LEFT JOIN (SELECT id AS stack_id, frames FROM stacks WHERE project_id = $project) s USING (stack_id)
     WHERE project_id = $project AND value = $value`,
    { project: fixture.setup.project.id, value },
  );
}

describe('envelope event items', () => {
  it('stores an event sent to /v1/envelope with a Bearer key, gzipped and without lengths, joined to the traceparent', async () => {
    const body = gzipSync(envelope([{ type: 'event', payload: exceptionEvent('bearer gzip'), withLength: false }], { event_id: 'f'.repeat(32) }));
    const reply = await fixture.server.api.post('/v1/envelope', {
      token: fixture.setup.secretKey,
      body,
      headers: { 'content-encoding': 'gzip', traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ id: 'f'.repeat(32), accepted: 1, rejected: 0, skipped: 0, errors: [] });
    expect(await storedErrors('bearer gzip')).toEqual([
      expect.objectContaining({ id: 'ffffffff-ffff-ffff-ffff-ffffffffffff', type: 'TypeError', trace_id: '4bf92f3577b34da6a3ce929d0e0e4736' }),
    ]);
  });

  it("stores an event under the envelope header's event_id when the payload names another, as the answer and attachments do", async () => {
    const headerId = 'a'.repeat(32);
    const reply = await postSentry(envelope([{ type: 'event', payload: exceptionEvent('two ids', { event_id: 'b'.repeat(32) }) }], { event_id: headerId }));
    expect(reply.body).toMatchObject({ id: headerId, accepted: 1 });
    const [row] = await storedErrors('two ids');
    expect(row!['id']).toBe('aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa');
  });

  it("answers with a fresh id, not the header's, when the header's event_id is not an event id", async () => {
    const reply = await postSentry(envelope([{ type: 'event', payload: exceptionEvent('bad header id', { event_id: '9'.repeat(32) }) }], { event_id: 'zz' }));
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ accepted: 1 });
    expect(reply.body.id).toMatch(/^[0-9a-f]{32}$/);
    const [row] = await storedErrors('bad header id');
    expect(row!['id']).toBe('99999999-9999-9999-9999-999999999999');
  });

  it("keeps each event's own id in an envelope of several, whatever the header's event_id", async () => {
    const reply = await postSentry(
      envelope(
        [
          { type: 'event', payload: exceptionEvent('several one', { event_id: '1'.repeat(32) }) },
          { type: 'event', payload: exceptionEvent('several two', { event_id: '2'.repeat(32) }) },
          { type: 'event', payload: exceptionEvent('several three') },
        ],
        { event_id: 'd'.repeat(32) },
      ),
    );
    expect(reply.body).toMatchObject({ accepted: 3 });
    const ids = await Promise.all(['several one', 'several two', 'several three'].map(async (value) => (await storedErrors(value))[0]!['id']));
    expect(ids.slice(0, 2)).toEqual(['11111111-1111-1111-1111-111111111111', '22222222-2222-2222-2222-222222222222']);
    expect(new Set(ids).size).toBe(3);
  });

  it("corrects a device clock 20 hours ahead from the envelope's sent_at", async () => {
    const ahead = Date.now() + 20 * 3_600_000;
    const reply = await postSentry(envelope([{ type: 'event', payload: exceptionEvent('clock ahead', { timestamp: (ahead - 600_000) / 1000 }) }], { sent_at: new Date(ahead).toISOString() }));
    expect(reply.body).toMatchObject({ accepted: 1 });
    const rows = await fixture.server.standalone.analytics.query(
      `SELECT epoch_ms(timestamp) AS at FROM errors WHERE project_id = $project AND value = 'clock ahead'`,
      { project: fixture.setup.project.id },
    );
    // Ten minutes before it was sent, by the server's clock (replacing it by the receive time would say now).
    const stored = Number(rows[0]!['at']);
    expect(Math.abs(stored - (Date.now() - 600_000))).toBeLessThan(60_000);
  });

  it('rejects a malformed envelope with 400 VALIDATION_ERROR and stores nothing', async () => {
    for (const body of [
      Buffer.from('not json\n{"type":"event"}\n{"message":"never stored"}\n'),
      Buffer.from('{}\n{"length":5}\n{"message":"never stored"}\n'),
      Buffer.from('{}\n{"type":"event","length":500}\n{"message":"never stored"}\n'),
    ]) {
      const reply = await postSentry(body);
      expect(reply.status).toBe(400);
      expect(reply.body.error.code).toBe('VALIDATION_ERROR');
      expect(reply.body.error.message).toMatch(/^malformed envelope: /);
    }
    expect(await storedErrors('never stored')).toEqual([]);
  });

  it('rejects a body that does not decompress as its Content-Encoding says with 400 VALIDATION_ERROR', async () => {
    const whole = gzipSync(envelope([{ type: 'event', payload: exceptionEvent('never stored, compressed') }]));
    for (const [encoding, body] of [
      ['gzip', Buffer.from('not gzip at all')],
      ['gzip', whole.subarray(0, 20)],
      ['deflate', Buffer.from('not deflate')],
      ['br', Buffer.from('not brotli')],
    ] as const) {
      const reply = await postSentry(body, undefined, undefined, { 'content-encoding': encoding });
      expect(reply.status).toBe(400);
      expect(reply.body.error.code).toBe('VALIDATION_ERROR');
      expect(reply.body.error.message).toMatch(/^request body does not decompress as its Content-Encoding says: /);
    }
    const bearer = await fixture.server.api.post('/v1/envelope', {
      token: fixture.setup.secretKey,
      body: Buffer.from('not gzip at all'),
      headers: { 'content-type': 'application/x-sentry-envelope', 'content-encoding': 'gzip' },
    });
    expect(bearer.status).toBe(400);
    expect(bearer.body.error.code).toBe('VALIDATION_ERROR');
    expect(await storedErrors('never stored, compressed')).toEqual([]);
  });

  it('refuses a gzipped envelope that inflates to more JSON objects and arrays than 32 per byte received, on both routes, and stores nothing', async () => {
    // About 300 KB of `{}` in 600 bytes of gzip: the bodies that held the event loop for seconds (docs/api.md "Compressed bodies").
    const dense = gzipSync(envelope([{ type: 'event', payload: `{"message":"never stored, dense","extra":{"a":[${Array(100_000).fill('{}').join(',')}]}}` }]));
    const refusal = { error: { code: 'VALIDATION_ERROR', message: `malformed envelope: ${denseBodyRefusal(dense.length)}` } };
    const sentry = await postSentry(dense, undefined, undefined, { 'content-encoding': 'gzip' });
    expect(sentry.status).toBe(400);
    expect(sentry.body).toEqual(refusal);
    const bearer = await fixture.server.api.post('/v1/envelope', {
      token: fixture.setup.secretKey,
      body: dense,
      headers: { 'content-type': 'application/x-sentry-envelope', 'content-encoding': 'gzip' },
    });
    expect(bearer.status).toBe(400);
    expect(bearer.body).toEqual(refusal);
    expect(await storedErrors('never stored, dense')).toEqual([]);
  });

  it('charges no JSON budget for an item of a type nobody stores: it is skipped, never parsed', async () => {
    const body = gzipSync(
      envelope([
        { type: 'event', payload: exceptionEvent('beside a dense unknown item') },
        { type: 'profile', payload: `{"samples":[${Array(100_000).fill('{}').join(',')}]}` },
      ]),
    );
    expect(32 * body.length).toBeLessThan(100_000);
    const reply = await fixture.server.api.post('/v1/envelope', {
      token: fixture.setup.secretKey,
      body,
      headers: { 'content-type': 'application/x-sentry-envelope', 'content-encoding': 'gzip' },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ accepted: 1, rejected: 1, skipped: 1 });
    expect(await storedErrors('beside a dense unknown item')).toHaveLength(1);
  });

  it('takes a gzipped envelope of 1,500 events: more objects and arrays than any body may open, but far fewer than 32 per byte', async () => {
    const items = Array.from({ length: 1_500 }, (_, i) => ({ type: 'event', payload: exceptionEvent(`bulk ${i}`) }));
    const body = gzipSync(envelope(items));
    expect(gunzipSync(body).toString('latin1').split(/[{[]/).length - 1).toBeGreaterThan(10_000);
    const reply = await fixture.server.api.post('/v1/envelope', {
      token: fixture.setup.secretKey,
      body,
      headers: { 'content-type': 'application/x-sentry-envelope', 'content-encoding': 'gzip' },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ accepted: 1_500, rejected: 0 });
    expect(await storedErrors('bulk 1499')).toHaveLength(1);
  });

  it('rejects an event item over 1 MiB and keeps the items beside it', async () => {
    const big = exceptionEvent('too big', { extra: { blob: 'x'.repeat(1024 * 1024) } });
    const reply = await postSentry(envelope([{ type: 'event', payload: big }, { type: 'event', payload: exceptionEvent('small neighbour') }]));
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ accepted: 1, rejected: 1, errors: [{ index: 0, message: 'event item exceeds 1048576 bytes' }] });
    expect(await storedErrors('too big')).toEqual([]);
    expect(await storedErrors('small neighbour')).toHaveLength(1);
  });

  it('rejects an event with neither an exception nor a message with a reason, keeping its neighbours', async () => {
    const reply = await postSentry(
      envelope([
        { type: 'event', payload: { level: 'error', tags: { only: 'tags' } } },
        { type: 'event', payload: { message: 'kept message' } },
        { type: 'event', payload: 'not json at all' },
      ]),
    );
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      accepted: 1,
      rejected: 2,
      errors: [
        { index: 0, message: 'event item: the event has neither an exception nor a message' },
        { index: 2, message: 'event item: the payload is not a JSON object' },
      ],
    });
    expect(await storedErrors('kept message')).toHaveLength(1);
  });

  it('truncates a stack of 10,000 frames to the innermost 250 instead of failing', async () => {
    const frames = Array.from({ length: 10_000 }, (_, index) => ({ function: `recurse${index}`, filename: 'src/tree.ts', lineno: index, in_app: true }));
    const reply = await postSentry(envelope([{ type: 'event', payload: { exception: { values: [{ type: 'RangeError', value: 'deep stack', stacktrace: { frames } }] } } }]));
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ accepted: 1, rejected: 0 });
    const [row] = await storedErrors('deep stack');
    const stored = JSON.parse(row!['frames'] as string) as { function: string }[];
    expect(stored).toHaveLength(250);
    expect(stored[249]!.function).toBe('recurse9999');
    expect(JSON.parse(row!['extra'] as string)['frames_omitted']).toBe(9_750);
  });

  it('keeps the source lines an SDK sends around a frame: the nearest five on each side, each cut at 300 characters', async () => {
    const before = ['function a() {', '  let x = 1;', '  let y = 2;', '  let z = 3;', '  const w = 4;', '  const v = 5;', `  const long = '${'x'.repeat(400)}';`];
    const after = ['  return v;', '}', '', 'export { a };', '// end', '// past the fifth'];
    const frame = { function: 'a', filename: 'src/a.ts', lineno: 8, in_app: true, context_line: "  throw new Error('context');", pre_context: before, post_context: after };
    const plain = { function: 'main', filename: 'src/main.ts', lineno: 1, in_app: true, pre_context: null };
    const reply = await postSentry(envelope([{ type: 'event', payload: { exception: { values: [{ type: 'Error', value: 'with context', stacktrace: { frames: [plain, frame] } }] } } }]));
    expect(reply.body).toMatchObject({ accepted: 1, rejected: 0 });
    const [row] = await storedErrors('with context');
    const [outer, inner] = JSON.parse(row!['frames'] as string) as Record<string, unknown>[];
    expect(inner!['pre_context']).toEqual([...before.slice(2, 6), `  const long = '${'x'.repeat(400)}';`.slice(0, 300)]);
    expect(inner!['post_context']).toEqual(after.slice(0, 5));
    expect(inner!['context_line']).toBe("  throw new Error('context');");
    // A frame without them stores neither.
    expect(Object.keys(outer!)).not.toContain('pre_context');
    expect(Object.keys(outer!)).not.toContain('post_context');
    // Lines that are not text are refused as a bad event, with the reason.
    const bad = await postSentry(envelope([{ type: 'event', payload: { exception: { values: [{ type: 'Error', value: 'bad context', stacktrace: { frames: [{ ...frame, pre_context: [1, 2] }] } }] } } }]));
    expect(bad.body).toMatchObject({ accepted: 0, rejected: 1 });
    expect(await storedErrors('bad context')).toEqual([]);
  });

  it('stores an event whose breadcrumb time is beyond what a Date holds, with no time on that breadcrumb', async () => {
    const breadcrumbs = [{ message: 'far future', timestamp: 1e14 }, { message: 'on time', timestamp: 1_777_000_000 }];
    const reply = await postSentry(envelope([{ type: 'event', payload: exceptionEvent('far breadcrumb', { breadcrumbs }) }]));
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ accepted: 1, rejected: 0 });
    const [row] = await fixture.server.standalone.analytics.query('SELECT breadcrumbs FROM errors WHERE project_id = $project AND value = $value', {
      project: fixture.setup.project.id,
      value: 'far breadcrumb',
    });
    expect(JSON.parse(row!['breadcrumbs'] as string)).toEqual([
      { message: 'far future' },
      { message: 'on time', timestamp: new Date(1_777_000_000_000).toISOString() },
    ]);
  });

  it("answers 401 UNAUTHORIZED when the DSN id is not the key's project", async () => {
    const other = await setupProject(fixture.server.api);
    const reply = await postSentry(envelope([{ type: 'event', payload: exceptionEvent('wrong project') }]), fixture.setup.publicKey, other.project.dsn_id);
    expect(reply.status).toBe(401);
    expect(reply.body.error.code).toBe('UNAUTHORIZED');
    expect(await storedErrors('wrong project')).toEqual([]);
  });

  it('authenticates from ?sentry_key= and from the dsn in the envelope header', async () => {
    const body = envelope([{ type: 'event', payload: exceptionEvent('query key') }]);
    const byQuery = await fixture.server.api.post(`/api/${fixture.setup.project.dsn_id}/envelope/?sentry_key=${fixture.setup.publicKey}&sentry_version=7`, { body });
    expect(byQuery.status).toBe(200);
    const dsn = `http://${fixture.setup.publicKey}@127.0.0.1/${fixture.setup.project.dsn_id}`;
    const byHeader = await fixture.server.api.post(`/api/${fixture.setup.project.dsn_id}/envelope/`, { body: envelope([{ type: 'event', payload: exceptionEvent('header dsn') }], { dsn }) });
    expect(byHeader.status).toBe(200);
    expect(await storedErrors('query key')).toHaveLength(1);
    expect(await storedErrors('header dsn')).toHaveLength(1);
  });
});

describe('envelope rate limits', () => {
  let limited: TestServer;
  beforeAll(async () => {
    limited = await startTestServer({ RATE_LIMIT_ENABLED: 'true' });
  });
  afterAll(() => limited.close());

  it('authenticates from an Authorization: Sentry header, as Sentry does beside X-Sentry-Auth', async () => {
    const reply = await fixture.server.api.post(`/api/${fixture.setup.project.dsn_id}/envelope/`, {
      body: envelope([{ type: 'event', payload: exceptionEvent('authorization header') }]),
      headers: { 'content-type': 'application/x-sentry-envelope', authorization: `Sentry sentry_key=${fixture.setup.publicKey}, sentry_version=7` },
    });
    expect(reply.status).toBe(200);
    expect(await storedErrors('authorization header')).toHaveLength(1);
  });

  it("takes one event as JSON at Sentry's legacy /api/:dsn_id/store/, as older SDKs send it", async () => {
    const event = exceptionEvent('legacy store', { event_id: 'c'.repeat(32) });
    const reply = await fixture.server.api.post(`/api/${fixture.setup.project.dsn_id}/store/`, {
      body: gzipSync(JSON.stringify(event)),
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip', ...sentryAuth(fixture.setup.publicKey) },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ id: 'c'.repeat(32), accepted: 1 });
    expect(await storedErrors('legacy store')).toEqual([expect.objectContaining({ id: 'cccccccc-cccc-cccc-cccc-cccccccccccc' })]);
    const notJson = await fixture.server.api.post(`/api/${fixture.setup.project.dsn_id}/store/`, { body: '{"exception": ', headers: sentryAuth(fixture.setup.publicKey) });
    expect(notJson.status).toBe(400);
    expect(notJson.body.error.code).toBe('VALIDATION_ERROR');
    const wrongProject = await fixture.server.api.post(`/api/${fixture.setup.project.dsn_id + 1}/store/`, { body: JSON.stringify(event), headers: sentryAuth(fixture.setup.publicKey) });
    expect(wrongProject.status).toBe(401);
    const keyless = await fixture.server.api.post(`/api/${fixture.setup.project.dsn_id}/store/`, { body: JSON.stringify(event) });
    expect(keyless.status).toBe(401);
    expect(keyless.body.error.code).toBe('UNAUTHORIZED');
    const huge = exceptionEvent('x'.repeat(1024 * 1024));
    const tooLarge = await fixture.server.api.post(`/api/${fixture.setup.project.dsn_id}/store/`, { body: JSON.stringify(huge), headers: sentryAuth(fixture.setup.publicKey) });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body.error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('takes a store body of base64 text, zlib-deflated or not, as raven-node, raven-ruby and raven-php send it', async () => {
    // What raven-node 2.6.4 sent: base64 of zlib-deflated JSON, Content-Type application/octet-stream, no Content-Encoding.
    const ravenEvent = {
      event_id: 'd'.repeat(32),
      message: 'TypeError: raven boom',
      exception: [{ type: 'TypeError', value: 'raven boom', stacktrace: { frames: [{ filename: '/srv/app.js', lineno: 3, colno: 25, function: 'boom', in_app: true, module: 'app' }] } }],
      timestamp: '2026-11-25T19:39:43',
      platform: 'node',
      release: 'raven@1',
    };
    const store = (body: string) =>
      fixture.server.api.post(`/api/${fixture.setup.project.dsn_id}/store/`, {
        body,
        headers: {
          'content-type': 'application/octet-stream',
          'x-sentry-auth': `Sentry sentry_version=5, sentry_timestamp=1795635583689, sentry_client=raven-node/2.6.4, sentry_key=${fixture.setup.publicKey}`,
        },
      });
    const deflated = await store(deflateSync(JSON.stringify(ravenEvent)).toString('base64'));
    expect(deflated.status).toBe(200);
    expect(deflated.body).toMatchObject({ id: 'd'.repeat(32), accepted: 1, rejected: 0 });
    expect(await storedErrors('raven boom')).toEqual([expect.objectContaining({ id: 'dddddddd-dddd-dddd-dddd-dddddddddddd', type: 'TypeError' })]);

    const plain = await store(Buffer.from(JSON.stringify({ ...ravenEvent, event_id: 'e'.repeat(32), exception: undefined, message: 'base64 json' })).toString('base64'));
    expect(plain.body).toMatchObject({ id: 'e'.repeat(32), accepted: 1 });
    expect(await storedErrors('base64 json')).toHaveLength(1);

    const notEvent = await store(Buffer.from('not an event at all').toString('base64'));
    expect(notEvent.status).toBe(400);
    expect(notEvent.body.error.code).toBe('VALIDATION_ERROR');
    const bomb = await store(deflateSync(JSON.stringify({ message: 'x'.repeat(2 * 1024 * 1024) })).toString('base64'));
    expect(bomb.status).toBe(413);
    expect(bomb.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    // Under the size limit, but denser than the base64 text it came in allows; and the same event as a gzip body.
    const denseEvent = `{"message":"never stored, dense store","extra":{"a":[${Array(100_000).fill('{}').join(',')}]}}`;
    const denseText = deflateSync(denseEvent).toString('base64');
    const dense = await store(denseText);
    expect(dense.status).toBe(400);
    expect(dense.body).toEqual({ error: { code: 'VALIDATION_ERROR', message: `malformed event: ${denseBodyRefusal(denseText.length)}` } });
    const gzipped = gzipSync(denseEvent);
    const encoded = await fixture.server.api.post(`/api/${fixture.setup.project.dsn_id}/store/`, {
      body: gzipped,
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip', ...sentryAuth(fixture.setup.publicKey) },
    });
    expect(encoded.status).toBe(400);
    expect(encoded.body).toEqual({ error: { code: 'VALIDATION_ERROR', message: denseBodyRefusal(gzipped.length) } });
    // zlib that trails 30 KB of zeros, in base64, gzipped: the bytes received, not the base64 text, set the budget.
    const padded = gzipSync(Buffer.concat([deflateSync(denseEvent), Buffer.alloc(30_000)]).toString('base64'));
    const twoLayers = await fixture.server.api.post(`/api/${fixture.setup.project.dsn_id}/store/`, {
      body: padded,
      headers: { 'content-type': 'application/octet-stream', 'content-encoding': 'gzip', ...sentryAuth(fixture.setup.publicKey) },
    });
    expect(twoLayers.status).toBe(400);
    expect(twoLayers.body).toEqual({ error: { code: 'VALIDATION_ERROR', message: `malformed event: ${denseBodyRefusal(padded.length)}` } });
    expect(await storedErrors('never stored, dense store')).toEqual([]);
  });

  it('answers 429 RATE_LIMITED with Retry-After and X-Sentry-Rate-Limits over the free plan rate', async () => {
    const project = await setupProject(limited.api);
    const body = envelope([{ type: 'event', payload: { message: 'burst' } }]);
    const send = () =>
      limited.api.post(`/api/${project.project.dsn_id}/envelope/`, { body, headers: sentryAuth(project.publicKey) });
    expect((await send()).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1_000 - (Date.now() % 1_000) + 20));
    const replies = await Promise.all(Array.from({ length: 15 }, send));
    const rejected = replies.filter((reply) => reply.status === 429);
    expect(rejected.length).toBeGreaterThanOrEqual(5);
    for (const reply of rejected) {
      expect(reply.body.error.code).toBe('RATE_LIMITED');
      expect(reply.headers.get('retry-after')).toBe('1');
      expect(reply.headers.get('x-sentry-rate-limits')).toBe('1::organization');
    }
    // A browser SDK reads them only if CORS exposes them.
    const fromBrowser = await Promise.all(
      Array.from({ length: 15 }, () =>
        limited.api.post(`/api/${project.project.dsn_id}/envelope/`, { body, headers: { ...sentryAuth(project.publicKey), origin: 'https://app.example.com' } }),
      ),
    );
    const limitedInBrowser = fromBrowser.find((reply) => reply.status === 429)!;
    expect(limitedInBrowser.headers.get('access-control-expose-headers')?.toLowerCase().split(',').map((name) => name.trim())).toEqual(
      expect.arrayContaining(['x-sentry-rate-limits', 'retry-after']),
    );
  });
});
