import { createKey, eventually, setupProject, startTestServer, type TestServer } from '@tlm/testkit';

/**
 * Inputs that once crashed the process, hung the issue counts or answered 500. The server runs
 * in this process, so a crash fails the suite; each case ends by checking that the server still answers.
 */
let server: TestServer;
let setup: Awaited<ReturnType<typeof setupProject>>;

beforeAll(async () => {
  server = await startTestServer();
  setup = await setupProject(server.api);
});
afterAll(() => server.close());

async function expectAlive() {
  expect((await server.api.get('/readyz')).status).toBe(200);
}

const deep = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

describe('bodies that crashed the process', () => {
  it('answers 400 VALIDATION_ERROR to a lone surrogate beside JSON nested 20,000 deep', async () => {
    const body = `{"a":"\\ud800","b":${deep(20_000)}}`;
    const reply = await server.api.post('/api/auth/login', { body, headers: { 'content-type': 'application/json' } });
    expect(reply.status).toBe(400);
    expect(reply.body.error).toEqual({ code: 'VALIDATION_ERROR', message: 'JSON nested more than 1000 levels deep' });
    await expectAlive();
  });

  it('answers 400 VALIDATION_ERROR to a multipart upload cut off inside its file part', async () => {
    const reply = await server.api.put('/v1/artifacts', {
      token: setup.secretKey,
      body: '--x\r\nContent-Disposition: form-data; name="file"; filename="a.map"\r\n\r\n{',
      headers: { 'content-type': 'multipart/form-data; boundary=x' },
    });
    expect(reply.status).toBe(400);
    expect(reply.body.error.code).toBe('VALIDATION_ERROR');
    await expectAlive();
  });

  it('answers 400 VALIDATION_ERROR to properties nested thousands deep, which no recursion survives', async () => {
    const body = `{"batch":[{"event":"deep","properties":{"a":${deep(20_000)}}}]}`;
    const reply = await server.api.post('/v1/events', { token: setup.secretKey, body, headers: { 'content-type': 'application/json' } });
    expect(reply.status).toBe(400);
    expect(reply.body.error).toEqual({ code: 'VALIDATION_ERROR', message: 'the request nests values too deeply' });
    await expectAlive();
  });
});

describe('NUL characters, which Postgres text cannot hold', () => {
  it('stores an error whose message holds NUL and counts it and the errors after it into their issues', async () => {
    const project = await setupProject(server.api);
    const envelope = (eventId: string, message: string) =>
      `{"event_id":"${eventId}"}\n{"type":"event"}\n${JSON.stringify({ event_id: eventId, message, user: { id: 'nul\u0000user' } })}\n`;
    for (const [eventId, message] of [['1'.repeat(32), 'before\u0000after'], ['2'.repeat(32), 'a plain one']]) {
      const sent = await server.api.post('/v1/envelope', { token: project.secretKey, body: envelope(eventId, message), headers: { 'content-type': 'application/x-sentry-envelope' } });
      expect(sent.status).toBe(200);
      expect(sent.body).toMatchObject({ accepted: 1, rejected: 0 });
    }
    const issues = async () =>
      (await server.api.post('/v1/gql/query', { token: project.secretKey, body: { q: 'from:issues | fields title, event_count, user_count | sort title' } })).body.data.results;
    await eventually(async () =>
      expect(await issues()).toEqual([
        { title: 'a plain one', event_count: 1, user_count: 1 },
        { title: 'before\ufffdafter', event_count: 1, user_count: 1 },
      ]),
    );
  });

  it('repairs NUL in dashboard JSON to U+FFFD and answers 404 for one in a path', async () => {
    const renamed = await server.api.patch(`/api/orgs/${setup.session.organization.id}/projects/${setup.project.id}`, {
      token: setup.session.token,
      body: { name: 'web\u0000shop' },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body.name).toBe('web\ufffdshop');
    const status = await server.api.get('/v1/status/%00');
    expect(status.status).toBe(404);
    expect(status.body.error.code).toBe('NOT_FOUND');
  });
});

describe('paths and names that answered 500', () => {
  it.each(['/v1/status/%FF', '/v1/status/%', '/v1/status/%C0%AF'])('answers 400 VALIDATION_ERROR to malformed percent-encoding: GET %s', async (path) => {
    const reply = await server.api.get(path);
    expect(reply.status).toBe(400);
    expect(reply.body.error).toEqual({ code: 'VALIDATION_ERROR', message: 'the path holds malformed percent-encoding' });
  });

  it('answers 400 VALIDATION_ERROR to malformed percent-encoding in a dashboard path', async () => {
    const reply = await server.api.get('/api/orgs/%FF', { token: setup.session.token });
    expect(reply.status).toBe(400);
    expect(reply.body.error.code).toBe('VALIDATION_ERROR');
  });

  it.each(['revoke', 'unrevoke', 'restore'])('answers 404 NOT_FOUND to %s of a key id that is not a UUID', async (action) => {
    const reply = await server.api.post(`/api/orgs/${setup.session.organization.id}/projects/${setup.project.id}/keys/nope/${action}`, {
      token: setup.session.token,
    });
    expect(reply.status).toBe(404);
    expect(reply.body.error.code).toBe('NOT_FOUND');
  });

  it('answers 404 NOT_FOUND to deleting a key id that is not a UUID', async () => {
    const reply = await server.api.delete(`/api/orgs/${setup.session.organization.id}/projects/${setup.project.id}/keys/nope`, { token: setup.session.token });
    expect(reply.status).toBe(404);
    expect(reply.body.error.code).toBe('NOT_FOUND');
  });

  it('skips envelope items whose type is the name of an Object property', async () => {
    const body = ['{}', '{"type":"constructor"}', '{}', '{"type":"__proto__"}', '{}', '{"type":"toString"}', '{}', ''].join('\n');
    const reply = await server.api.post('/v1/envelope', { token: setup.secretKey, body, headers: { 'content-type': 'application/x-sentry-envelope' } });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ accepted: 0, skipped: 3 });
  });

  it.each(['constructor:1', 'from:logs | count by __proto__', 'from:logs toString:x | count'])('reads %s as a property like any other', async (q) => {
    const reply = await server.api.post('/v1/gql/query', { token: setup.secretKey, body: { q } });
    expect(reply.status).toBe(200);
    expect(reply.body.data.results).toEqual(q.includes('| count') && !q.includes(' by ') ? [{ value: 0 }] : []);
  });

  it('rejects an event dated in year 0000, whose month Postgres cannot count, and keeps the usage counts going', async () => {
    const reply = await server.api.post('/v1/events', {
      token: setup.secretKey,
      body: { batch: [{ event: 'ancient', timestamp: '0000-01-01T00:00:00Z' }, { event: 'counted after' }] },
    });
    expect(reply.status).toBe(202);
    expect(reply.body).toMatchObject({ accepted: 1, rejected: 1, errors: [{ index: 0, message: 'timestamp must be a time after 1970' }] });
    await eventually(async () => expect((await server.api.get('/v1/info', { token: setup.secretKey })).body.usage).toMatchObject({ events: expect.any(Number) }));
  });

  it('repairs lone surrogates and NUL in PostHog captures to U+FFFD and stores the event', async () => {
    const reply = await server.api.post('/capture/', {
      body: `{"api_key":"${setup.publicKey}","event":"posthog\\ud83d","distinct_id":"d\\u0000x","properties":{"k\\ud800":"v\\u0000"}}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ status: 1 });
    const rows = await eventually(async () => {
      const found = await server.standalone.analytics.query('SELECT distinct_id, properties FROM events WHERE project_id = $p AND event_name = $e', {
        p: setup.project.id,
        e: 'posthog\ufffd',
      });
      expect(found).toHaveLength(1);
      return found;
    });
    expect(rows[0]!['distinct_id']).toBe('d\ufffdx');
    expect(JSON.parse(String(rows[0]!['properties']))).toMatchObject({ 'k\ufffd': 'v\ufffd' });
  });

  it('takes a PostHog offset larger than the time since 1970 as no offset', async () => {
    const reply = await server.api.post('/e/', {
      body: [{ event: 'offset', properties: { token: setup.publicKey, distinct_id: 'd' }, offset: 1e20 }],
      headers: { 'content-type': 'application/json' },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ status: 1 });
  });

  it('rejects a replay chunk whose events are dated 1e300 ms with 400 VALIDATION_ERROR', async () => {
    const events = JSON.stringify([{ type: 2, timestamp: 1e300, data: {} }]);
    const { gzipSync } = await import('node:zlib');
    const reply = await server.api.post('/v1/replay/chunks?session_id=far-future&seq=0', { token: setup.secretKey, body: gzipSync(events) });
    expect(reply.status).toBe(400);
    expect(reply.body.error).toEqual({ code: 'VALIDATION_ERROR', message: 'start_ts is more than 24 hours in the future' });
  });

  it('keeps working for a key that may only ingest', async () => {
    const key = await createKey(server.api, setup.session, setup.project.id, { type: 'secret', scopes: ['ingest:write'] });
    expect((await server.api.post('/v1/logs', { token: key.key, body: { batch: [{ severity: 'info', message: 'still here' }] } })).status).toBe(202);
    await expectAlive();
  });
});
