import { gzipSync } from 'node:zlib';
import { createKey, denseBodyRefusal, eventually, serverWithProject } from '@tlm/testkit';

const CHROME_ON_MAC =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';

const fixture = serverWithProject();

async function storedLogs(where = 'TRUE', params: Record<string, string> = {}) {
  return fixture.server.standalone.analytics.query(
    `SELECT id, timestamp, severity, message, properties, trace_id FROM logs WHERE project_id = $project AND ${where} ORDER BY timestamp`,
    { project: fixture.setup.project.id, ...params },
  );
}

/** A batch of one log whose properties hold 100,000 `{}`: about 300 KB of JSON that gzips to a few hundred bytes. */
const denseBatch = (message: string) =>
  JSON.stringify({ batch: [{ severity: 'info', message, properties: { items: Array.from({ length: 100_000 }, () => ({})) } }] });

const sendLogs = (batch: unknown[], token = fixture.setup.secretKey, headers: Record<string, string> = {}) =>
  fixture.server.api.post('/v1/logs', { token, body: { batch }, headers });

describe('POST /v1/logs', () => {
  it('accepts a batch, stores every valid item and reports the invalid ones by index', async () => {
    const reply = await sendLogs([
      { severity: 'info', message: 'accepted one', properties: { route: '/checkout' } },
      { severity: 'loud', message: 'bad severity' },
      { message: 'no severity' },
      { severity: 'error', message: 'accepted two' },
    ]);
    expect(reply.status).toBe(202);
    expect(reply.body).toEqual({
      accepted: 2,
      rejected: 2,
      errors: [
        { index: 1, message: 'severity must be one of debug, info, warn, error, fatal, warning' },
        { index: 2, message: 'severity is required' },
      ],
    });
    const rows = await storedLogs(`message IN ('accepted one', 'accepted two', 'bad severity', 'no severity')`);
    expect(rows.map((row) => row['message']).sort()).toEqual(['accepted one', 'accepted two']);
  });

  it('flattens nested properties and the legacy metadata, context and code_location fields', async () => {
    const reply = await sendLogs([
      {
        severity: 'warning',
        message: 'legacy fields',
        metadata: { request_id: 'r-1', user: { plan: 'free' } },
        context: { region: 'eu' },
        code_location: { function: 'charge', file: 'billing.py', line: 42 },
        properties: { user: { plan: 'pro' }, amount: 12.5, tags: ['a', 'b'], empty: null },
      },
    ]);
    expect(reply.status).toBe(202);
    const [row] = await storedLogs(`message = 'legacy fields'`);
    expect(row!['severity']).toBe('warn');
    expect(JSON.parse(row!['properties'] as string)).toMatchObject({
      request_id: 'r-1',
      region: 'eu',
      code_location: 'charge@billing.py:42',
      'user.plan': 'pro',
      amount: 12.5,
      tags: ['a', 'b'],
    });
    expect(JSON.parse(row!['properties'] as string)).not.toHaveProperty('empty');
  });

  it('uses the item timestamp when given (no zone means UTC) and the server time otherwise', async () => {
    const before = Date.now();
    await sendLogs([
      { severity: 'info', message: 'timed with zone', timestamp: '2026-11-01T10:00:00.123+02:00' },
      { severity: 'info', message: 'timed without zone', timestamp: '2026-11-01T10:00:00' },
      { severity: 'info', message: 'untimed' },
    ]);
    const rows = await storedLogs(`message LIKE '%timed%'`);
    const byMessage = Object.fromEntries(rows.map((row) => [row['message'], row['timestamp']]));
    expect(byMessage['timed with zone']).toBe('2026-11-01T08:00:00.123Z');
    expect(byMessage['timed without zone']).toBe('2026-11-01T10:00:00.000Z');
    expect(Date.parse(byMessage['untimed'] as string)).toBeGreaterThanOrEqual(before - 1);
  });

  it('injects $browser, $os, $device and $ip from the User-Agent and the connection', async () => {
    await sendLogs([{ severity: 'info', message: 'from chrome' }], fixture.setup.secretKey, { 'user-agent': CHROME_ON_MAC });
    const [row] = await storedLogs(`message = 'from chrome'`);
    expect(JSON.parse(row!['properties'] as string)).toMatchObject({
      $browser: 'Chrome',
      $os: 'Mac OS',
      $device: 'Desktop',
      $ip: '127.0.0.1',
    });
  });

  it("keeps the User-Agent's browser and OS versions off an item that names its own browser and OS", async () => {
    const iphone =
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
    const reply = await sendLogs(
      [
        { severity: 'info', message: 'own os and browser', properties: { $os: 'Linux', $browser: 'Headless', $device: 'Server' } },
        { severity: 'info', message: 'os of the agent' },
      ],
      fixture.setup.secretKey,
      { 'user-agent': iphone },
    );
    expect(reply.body).toEqual({ accepted: 2, rejected: 0, errors: [] });
    const rows = await storedLogs(`message IN ('own os and browser', 'os of the agent')`);
    const byMessage = Object.fromEntries(rows.map((row) => [row['message'], JSON.parse(row['properties'] as string)]));
    expect(byMessage['own os and browser']).toEqual({ $os: 'Linux', $browser: 'Headless', $device: 'Server', $ip: '127.0.0.1' });
    expect(byMessage['os of the agent']).toEqual({
      $browser: 'Mobile Safari',
      $browser_version: '17.0',
      $os: 'iOS',
      $os_version: '17.0',
      $device: 'Mobile',
      $device_model: 'iPhone',
      $ip: '127.0.0.1',
    });
  });

  it('honours X-Forwarded-For from a trusted proxy (loopback by default)', async () => {
    await sendLogs([{ severity: 'info', message: 'via proxy' }], fixture.setup.secretKey, { 'x-forwarded-for': '203.0.113.9' });
    const [row] = await storedLogs(`message = 'via proxy'`);
    expect(JSON.parse(row!['properties'] as string)['$ip']).toBe('203.0.113.9');
  });

  it('gives items without a trace id the trace id of the traceparent header', async () => {
    await sendLogs([{ severity: 'info', message: 'traced' }], fixture.setup.secretKey, {
      traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
    });
    const [row] = await storedLogs(`message = 'traced'`);
    expect(row!['trace_id']).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
  });

  it.each([
    ['version ff', 'ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', null],
    ['an all-zero parent id', '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01', null],
    ['version 00 with more after the flags', '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra', null],
    ['a later version with more fields', 'cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra', '4bf92f3577b34da6a3ce929d0e0e4736'],
  ])('follows W3C Trace Context for a traceparent of %s', async (label, traceparent, traceId) => {
    const message = `traceparent ${label}`;
    await sendLogs([{ severity: 'info', message }], fixture.setup.secretKey, { traceparent });
    const [row] = await storedLogs(`message = '${message}'`);
    expect(row!['trace_id']).toBe(traceId);
  });

  it('rejects a message over 64 KB and keeps the rest of the batch', async () => {
    const reply = await sendLogs([
      { severity: 'info', message: 'x'.repeat(64 * 1024 + 1) },
      { severity: 'info', message: 'kept beside a huge one' },
      { severity: 'info', message: 'y'.repeat(64 * 1024) },
    ]);
    expect(reply.status).toBe(202);
    expect(reply.body).toEqual({ accepted: 2, rejected: 1, errors: [{ index: 0, message: 'message exceeds 65536 bytes' }] });
    expect(await storedLogs(`message = 'kept beside a huge one'`)).toHaveLength(1);
  });

  it('stores strings with a lone UTF-16 surrogate with U+FFFD in its place, beside clean items', async () => {
    const body = '{"batch":[{"severity":"info","message":"broken \\ud800 text","properties":{"k\\udc00":"v\\ud83d"}},' +
      '{"severity":"info","message":"emoji \\ud83d\\ude00 intact"}]}';
    const reply = await fixture.server.api.post('/v1/logs', { token: fixture.setup.secretKey, body, headers: { 'content-type': 'application/json' } });
    expect(reply.status).toBe(202);
    expect(reply.body.accepted).toBe(2);
    const rows = await storedLogs(`message LIKE 'broken%' OR message LIKE 'emoji%'`);
    const byMessage = Object.fromEntries(rows.map((row) => [row['message'], JSON.parse(row['properties'] as string)]));
    expect(Object.keys(byMessage).sort()).toEqual(['broken \uFFFD text', 'emoji \u{1F600} intact']);
    expect(byMessage['broken \uFFFD text']['k\uFFFD']).toBe('v\uFFFD');
  });

  it('accepts a gzip-compressed body', async () => {
    const body = gzipSync(JSON.stringify({ batch: [{ severity: 'debug', message: 'compressed' }] }));
    const reply = await fixture.server.api.post('/v1/logs', {
      token: fixture.setup.secretKey,
      body,
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    });
    expect(reply.status).toBe(202);
    expect(await storedLogs(`message = 'compressed'`)).toHaveLength(1);
  });

  it('accepts uncompressed JSON however many objects and arrays it opens per byte', async () => {
    const reply = await fixture.server.api.post('/v1/logs', {
      token: fixture.setup.secretKey,
      body: denseBatch('dense but uncompressed'),
      headers: { 'content-type': 'application/json' },
    });
    expect(reply.status).toBe(202);
    expect(reply.body).toEqual({ accepted: 1, rejected: 0, errors: [] });
    expect(await storedLogs(`message = 'dense but uncompressed'`)).toHaveLength(1);
  });
});

describe('POST /v1/logs refuses bad requests with the spec codes and stores nothing', () => {
  const marker = (label: string) => ({ severity: 'info', message: `refused ${label}` });

  async function expectNothingStored(label: string) {
    expect(await storedLogs(`message = $message`, { message: `refused ${label}` })).toHaveLength(0);
  }

  it('rejects a batch of 501 logs with 400 VALIDATION_ERROR', async () => {
    const reply = await sendLogs(Array.from({ length: 501 }, () => marker('501')));
    expect(reply.status).toBe(400);
    expect(reply.body.error).toEqual({
      code: 'VALIDATION_ERROR',
      message: 'batch holds 501 items; at most 500 are accepted per request',
      details: { limit: 500, received: 501 },
    });
    await expectNothingStored('501');
  });

  it('accepts exactly 500 logs', async () => {
    const reply = await sendLogs(Array.from({ length: 500 }, () => ({ severity: 'info', message: 'five hundred' })));
    expect(reply.status).toBe(202);
    expect(reply.body.accepted).toBe(500);
  });

  it('rejects a body that is not JSON with 400 VALIDATION_ERROR', async () => {
    const reply = await fixture.server.api.post('/v1/logs', { token: fixture.setup.secretKey, body: '{"batch": [', headers: { 'content-type': 'application/json' } });
    expect(reply.status).toBe(400);
    expect(reply.body.error).toEqual({ code: 'VALIDATION_ERROR', message: 'request body is not valid JSON' });
  });

  it('rejects a gzip body that does not inflate with 400 VALIDATION_ERROR', async () => {
    const whole = gzipSync(JSON.stringify({ batch: [marker('corrupt gzip')] }));
    for (const body of [Buffer.from('not gzip at all'), whole.subarray(0, whole.length - 12)]) {
      const reply = await fixture.server.api.post('/v1/logs', {
        token: fixture.setup.secretKey,
        body,
        headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      });
      expect(reply.status).toBe(400);
      expect(reply.body.error.code).toBe('VALIDATION_ERROR');
    }
    await expectNothingStored('corrupt gzip');
  });

  it('refuses a gzip body that inflates to more JSON objects and arrays than 32 per byte received with 400 VALIDATION_ERROR', async () => {
    const compressed = gzipSync(denseBatch('refused dense gzip'));
    const reply = await fixture.server.api.post('/v1/logs', {
      token: fixture.setup.secretKey,
      body: compressed,
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ error: { code: 'VALIDATION_ERROR', message: denseBodyRefusal(compressed.length) } });
    await expectNothingStored('dense gzip');
  });

  it.each([
    ['no batch', { logs: [{ severity: 'info', message: 'refused shape' }] }],
    ['a batch that is not an array', { batch: { severity: 'info', message: 'refused shape' } }],
    ['a bare array', [{ severity: 'info', message: 'refused shape' }]],
    ['null', null],
    ['a string', 'refused shape'],
  ])('rejects a body with %s with 400 VALIDATION_ERROR and stores nothing', async (label, body) => {
    const reply = await fixture.server.api.post('/v1/logs', {
      token: fixture.setup.secretKey,
      body: JSON.stringify(body),
      headers: { 'content-type': 'application/json' },
    });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ error: { code: 'VALIDATION_ERROR', message: 'request body must be a JSON object with a "batch" array' } });
    // Once a batch sent after it is stored, anything of the refused body would be too.
    const after = `after refused shape: ${label}`;
    expect((await sendLogs([{ severity: 'info', message: after }])).status).toBe(202);
    await eventually(async () => expect(await storedLogs(`message = $message`, { message: after })).toHaveLength(1));
    await expectNothingStored('shape');
  });

  it('rejects a body over 2 MB with 413 PAYLOAD_TOO_LARGE', async () => {
    const big = Array.from({ length: 40 }, () => ({ severity: 'info', message: `refused 2mb ${'z'.repeat(60_000)}` }));
    const reply = await sendLogs(big);
    expect(reply.status).toBe(413);
    expect(reply.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(await storedLogs(`message LIKE 'refused 2mb%'`)).toHaveLength(0);
  });

  it('answers 401 UNAUTHORIZED without a key', async () => {
    const reply = await fixture.server.api.post('/v1/logs', { body: { batch: [marker('no key')] } });
    expect(reply.status).toBe(401);
    expect(reply.body.error.code).toBe('UNAUTHORIZED');
    await expectNothingStored('no key');
  });

  it('answers 401 UNAUTHORIZED for a well-formed key that does not exist', async () => {
    const reply = await sendLogs([marker('unknown key')], 'tlm_sk_us_' + 'A'.repeat(32));
    expect(reply.status).toBe(401);
    expect(reply.body.error.code).toBe('UNAUTHORIZED');
    await expectNothingStored('unknown key');
  });

  it('answers 401 UNAUTHORIZED for a malformed key', async () => {
    const reply = await sendLogs([marker('malformed key')], 'not-a-key');
    expect(reply.status).toBe(401);
    expect(reply.body.error.code).toBe('UNAUTHORIZED');
  });

  it('answers 403 FORBIDDEN for a key without ingest:write', async () => {
    const reader = await createKey(fixture.server.api, fixture.setup.session, fixture.setup.project.id, { type: 'secret', scopes: ['data:read'] });
    const reply = await sendLogs([marker('read-only key')], reader.key);
    expect(reply.status).toBe(403);
    expect(reply.body.error.code).toBe('FORBIDDEN');
    await expectNothingStored('read-only key');
  });

  it("refuses logs from a public key with 403 'CORS blocked' unless the project allows browser logs", async () => {
    const reply = await sendLogs([marker('public key')], fixture.setup.publicKey);
    expect(reply.status).toBe(403);
    expect(reply.body.error).toEqual({ code: 'FORBIDDEN', message: "CORS blocked: enable 'Allow browser logs' for this project" });
    await expectNothingStored('public key');

    const allowed = await fixture.server.api.patch(`/api/orgs/${fixture.setup.session.organization.id}/projects/${fixture.setup.project.id}`, {
      token: fixture.setup.session.token,
      body: { allow_browser_logs: true },
    });
    expect(allowed.status).toBe(200);
    const accepted = await sendLogs([{ severity: 'info', message: 'browser log' }], fixture.setup.publicKey);
    expect(accepted.status).toBe(202);
    expect(await storedLogs(`message = 'browser log'`)).toHaveLength(1);
  });

  it('answers a CORS preflight on the ingest paths', async () => {
    const reply = await fixture.server.api.request('OPTIONS', '/v1/logs', {
      headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
    });
    expect(reply.status).toBe(204);
    expect(reply.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect(reply.headers.get('access-control-allow-headers')).toContain('Authorization');
    expect(reply.headers.get('access-control-allow-methods')).toContain('POST');
  });
});
