import { gzipSync } from 'node:zlib';
import { eventually, setupProject, signup, startTestServer, type TestServer } from '@tlm/testkit';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe('GET /api/orgs/:org/gdpr/export', () => {
  it("gives the owner the profile, organization, every project (deleted ones too), key metadata and counts, never a key or hash", async () => {
    const setup = await setupProject(server.api);
    const org = setup.session.organization.id;
    await server.api.post('/v1/logs', { token: setup.secretKey, body: { batch: [{ severity: 'info', message: 'a' }, { severity: 'info', message: 'b' }] } });
    await server.api.post('/v1/events', { token: setup.secretKey, body: { batch: [{ event: 'x' }] } });
    const gone = await server.api.post(`/api/orgs/${org}/projects`, { token: setup.session.token, body: { name: 'gone' } });
    await server.api.delete(`/api/orgs/${org}/projects/${gone.body.id}`, { token: setup.session.token });

    const reply = await server.api.get(`/api/orgs/${org}/gdpr/export`, { token: setup.session.token });
    expect(reply.status).toBe(200);
    expect(reply.body.user).toEqual({ email: setup.session.user.email, name: 'Test User', created_at: expect.any(String) });
    expect(reply.body.organization).toMatchObject({ id: org, plan: 'free' });
    expect(reply.body.projects.map((project: { name: string }) => project.name).sort()).toEqual(['gone', 'web']);
    expect(reply.body.api_keys).toHaveLength(2);
    expect(reply.body.api_keys[0]).toEqual(expect.objectContaining({ prefix: expect.any(String), type: expect.any(String), scopes: expect.any(Array) }));
    expect(reply.body.counts).toEqual({ events: 1, logs: 2, alert_rules: 0 });
    for (const secret of [setup.secretKey, setup.publicKey]) expect(reply.text).not.toContain(secret);
    expect(reply.text).not.toMatch(/[0-9a-f]{64}/);
  });

  it('is refused to a member with 403 FORBIDDEN and to an outsider with 404', async () => {
    const owner = await signup(server.api);
    const member = await signup(server.api);
    await server.api.post(`/api/orgs/${owner.organization.id}/members`, { token: owner.token, body: { email: member.user.email, role: 'member' } });
    const denied = await server.api.get(`/api/orgs/${owner.organization.id}/gdpr/export`, { token: member.token });
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('FORBIDDEN');
    const outsider = await signup(server.api);
    expect((await server.api.get(`/api/orgs/${owner.organization.id}/gdpr/export`, { token: outsider.token })).status).toBe(404);
  });
});

describe('POST /api/orgs/:org/projects/:project/gdpr/erase', () => {
  it("removes every event and log of one person and answers with the counts, leaving everyone else's", async () => {
    const setup = await setupProject(server.api);
    await server.api.post('/v1/events', {
      token: setup.secretKey,
      body: { batch: [{ event: 'a', distinct_id: 'u-1' }, { event: 'b', distinctId: 'u-1' }, { event: 'c', distinct_id: 'u-2' }] },
    });
    await server.api.post('/v1/logs', {
      token: setup.secretKey,
      body: { batch: [{ severity: 'info', message: 'x', properties: { distinct_id: 'u-1' } }, { severity: 'info', message: 'y', properties: { distinct_id: 'u-2' } }] },
    });
    const path = `/api/orgs/${setup.session.organization.id}/projects/${setup.project.id}/gdpr/erase`;
    const reply = await server.api.post(path, { token: setup.session.token, body: { distinct_id: 'u-1' } });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ distinct_id: 'u-1', removed: { events: 2, logs: 1 } });
    const left = await server.standalone.analytics.query('SELECT distinct_id FROM events WHERE project_id = $p', { p: setup.project.id });
    expect(left.map((row) => row['distinct_id'])).toEqual(['u-2']);
    const again = await server.api.post(path, { token: setup.session.token, body: { distinct_id: 'u-1' } });
    expect(again.body.removed).toMatchObject({ events: 0, logs: 0 });
  });

  it('removes the logs that name the person as $distinct_id (the client library) or user.id, as the log scanner reads them', async () => {
    const setup = await setupProject(server.api);
    const sent = await server.api.post('/v1/logs', {
      token: setup.secretKey,
      body: {
        batch: [
          { severity: 'info', message: 'from the client', properties: { $distinct_id: 'u-7' } },
          { severity: 'error', message: 'nested user', properties: { user: { id: 'u-7' } } },
          { severity: 'info', message: 'plain', properties: { distinct_id: 'u-7' } },
          { severity: 'info', message: 'someone else', properties: { $distinct_id: 'u-8', user: { id: 'u-8' } } },
        ],
      },
    });
    expect(sent.status).toBe(202);
    const path = `/api/orgs/${setup.session.organization.id}/projects/${setup.project.id}/gdpr/erase`;
    const reply = await server.api.post(path, { token: setup.session.token, body: { distinct_id: 'u-7' } });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ distinct_id: 'u-7', removed: { logs: 3 } });
    const left = await server.standalone.analytics.query('SELECT message FROM logs WHERE project_id = $p', { p: setup.project.id });
    expect(left.map((row) => row['message'])).toEqual(['someone else']);
  });

  it("removes the person's distinct id from the schema's example values, keeping everyone else's", async () => {
    const setup = await setupProject(server.api);
    await server.api.post('/v1/logs', {
      token: setup.secretKey,
      body: { batch: [{ severity: 'info', message: 'x', properties: { distinct_id: 'u-erase' } }, { severity: 'info', message: 'y', properties: { distinct_id: 'u-stay' } }] },
    });
    const examples = async () => {
      const schema = await server.api.get('/v1/schema', { token: setup.secretKey });
      return (schema.body.log_properties as { key: string; examples: unknown[] }[]).find((property) => property.key === 'distinct_id')?.examples;
    };
    // The registry follows the rows within a flush interval.
    await eventually(async () => expect(await examples()).toEqual(['u-erase', 'u-stay']));
    const path = `/api/orgs/${setup.session.organization.id}/projects/${setup.project.id}/gdpr/erase`;
    const reply = await server.api.post(path, { token: setup.session.token, body: { distinct_id: 'u-erase' } });
    expect(reply.body.removed).toMatchObject({ logs: 1, schema_examples: 1 });
    expect(await examples()).toEqual(['u-stay']);
  });

  it("removes the person's replay sessions, their chunks and the stored chunk bodies", async () => {
    const setup = await setupProject(server.api);
    const chunk = gzipSync(JSON.stringify([{ type: 2, timestamp: Date.now(), data: {} }]));
    for (const [session, person] of [['s-erased', 'u-9'], ['s-kept', 'u-8']] as const) {
      const started = await server.api.post('/v1/replay/sessions', {
        token: setup.secretKey,
        body: { session_id: session, distinct_id: person, started_at: new Date().toISOString() },
      });
      expect(started.status).toBe(200);
      const now = Date.now();
      const stored = await server.api.post(`/v1/replay/chunks?session_id=${session}&seq=0&start_ts=${now}&end_ts=${now + 1}&event_count=1`, {
        token: setup.secretKey,
        body: chunk,
        headers: { 'content-type': 'application/octet-stream' },
      });
      expect(stored.status).toBe(202);
    }
    const bodiesOf = async (session: string) =>
      (await server.standalone.blobs.list(`${setup.project.id}/replays/`)).filter((key) => key.includes(`/${session}/`));
    expect(await bodiesOf('s-erased')).toHaveLength(1);
    // The same chunk sent on an earlier day too: its copy there is named by no row any more.
    await server.standalone.blobs.put(`${setup.project.id}/replays/2026-01-01/s-erased/0`, chunk);
    expect(await bodiesOf('s-erased')).toHaveLength(2);

    const path = `/api/orgs/${setup.session.organization.id}/projects/${setup.project.id}/gdpr/erase`;
    const reply = await server.api.post(path, { token: setup.session.token, body: { distinct_id: 'u-9' } });
    expect(reply.body.removed).toMatchObject({ replay_sessions: 1, replay_chunks: 1 });
    expect(await bodiesOf('s-erased')).toHaveLength(0);
    expect(await bodiesOf('s-kept')).toHaveLength(1);
    const sessions = await server.standalone.analytics.query('SELECT id FROM replay_sessions WHERE project_id = $p', { p: setup.project.id });
    expect(sessions.map((row) => row['id'])).toEqual(['s-kept']);
  });

  it("removes the attachments of the person's errors with their stored bodies, and keeps everyone else's", async () => {
    const setup = await setupProject(server.api);
    const envelope = (eventId: string, user: string) =>
      [
        JSON.stringify({ event_id: eventId }),
        '{"type":"event"}',
        JSON.stringify({ event_id: eventId, exception: { values: [{ type: 'GdprError', value: 'with a file' }] }, user: { id: user } }),
        '{"type":"attachment","filename":"app.log","length":8}',
        `log ${user.slice(-4)}`,
        '',
      ].join('\n');
    for (const [eventId, user] of [['c'.repeat(32), 'att-gone'], ['d'.repeat(32), 'att-kept']] as const) {
      const sent = await server.api.post('/v1/envelope', { token: setup.secretKey, body: envelope(eventId, user), headers: { 'content-type': 'application/x-sentry-envelope' } });
      expect(sent.body).toMatchObject({ accepted: 2, rejected: 0 });
    }
    const bodies = () => server.standalone.blobs.list(`${setup.project.id}/attachments/`);
    await eventually(async () => expect(await bodies()).toHaveLength(2));
    const rows = () => server.standalone.analytics.query('SELECT event_id FROM attachments WHERE project_id = $p', { p: setup.project.id });
    await eventually(async () => expect(await rows()).toHaveLength(2));

    // The same envelope sent a day earlier left its body under that day; the row names only today's.
    const yesterday = new Date(Date.now() - 24 * 60 * 60 * 1000).toISOString().slice(0, 10);
    const earlier = `${setup.project.id}/attachments/${yesterday}/cccccccc-cccc-cccc-cccc-cccccccccccc/first-send`;
    await server.standalone.blobs.put(earlier, Buffer.from('log gone'));

    const path = `/api/orgs/${setup.session.organization.id}/projects/${setup.project.id}/gdpr/erase`;
    const reply = await server.api.post(path, { token: setup.session.token, body: { distinct_id: 'att-gone' } });
    expect(reply.body.removed).toMatchObject({ errors: 1, attachments: 1 });
    expect((await rows()).map((row) => row['event_id'])).toEqual(['dddddddd-dddd-dddd-dddd-dddddddddddd']);
    const left = await bodies();
    expect(left).toHaveLength(1);
    expect(left[0]).toContain('/dddddddd-dddd-dddd-dddd-dddddddddddd/');
    expect(await server.standalone.blobs.get(earlier)).toBeUndefined();
  });

  it("removes the person's errors and stops counting them among the users of their issues", async () => {
    const setup = await setupProject(server.api);
    const envelope = (eventId: string, user: string) =>
      `{}\n{"type":"event"}\n${JSON.stringify({ event_id: eventId, exception: { values: [{ type: 'GdprError', value: 'boom' }] }, user: { id: user } })}\n`;
    for (const [eventId, user] of [['a'.repeat(32), 'err-erased'], ['b'.repeat(32), 'err-kept']] as const) {
      const sent = await server.api.post('/v1/envelope', { token: setup.secretKey, body: envelope(eventId, user), headers: { 'content-type': 'application/x-sentry-envelope' } });
      expect(sent.body).toMatchObject({ accepted: 1 });
    }
    const issue = async () =>
      (await server.api.post('/v1/gql/query', { token: setup.secretKey, body: { q: 'from:issues | fields user_count, event_count' } })).body.data.results;
    // Issue snapshots follow the answer by moments.
    await eventually(async () => expect(await issue()).toEqual([{ user_count: 2, event_count: 2 }]));

    const path = `/api/orgs/${setup.session.organization.id}/projects/${setup.project.id}/gdpr/erase`;
    const reply = await server.api.post(path, { token: setup.session.token, body: { distinct_id: 'err-erased' } });
    expect(reply.body.removed).toMatchObject({ errors: 1, issue_users: 1 });
    expect(await issue()).toEqual([{ user_count: 1, event_count: 2 }]);
    const again = await server.api.post(path, { token: setup.session.token, body: { distinct_id: 'err-erased' } });
    expect(again.body.removed).toMatchObject({ errors: 0, issue_users: 0 });
    expect(await issue()).toEqual([{ user_count: 1, event_count: 2 }]);
  });

  it('needs a distinct_id (400) and an owner (403)', async () => {
    const setup = await setupProject(server.api);
    const path = `/api/orgs/${setup.session.organization.id}/projects/${setup.project.id}/gdpr/erase`;
    expect((await server.api.post(path, { token: setup.session.token, body: {} })).status).toBe(400);
    const member = await signup(server.api);
    await server.api.post(`/api/orgs/${setup.session.organization.id}/members`, { token: setup.session.token, body: { email: member.user.email, role: 'member' } });
    expect((await server.api.post(path, { token: member.token, body: { distinct_id: 'u' } })).status).toBe(403);
  });
});
