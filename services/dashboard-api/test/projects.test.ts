import { createKey, createProject, signup, startTestServer, type Session, type TestServer } from '@tlm/testkit';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const DAY_MS = 24 * 60 * 60 * 1000;

const projectsPath = (session: Session) => `/api/orgs/${session.organization.id}/projects`;

const sendLog = (key: string, message: string) => server.api.post('/v1/logs', { token: key, body: { batch: [{ severity: 'info', message }] } });

async function storedProject(id: string) {
  const [row] = await server.standalone.metadata.query<{ name: string; allow_browser_logs: boolean; deleted_at: Date | null }>(
    'select name, allow_browser_logs, deleted_at from projects where id = $1',
    [id],
  );
  return row;
}

async function liveProjectCount(orgId: string) {
  const [row] = await server.standalone.metadata.query<{ n: number }>(
    'select count(*)::int as n from projects where org_id = $1 and deleted_at is null',
    [orgId],
  );
  return row!.n;
}

describe('project CRUD', () => {
  let session: Session;

  beforeAll(async () => {
    session = await signup(server.api);
  });

  it('creates a project with 201, a numeric dsn_id and browser logs off by default', async () => {
    const reply = await server.api.post(projectsPath(session), { token: session.token, body: { name: 'checkout' } });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({ id: expect.any(String), org_id: session.organization.id, name: 'checkout', allow_browser_logs: false });
    expect(typeof reply.body.dsn_id).toBe('number');
    expect(Number.isInteger(reply.body.dsn_id)).toBe(true);
    expect(reply.body).not.toHaveProperty('deleted_at');
    expect(await storedProject(reply.body.id)).toEqual({ name: 'checkout', allow_browser_logs: false, deleted_at: null });
  });

  it('rejects a project without a name with 400 VALIDATION_ERROR', async () => {
    const before = await liveProjectCount(session.organization.id);
    const reply = await server.api.post(projectsPath(session), { token: session.token, body: { allow_browser_logs: true } });
    expect(reply.status).toBe(400);
    expect(reply.body.error.code).toBe('VALIDATION_ERROR');
    expect(await liveProjectCount(session.organization.id)).toBe(before);
  });

  it('lists, gets and patches a project', async () => {
    const project = await createProject(server.api, session, { name: 'api' });
    const list = await server.api.get(projectsPath(session), { token: session.token });
    expect(list.status).toBe(200);
    expect(list.body.projects.map((item: { id: string }) => item.id)).toContain(project.id);

    const read = await server.api.get(`${projectsPath(session)}/${project.id}`, { token: session.token });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id: project.id, name: 'api', dsn_id: project.dsn_id, allow_browser_logs: false });

    const patched = await server.api.patch(`${projectsPath(session)}/${project.id}`, {
      token: session.token,
      body: { name: 'public api', allow_browser_logs: true },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ id: project.id, name: 'public api', allow_browser_logs: true, dsn_id: project.dsn_id });
    expect(await storedProject(project.id)).toEqual({ name: 'public api', allow_browser_logs: true, deleted_at: null });
  });

  it('rejects a patch with an unknown field with 400 VALIDATION_ERROR', async () => {
    const [project] = (await server.api.get(projectsPath(session), { token: session.token })).body.projects;
    const reply = await server.api.patch(`${projectsPath(session)}/${project.id}`, { token: session.token, body: { dsn_id: 1 } });
    expect(reply.status).toBe(400);
    expect(reply.body.error.code).toBe('VALIDATION_ERROR');
  });

  it('answers 404 NOT_FOUND for a project id that does not exist', async () => {
    const reply = await server.api.get(`${projectsPath(session)}/00000000-0000-4000-8000-000000000000`, { token: session.token });
    expect(reply.status).toBe(404);
    expect(reply.body.error.code).toBe('NOT_FOUND');
  });
});

describe('project deletion and restore', () => {
  it('soft-deletes: hidden from the list and from GET, listed with ?deleted=true, and its keys answer 401', async () => {
    const session = await signup(server.api);
    const project = await createProject(server.api, session);
    const key = await createKey(server.api, session, project.id, { type: 'secret' });
    expect((await sendLog(key.key, 'before deletion')).status).toBe(202);

    const reply = await server.api.delete(`${projectsPath(session)}/${project.id}`, { token: session.token });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ id: project.id, deleted_at: expect.any(String), restore_until: expect.any(String) });

    const live = await server.api.get(projectsPath(session), { token: session.token });
    expect(live.body.projects).toEqual([]);
    expect((await server.api.get(`${projectsPath(session)}/${project.id}`, { token: session.token })).status).toBe(404);

    const deleted = await server.api.get(`${projectsPath(session)}?deleted=true`, { token: session.token });
    expect(deleted.status).toBe(200);
    expect(deleted.body.projects).toHaveLength(1);
    const listed = deleted.body.projects[0];
    expect(listed.id).toBe(project.id);
    expect(Date.parse(listed.restore_until) - Date.parse(listed.deleted_at)).toBe(30 * DAY_MS);
    expect((await storedProject(project.id))!.deleted_at).not.toBeNull();
    expect((await server.api.get(`${projectsPath(session)}?deleted=false`, { token: session.token })).body.projects).toEqual([]);
    const unclear = await server.api.get(`${projectsPath(session)}?deleted=yes`, { token: session.token });
    expect(unclear.status).toBe(400);
    expect(unclear.body.error).toEqual({ code: 'VALIDATION_ERROR', message: 'query parameter deleted must be true or false' });

    const refused = await sendLog(key.key, 'after deletion');
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('UNAUTHORIZED');
  });

  it('restores a deleted project with 200; its keys work again and it is listed again', async () => {
    const session = await signup(server.api);
    const project = await createProject(server.api, session);
    const key = await createKey(server.api, session, project.id, { type: 'secret' });
    expect((await server.api.delete(`${projectsPath(session)}/${project.id}`, { token: session.token })).status).toBe(200);
    expect((await sendLog(key.key, 'while deleted')).status).toBe(401);

    const reply = await server.api.post(`${projectsPath(session)}/${project.id}/restore`, { token: session.token });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ id: project.id });
    expect(reply.body).not.toHaveProperty('deleted_at');
    expect((await sendLog(key.key, 'after restore')).status).toBe(202);
    const live = await server.api.get(projectsPath(session), { token: session.token });
    expect(live.body.projects.map((item: { id: string }) => item.id)).toEqual([project.id]);
    expect((await storedProject(project.id))!.deleted_at).toBeNull();
  });

  it('keeps a key revoked by a person revoked through a project delete and restore', async () => {
    const session = await signup(server.api);
    const project = await createProject(server.api, session);
    const revoked = await createKey(server.api, session, project.id, { type: 'secret' });
    const keysPath = `${projectsPath(session)}/${project.id}/keys`;
    expect((await server.api.post(`${keysPath}/${revoked.id}/revoke`, { token: session.token })).status).toBe(200);
    expect((await server.api.delete(`${projectsPath(session)}/${project.id}`, { token: session.token })).status).toBe(200);
    expect((await server.api.post(`${projectsPath(session)}/${project.id}/restore`, { token: session.token })).status).toBe(200);
    expect((await sendLog(revoked.key, 'revoked by hand')).status).toBe(401);
  });

  it('refuses a 4th live project on the free plan with 402 QUOTA_EXCEEDED', async () => {
    const session = await signup(server.api);
    for (const name of ['one', 'two', 'three']) await createProject(server.api, session, { name });
    const reply = await server.api.post(projectsPath(session), { token: session.token, body: { name: 'four' } });
    expect(reply.status).toBe(402);
    expect(reply.body.error.code).toBe('QUOTA_EXCEEDED');
    expect(reply.body.error.message).toBe('the free plan allows 3 projects; upgrade or delete a project');
    expect(reply.body.error.details).toEqual({ limit: 3, used: 3, plan: 'free', upgrade: ['starter', 'pro', 'team'] });
    expect(await liveProjectCount(session.organization.id)).toBe(3);
  });

  it('refuses a restore over the plan project limit with 402 and quota details, and restores with ?force=true', async () => {
    const session = await signup(server.api);
    const restored = await createProject(server.api, session, { name: 'comes back' });
    const key = await createKey(server.api, session, restored.id, { type: 'secret' });
    expect((await server.api.delete(`${projectsPath(session)}/${restored.id}`, { token: session.token })).status).toBe(200);
    for (const name of ['one', 'two', 'three']) await createProject(server.api, session, { name });

    const refused = await server.api.post(`${projectsPath(session)}/${restored.id}/restore`, { token: session.token });
    expect(refused.status).toBe(402);
    expect(refused.body.error.code).toBe('QUOTA_EXCEEDED');
    expect(refused.body.error.message).toBe('the free plan allows 3 projects; upgrade, delete a project, or restore with force=true');
    expect(refused.body.error.details).toEqual({ limit: 3, used: 3, plan: 'free', upgrade: ['starter', 'pro', 'team'] });
    expect((await storedProject(restored.id))!.deleted_at).not.toBeNull();
    expect((await sendLog(key.key, 'still deleted')).status).toBe(401);

    for (const flag of ['yes', '1', 'TRUE']) {
      const unclear = await server.api.post(`${projectsPath(session)}/${restored.id}/restore?force=${flag}`, { token: session.token });
      expect(unclear.status).toBe(400);
      expect(unclear.body.error).toEqual({ code: 'VALIDATION_ERROR', message: 'query parameter force must be true or false' });
    }
    const twice = await server.api.post(`${projectsPath(session)}/${restored.id}/restore?force=true&force=true`, { token: session.token });
    expect(twice.body.error).toEqual({ code: 'VALIDATION_ERROR', message: 'query parameter force must be given once' });
    const notForced = await server.api.post(`${projectsPath(session)}/${restored.id}/restore?force=false`, { token: session.token });
    expect(notForced.status).toBe(402);
    expect((await storedProject(restored.id))!.deleted_at).not.toBeNull();

    const forced = await server.api.post(`${projectsPath(session)}/${restored.id}/restore?force=true`, { token: session.token });
    expect(forced.status).toBe(200);
    expect(forced.body.id).toBe(restored.id);
    expect((await storedProject(restored.id))!.deleted_at).toBeNull();
    expect(await liveProjectCount(session.organization.id)).toBe(4);
    expect((await sendLog(key.key, 'forced back')).status).toBe(202);
  });
});
