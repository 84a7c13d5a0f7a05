import { createKey, eventually, setupProject, signup, startTestServer, type TestServer } from '@tlm/testkit';

let server: TestServer;
let projectA: Awaited<ReturnType<typeof setupProject>>;
let projectB: Awaited<ReturnType<typeof setupProject>>;

const query = (q: unknown, token = projectA.secretKey) => server.api.post('/v1/gql/query', { token, body: { q } });
const dashboard = (path: string, token = projectA.session.token, project = projectA) =>
  server.api.get(`/api/orgs/${project.session.organization.id}/projects/${project.project.id}${path}`, { token });

beforeAll(async () => {
  server = await startTestServer();
  projectA = await setupProject(server.api);
  projectB = await setupProject(server.api);
  const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();
  const logsA = await server.api.post('/v1/logs', {
    token: projectA.secretKey,
    body: {
      batch: [
        { severity: 'error', message: 'Payment FAILED for order 42', timestamp: minutesAgo(5), properties: { route: '/checkout', user: { plan: 'pro' }, amount: 12.5 } },
        { severity: 'error', message: 'payment failed: card declined', timestamp: minutesAgo(15), properties: { route: '/checkout', user: { plan: 'free' }, amount: 3 } },
        { severity: 'warn', message: 'slow query', timestamp: minutesAgo(25), properties: { route: '/search', amount: 40 } },
        { severity: 'info', message: 'user signed in', timestamp: minutesAgo(65), properties: { route: '/login' } },
      ],
    },
  });
  expect(logsA.status).toBe(202);
  const eventsA = await server.api.post('/v1/events', {
    token: projectA.publicKey,
    body: {
      batch: [
        { event: 'signup', distinctId: 'u1', properties: { plan: 'pro' } },
        { event: 'signup', distinctId: 'u2', properties: { plan: 'free' } },
        { event: 'pageview', distinctId: 'u1', properties: { path: '/' } },
      ],
    },
  });
  expect(eventsA.status).toBe(202);
  const logsB = await server.api.post('/v1/logs', {
    token: projectB.secretKey,
    body: { batch: [{ severity: 'error', message: 'PROJECT-B secret payment failed', properties: { route: '/checkout', amount: 999 } }] },
  });
  expect(logsB.status).toBe(202);
  await eventually(async () => {
    expect((await query('count')).body.data.results).toEqual([{ value: 4 }]);
    expect((await query('from:events | count')).body.data.results).toEqual([{ value: 3 }]);
    expect((await query('count', projectB.secretKey)).body.data.results).toEqual([{ value: 1 }]);
  });
});
afterAll(() => server.close());

describe('POST /v1/gql/query', () => {
  it('answers an aggregate with the query shape and data {mode, table, results, total_groups}', async () => {
    const reply = await query('severity:error | count by route | top 10');
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      query: {
        source: 'logs',
        mode: 'aggregate',
        filters: [{ field: 'severity', op: '=', value: 'error' }],
        pipeline: [{ type: 'aggregate', func: 'count', field: null, group_by: ['route'] }],
        time_range: null,
        sort: [{ field: 'value', direction: 'desc' }],
        limit: 10,
        fields: null,
        interval: null,
      },
      data: { mode: 'aggregate', table: 'logs', results: [{ route: '/checkout', value: 2 }], total_groups: 1 },
    });
  });

  it('answers a full-text search with ISO times and properties as objects, newest first', async () => {
    const reply = await query('"payment failed" last:24h limit:20');
    expect(reply.status).toBe(200);
    expect(reply.body.data.mode).toBe('search');
    expect(reply.body.data.results.map((row: { message: string }) => row.message)).toEqual(['Payment FAILED for order 42', 'payment failed: card declined']);
    const [newest] = reply.body.data.results;
    expect(newest).toEqual({
      timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      id: expect.any(String),
      severity: 'error',
      message: 'Payment FAILED for order 42',
      properties: expect.objectContaining({ route: '/checkout', 'user.plan': 'pro', amount: 12.5 }),
      trace_id: null,
      span_id: null,
    });
  });

  it('answers events, time series and numeric aggregates over properties', async () => {
    expect((await query('from:events | count by event_name | top 10 | last:30d')).body.data).toEqual({
      mode: 'aggregate',
      table: 'events',
      results: [
        { event_name: 'signup', value: 2 },
        { event_name: 'pageview', value: 1 },
      ],
      total_groups: 2,
    });
    expect((await query('from:events | count_distinct(distinct_id) | last:1d')).body.data.results).toEqual([{ value: 2 }]);
    const series = (await query('count by time(1h) | last 3h')).body.data;
    expect(series.results.reduce((sum: number, row: { value: number }) => sum + row.value, 0)).toBe(4);
    expect(series.results.every((row: { time: string }) => row.time.endsWith(':00:00.000Z'))).toBe(true);
    expect((await query('max(amount) by route | sort value desc | limit 1')).body.data.results).toEqual([{ route: '/search', value: 40 }]);
  });

  it('rejects a parse error with 400 VALIDATION_ERROR and its position', async () => {
    const reply = await query('from:logs | count by');
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({
      error: {
        code: 'VALIDATION_ERROR',
        message: "expected a field name after 'count by' at column 21",
        details: { offset: 20, line: 1, column: 21, expected: ['a field name'] },
      },
    });
  });

  it('rejects an unknown source with 422 VALIDATION_ERROR', async () => {
    const reply = await query('from:nowhere | count');
    expect(reply.status).toBe(422);
    expect(reply.body.error).toEqual({
      code: 'VALIDATION_ERROR',
      message: "unknown source 'nowhere' (sources: logs, events, errors, issues, alerts, alert_events, spans, vitals, sessions) at column 6",
      details: { offset: 5, line: 1, column: 6 },
    });
  });

  it('rejects a numeric function on a text field with 422', async () => {
    const reply = await query('avg(message)');
    expect(reply.status).toBe(422);
    expect(reply.body.error.message).toBe('avg() needs a numeric field; message holds text at column 5');
  });

  it('answers the sources that are empty until their issues fill them', async () => {
    for (const text of ['from:errors level:fatal | count by release | last:7d', 'from:issues status:unresolved | last:7d', 'from:alerts', 'from:alert_events | last 7d | sort triggered_at desc | limit 20']) {
      const reply = await query(text);
      expect(reply.status).toBe(200);
      expect(reply.body.data.results).toEqual([]);
    }
  });

  it('rejects a body without q with 400 VALIDATION_ERROR', async () => {
    const reply = await server.api.post('/v1/gql/query', { token: projectA.secretKey, body: { query: 'count' } });
    expect(reply.status).toBe(400);
    expect(reply.body.error).toEqual({ code: 'VALIDATION_ERROR', message: 'request body: q is required' });
  });
});

describe('POST /v1/gql (batch)', () => {
  it('answers each query in order; a failing query fails only its own entry', async () => {
    const reply = await server.api.post('/v1/gql', {
      token: projectA.secretKey,
      body: { queries: ['count', 'count by', 'from:nowhere', 'from:events | count', 42] },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual([
      { status: 'ok', query: expect.objectContaining({ mode: 'aggregate' }), data: { mode: 'aggregate', table: 'logs', results: [{ value: 4 }], total_groups: 1 } },
      {
        status: 'error',
        error: "expected a field name after 'count by' at column 9",
        details: { offset: 8, line: 1, column: 9, expected: ['a field name'] },
      },
      {
        status: 'error',
        error: "unknown source 'nowhere' (sources: logs, events, errors, issues, alerts, alert_events, spans, vitals, sessions) at column 6",
        details: { offset: 5, line: 1, column: 6 },
      },
      { status: 'ok', query: expect.objectContaining({ source: 'events' }), data: expect.objectContaining({ results: [{ value: 3 }] }) },
      { status: 'error', error: 'query 4 is not a string' },
    ]);
  });

  it('accepts 10 queries and rejects 11 with 400 VALIDATION_ERROR', async () => {
    const ten = await server.api.post('/v1/gql', { token: projectA.secretKey, body: { queries: Array.from({ length: 10 }, () => 'count') } });
    expect(ten.status).toBe(200);
    expect(ten.body).toHaveLength(10);
    const eleven = await server.api.post('/v1/gql', { token: projectA.secretKey, body: { queries: Array.from({ length: 11 }, () => 'count') } });
    expect(eleven.status).toBe(400);
    expect(eleven.body.error).toEqual({ code: 'VALIDATION_ERROR', message: 'a batch holds at most 10 queries; this one has 11' });
  });

  it('rejects a body without a queries array with 400', async () => {
    const reply = await server.api.post('/v1/gql', { token: projectA.secretKey, body: { queries: 'count' } });
    expect(reply.status).toBe(400);
    expect(reply.body.error.code).toBe('VALIDATION_ERROR');
  });
});

describe('GQL access', () => {
  it('needs a key (401), and data:read or * (403 for public keys and keys without it)', async () => {
    expect((await server.api.post('/v1/gql/query', { body: { q: 'count' } })).status).toBe(401);
    const publicReply = await query('count', projectA.publicKey);
    expect(publicReply.status).toBe(403);
    expect(publicReply.body.error.code).toBe('FORBIDDEN');
    const writer = await createKey(server.api, projectA.session, projectA.project.id, { type: 'secret', scopes: ['ingest:write'] });
    expect((await query('count', writer.key)).status).toBe(403);
    expect((await server.api.post('/v1/gql', { token: writer.key, body: { queries: ['count'] } })).status).toBe(403);
    expect((await server.api.get('/v1/gql/autocomplete?q=from:', { token: writer.key })).status).toBe(403);
    const reader = await createKey(server.api, projectA.session, projectA.project.id, { type: 'secret', scopes: ['data:read'] });
    expect((await query('count', reader.key)).body.data.results).toEqual([{ value: 4 }]);
  });

  it("never shows one project's rows to another", async () => {
    for (const text of ['count', '"PROJECT-B"', 'amount > 100', 'count by route', 'fields message, amount | limit 100']) {
      const answer = JSON.stringify((await query(text)).body.data);
      expect(answer).not.toContain('PROJECT-B');
      expect(answer).not.toContain('999');
    }
    const fromB = await query('"payment failed"', projectB.secretKey);
    expect(fromB.body.data.results.map((row: { message: string }) => row.message)).toEqual(['PROJECT-B secret payment failed']);
  });
});

describe('GQL autocomplete', () => {
  it('GET /v1/gql/autocomplete suggests sources, fields with discovered properties, operators and values', async () => {
    const sources = await server.api.get('/v1/gql/autocomplete?q=from:&cursor=5', { token: projectA.secretKey });
    expect(sources.status).toBe(200);
    expect(sources.body).toEqual({
      suggestions: expect.arrayContaining([{ text: 'logs', description: 'log entries', kind: 'source' }]),
      valid: false,
      parsed: { source: 'logs', filters: [] },
    });
    await eventually(async () => {
      const fields = await server.api.get(`/v1/gql/autocomplete?q=${encodeURIComponent('from:logs us')}`, { token: projectA.secretKey });
      expect(fields.body.suggestions).toContainEqual(expect.objectContaining({ text: 'user.plan', kind: 'field' }));
    });
    const values = await server.api.get(`/v1/gql/autocomplete?q=${encodeURIComponent('severity:')}`, { token: projectA.secretKey });
    expect(values.body.suggestions.map((suggestion: { text: string }) => suggestion.text)).toEqual(['debug', 'info', 'warn', 'error', 'fatal']);
    const valid = await server.api.get(`/v1/gql/autocomplete?q=${encodeURIComponent('severity:error | count')}`, { token: projectA.secretKey });
    expect(valid.body).toMatchObject({ valid: true, parsed: { source: 'logs', filters: [{ field: 'severity', op: '=', value: 'error' }] } });
  });

  it('reads an empty cursor as the end of the query, as an absent one, and refuses one that is not a position', async () => {
    const empty = await server.api.get('/v1/gql/autocomplete?q=from:&cursor=', { token: projectA.secretKey });
    expect(empty.status).toBe(200);
    expect(empty.body.suggestions.map((suggestion: { text: string }) => suggestion.text)).toEqual(
      ['logs', 'events', 'errors', 'issues', 'alerts', 'alert_events', 'spans', 'vitals', 'sessions'],
    );
    for (const cursor of ['%20', 'abc', '1e1', '-1', '2.5']) {
      const reply = await server.api.get(`/v1/gql/autocomplete?q=from:&cursor=${cursor}`, { token: projectA.secretKey });
      expect(reply.status).toBe(400);
      expect(reply.body.error).toEqual({ code: 'VALIDATION_ERROR', message: 'query parameter cursor must be an integer of at least 0' });
    }
    const start = await server.api.get('/v1/gql/autocomplete?q=from:&cursor=0', { token: projectA.secretKey });
    expect(start.body.suggestions[0]).toEqual({ text: 'from:logs', description: 'log entries', kind: 'source' });
  });

  it('GET /api/orgs/:org/projects/:project/gql/autocomplete answers members the same way', async () => {
    const reply = await dashboard(`/gql/autocomplete?q=${encodeURIComponent('from:logs | ')}&cursor=12`);
    expect(reply.status).toBe(200);
    expect(reply.body.suggestions[0]).toEqual({ text: 'count', description: 'number of rows (add "by field" to group)', kind: 'function' });
  });
});

describe('GET /api/orgs/:org/projects/:project/gql', () => {
  it('answers members with the same answer as /v1/gql/query', async () => {
    const text = 'severity:error | count by route | top 10';
    const reply = await dashboard(`/gql?q=${encodeURIComponent(text)}`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual((await query(text)).body);
  });

  it('answers 400 and 422 like the key-authenticated endpoint', async () => {
    expect((await dashboard(`/gql?q=${encodeURIComponent('count by')}`)).status).toBe(400);
    expect((await dashboard(`/gql?q=${encodeURIComponent('from:nowhere')}`)).status).toBe(422);
    expect((await dashboard('/gql')).status).toBe(400);
  });

  it('takes a query of the longest length in the URL, however it is percent-encoded, and answers 422 past it', async () => {
    // docs/gql.md Limits: 16384 characters; a CJK character is 9 bytes percent-encoded.
    const longest = await dashboard(`/gql?q=${encodeURIComponent('漢'.repeat(16_384))}`);
    expect(longest.status).toBe(200);
    expect(longest.body.data).toEqual({ mode: 'search', table: 'logs', results: [], total_groups: 0 });
    const tooLong = await dashboard(`/gql?q=${encodeURIComponent('漢'.repeat(16_385))}`);
    expect(tooLong.status).toBe(422);
    expect(tooLong.body.error).toEqual({ code: 'VALIDATION_ERROR', message: 'the query is 16385 characters long; at most 16384 are allowed' });
    const completion = await dashboard(`/gql/autocomplete?q=${encodeURIComponent(`${'"漢 '.repeat(5_000)}`)}`);
    expect(completion.status).toBe(200);
  });

  it('hides projects of other organizations (404) and needs a token (401)', async () => {
    const outsider = await signup(server.api);
    expect((await dashboard('/gql?q=count', outsider.token)).status).toBe(404);
    expect((await server.api.get(`/api/orgs/${projectA.session.organization.id}/projects/${projectA.project.id}/gql?q=count`)).status).toBe(401);
    expect((await dashboard('/gql?q=count', projectB.session.token)).status).toBe(404);
  });
});
