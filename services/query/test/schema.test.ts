import { createKey, eventually, setupProject, signup, startTestServer, type TestServer } from '@tlm/testkit';

let server: TestServer;
let setup: Awaited<ReturnType<typeof setupProject>>;

interface PropertySchema {
  key: string;
  type: string;
  examples: unknown[];
  volume: number;
}

beforeAll(async () => {
  server = await startTestServer();
  setup = await setupProject(server.api);

  const logs = await server.api.post('/v1/logs', {
    token: setup.secretKey,
    body: {
      batch: [
        { severity: 'info', message: 'one', properties: { route: '/a', user: { plan: 'free', id: 1 }, code: 200 } },
        { severity: 'info', message: 'two', properties: { route: '/b', user: { plan: 'pro' }, code: '404' } },
        { severity: 'info', message: 'three', properties: { route: '/a', flag: true } },
        { severity: 'info', message: 'four', properties: { route: '/c' } },
        { severity: 'info', message: 'five', properties: { route: '/d' } },
        { severity: 'info', message: 'six', properties: { route: '/e' } },
        { severity: 'info', message: 'seven', properties: { route: '/f', shifting: 'text' } },
      ],
    },
  });
  expect(logs.status).toBe(202);
  const events = await server.api.post('/v1/events', {
    token: setup.publicKey,
    body: {
      batch: [
        { event: 'signup', distinctId: 'u1', properties: { source: 'ads', cart: { items: 2 } } },
        { event: 'signup', distinctId: 'u2', properties: { source: 'seo' } },
        { event: 'purchase', distinctId: 'u1', properties: { amount: 9.5 } },
      ],
    },
  });
  expect(events.status).toBe(202);
  expect(events.body.accepted).toBe(3);
  // The writer adds to the registry on a timer; wait for the first flush before sending more.
  await eventually(async () => {
    const schema = await readSchema();
    expect(byKey(schema.log_properties)['route']?.volume).toBe(7);
    expect(schema.event_names.reduce((sum, entry) => sum + entry.volume, 0)).toBe(3);
  });

  // A later flush: the registry itself (not one flush's tally) must turn `shifting` into 'mixed' and merge examples.
  const more = await server.api.post('/v1/logs', {
    token: setup.secretKey,
    body: {
      batch: [
        { severity: 'warn', message: 'eight', properties: { shifting: 42, user: { plan: 'free' } } },
        { severity: 'warn', message: 'nine', properties: { user: { plan: 'team' } } },
      ],
    },
  });
  expect(more.status).toBe(202);
  await eventually(async () => expect(byKey((await readSchema()).log_properties)['shifting']?.volume).toBe(2));
});
afterAll(() => server.close());

const byKey = (properties: PropertySchema[]) => Object.fromEntries(properties.map((property) => [property.key, property]));

async function readSchema(token = setup.secretKey) {
  const reply = await server.api.get('/v1/schema', { token });
  expect(reply.status).toBe(200);
  return reply.body as { log_properties: PropertySchema[]; event_properties: PropertySchema[]; event_names: { name: string; volume: number }[] };
}

describe('GET /v1/schema', () => {
  it('describes log properties with key, type, at most 5 distinct examples and volume', async () => {
    const logs = byKey((await readSchema()).log_properties);
    expect(logs['route']).toEqual({ key: 'route', type: 'string', examples: ['/a', '/b', '/c', '/d', '/e'], volume: 7 });
    expect(logs['flag']).toEqual({ key: 'flag', type: 'boolean', examples: [true], volume: 1 });
  });

  it('lists nested properties under dotted keys, merging distinct examples across flushes', async () => {
    const logs = byKey((await readSchema()).log_properties);
    expect(logs['user.plan']).toEqual({ key: 'user.plan', type: 'string', examples: ['free', 'pro', 'team'], volume: 4 });
    expect(logs['user.id']).toEqual({ key: 'user.id', type: 'number', examples: [1], volume: 1 });
    expect(logs).not.toHaveProperty('user');
    const events = byKey((await readSchema()).event_properties);
    expect(events['cart.items']).toMatchObject({ type: 'number', volume: 1 });
  });

  it("types a key sent with two types as 'mixed', within one flush and across flushes", async () => {
    const logs = byKey((await readSchema()).log_properties);
    expect(logs['code']).toMatchObject({ type: 'mixed', volume: 2 });
    expect(logs['code']!.examples).toEqual(expect.arrayContaining([200, '404']));
    expect(logs['shifting']).toMatchObject({ type: 'mixed', volume: 2 });
  });

  it('describes event properties and event names with their volumes', async () => {
    const schema = await readSchema();
    const events = byKey(schema.event_properties);
    expect(events['source']).toEqual({ key: 'source', type: 'string', examples: ['ads', 'seo'], volume: 2 });
    expect(events['amount']).toEqual({ key: 'amount', type: 'number', examples: [9.5], volume: 1 });
    expect(events['distinct_id']).toMatchObject({ type: 'string', volume: 3 });
    expect(schema.event_names).toEqual([
      { name: 'signup', volume: 2 },
      { name: 'purchase', volume: 1 },
    ]);
    // Log keys stay out of the event list and the other way round.
    expect(events).not.toHaveProperty('route');
    expect(byKey(schema.log_properties)).not.toHaveProperty('source');
  });

  it('reads the registry instead of rescanning the store: deleting the stored rows leaves the schema unchanged', async () => {
    const before = await readSchema();
    await server.standalone.analytics.execute('DELETE FROM logs WHERE project_id = $project', { project: setup.project.id });
    await server.standalone.analytics.execute('DELETE FROM events WHERE project_id = $project', { project: setup.project.id });
    const [left] = await server.standalone.analytics.query(
      'SELECT (SELECT count(*) FROM logs WHERE project_id = $project) + (SELECT count(*) FROM events WHERE project_id = $project) AS n',
      { project: setup.project.id },
    );
    expect(Number(left!['n'])).toBe(0);
    expect(await readSchema()).toEqual(before);
  });

  it('answers with an empty document for a project that has received nothing', async () => {
    const other = await setupProject(server.api);
    expect(await readSchema(other.secretKey)).toEqual({ log_properties: [], event_properties: [], event_names: [] });
  });

  it('refuses a public key with 403 FORBIDDEN', async () => {
    const reply = await server.api.get('/v1/schema', { token: setup.publicKey });
    expect(reply.status).toBe(403);
    expect(reply.body.error.code).toBe('FORBIDDEN');
  });

  it('refuses a secret key holding only ingest:write with 403 FORBIDDEN', async () => {
    const writer = await createKey(server.api, setup.session, setup.project.id, { type: 'secret', scopes: ['ingest:write'] });
    const reply = await server.api.get('/v1/schema', { token: writer.key });
    expect(reply.status).toBe(403);
    expect(reply.body.error.code).toBe('FORBIDDEN');
  });

  it('accepts a secret key holding data:read', async () => {
    const reader = await createKey(server.api, setup.session, setup.project.id, { type: 'secret', scopes: ['data:read'] });
    const schema = await readSchema(reader.key);
    expect(schema.event_names.map((entry) => entry.name)).toEqual(['signup', 'purchase']);
  });

  it('answers 401 UNAUTHORIZED without a key', async () => {
    const reply = await server.api.get('/v1/schema');
    expect(reply.status).toBe(401);
    expect(reply.body.error.code).toBe('UNAUTHORIZED');
  });
});

describe('GET /api/orgs/:org/projects/:project/schema', () => {
  const dashboardPath = () => `/api/orgs/${setup.session.organization.id}/projects/${setup.project.id}/schema`;

  it('returns the same document as /v1/schema to a member', async () => {
    const reply = await server.api.get(dashboardPath(), { token: setup.session.token });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual(await readSchema());
    expect(reply.body.event_names).toHaveLength(2);
  });

  it('answers 404 NOT_FOUND to someone outside the organization', async () => {
    const outsider = await signup(server.api);
    const reply = await server.api.get(dashboardPath(), { token: outsider.token });
    expect(reply.status).toBe(404);
    expect(reply.body.error.code).toBe('NOT_FOUND');
  });
});
