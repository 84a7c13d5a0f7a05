import { createHash } from 'node:crypto';
import { createKey, createProject, eventually, setPlan, setupProject, signup, startTestServer, type Session, type TestServer } from '@tlm/testkit';

let server: TestServer;
let setup: Awaited<ReturnType<typeof setupProject>>;

beforeAll(async () => {
  server = await startTestServer();
  setup = await setupProject(server.api);
  // Room for the keys the tests below create; the free plan's maximum has its own tests.
  await setPlan(server.api, setup.session, 'pro');
});
afterAll(() => server.close());

const DAY_MS = 24 * 60 * 60 * 1000;

const keysPath = (session: Session, projectId: string) => `/api/orgs/${session.organization.id}/projects/${projectId}/keys`;

const sendLog = (key: string, message = 'key check') =>
  server.api.post('/v1/logs', { token: key, body: { batch: [{ severity: 'info', message }] } });

async function storedKeyCount(orgId: string) {
  const [row] = await server.standalone.metadata.query<{ n: number }>('select count(*)::int as n from api_keys where org_id = $1', [orgId]);
  return row!.n;
}

async function listKeys(deleted = false) {
  const reply = await server.api.get(`${keysPath(setup.session, setup.project.id)}${deleted ? '?deleted=true' : ''}`, { token: setup.session.token });
  expect(reply.status).toBe(200);
  return reply.body.keys as { id: string; status: string; last_used_at: string | null; deleted_at?: string; restore_until?: string }[];
}

describe('POST …/keys', () => {
  it('creates a secret key: shown once, prefix of 12 characters, default scope *, stored only as a hash', async () => {
    const reply = await server.api.post(keysPath(setup.session, setup.project.id), {
      token: setup.session.token,
      body: { name: 'backend', type: 'secret' },
    });
    expect(reply.status).toBe(201);
    const key = reply.body.key as string;
    expect(key).toMatch(/^tlm_sk_us_[0-9A-Za-z]{32}$/);
    expect(reply.body).toMatchObject({
      id: expect.any(String),
      name: 'backend',
      type: 'secret',
      scopes: ['*'],
      prefix: key.slice(0, 12),
      region: 'us',
      created_at: expect.any(String),
    });
    expect(reply.body).not.toHaveProperty('dsn');

    const [row] = await server.standalone.metadata.query<Record<string, unknown>>('select * from api_keys where id = $1', [reply.body.id]);
    expect(row!['key_hash']).toBe(createHash('sha256').update(key).digest('hex'));
    expect(row!['prefix']).toBe(key.slice(0, 12));
    expect(JSON.stringify(row)).not.toContain(key);
  });

  it('creates a public key with scope ingest:write and a Sentry DSN http://<key>@<host>/<dsn_id>', async () => {
    const reply = await server.api.post(keysPath(setup.session, setup.project.id), {
      token: setup.session.token,
      body: { name: 'browser', type: 'public' },
    });
    expect(reply.status).toBe(201);
    const key = reply.body.key as string;
    expect(key).toMatch(/^tlm_pk_us_[0-9A-Za-z]{32}$/);
    expect(reply.body.scopes).toEqual(['ingest:write']);
    expect(reply.body.prefix).toBe(key.slice(0, 12));
    expect(reply.body.dsn).toBe(`http://${key}@${new URL(server.url).host}/${setup.project.dsn_id}`);
  });

  it('never shows a key value or a hash in the list', async () => {
    const hashes = (await server.standalone.metadata.query<{ key_hash: string }>('select key_hash from api_keys where project_id = $1', [setup.project.id])).map(
      (row) => row.key_hash,
    );
    expect(hashes.length).toBeGreaterThanOrEqual(2);
    for (const deleted of [false, true]) {
      const reply = await server.api.get(`${keysPath(setup.session, setup.project.id)}${deleted ? '?deleted=true' : ''}`, { token: setup.session.token });
      expect(reply.status).toBe(200);
      expect(reply.text).not.toContain(setup.secretKey);
      expect(reply.text).not.toContain(setup.publicKey);
      for (const hash of hashes) expect(reply.text).not.toContain(hash);
      expect(reply.text).not.toMatch(/"key"|hash/i);
    }
    const active = await listKeys();
    expect(active.map((key) => key.id)).toEqual(expect.arrayContaining([setup.secret.id, setup.public.id]));
  });

  it('rejects a public key asking for data:read with 400 VALIDATION_ERROR and stores nothing', async () => {
    const before = await storedKeyCount(setup.session.organization.id);
    const reply = await server.api.post(keysPath(setup.session, setup.project.id), {
      token: setup.session.token,
      body: { name: 'reader in a browser', type: 'public', scopes: ['ingest:write', 'data:read'] },
    });
    expect(reply.status).toBe(400);
    expect(reply.body.error.code).toBe('VALIDATION_ERROR');
    expect(await storedKeyCount(setup.session.organization.id)).toBe(before);
  });

  it('rejects an unknown scope with 400 VALIDATION_ERROR and stores nothing', async () => {
    const before = await storedKeyCount(setup.session.organization.id);
    const reply = await server.api.post(keysPath(setup.session, setup.project.id), {
      token: setup.session.token,
      body: { name: 'odd', type: 'secret', scopes: ['logs:delete'] },
    });
    expect(reply.status).toBe(400);
    expect(reply.body.error.code).toBe('VALIDATION_ERROR');
    expect(await storedKeyCount(setup.session.organization.id)).toBe(before);
  });

  it('rejects a 100 KB name with 400 VALIDATION_ERROR: the body is within the 2 MB limit, the name is not', async () => {
    const before = await storedKeyCount(setup.session.organization.id);
    const reply = await server.api.post(keysPath(setup.session, setup.project.id), {
      token: setup.session.token,
      body: { name: 'x'.repeat(100_000), type: 'secret' },
    });
    expect(reply.status).toBe(400);
    expect(reply.body.error.code).toBe('VALIDATION_ERROR');
    expect(await storedKeyCount(setup.session.organization.id)).toBe(before);
  });
});

describe('key lifecycle', () => {
  it('keeps last_used_at null until the key is used, then records it', async () => {
    const key = await createKey(server.api, setup.session, setup.project.id, { type: 'secret' });
    const listed = (await listKeys()).find((item) => item.id === key.id)!;
    expect(listed.last_used_at).toBeNull();

    const before = Date.now();
    expect((await sendLog(key.key)).status).toBe(202);
    const used = await eventually(async () => {
      const item = (await listKeys()).find((entry) => entry.id === key.id)!;
      expect(item.last_used_at).not.toBeNull();
      return item;
    });
    expect(Date.parse(used.last_used_at!)).toBeGreaterThanOrEqual(before - 1_000);
  });

  it('revokes with 200: the very next request answers 401, the key stays listed as revoked, and unrevoke brings it back', async () => {
    const key = await createKey(server.api, setup.session, setup.project.id, { type: 'secret' });
    expect((await sendLog(key.key)).status).toBe(202);

    const revoked = await server.api.post(`${keysPath(setup.session, setup.project.id)}/${key.id}/revoke`, { token: setup.session.token });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ id: key.id, status: 'revoked', revoked_at: expect.any(String) });
    const refused = await sendLog(key.key);
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('UNAUTHORIZED');
    expect((await listKeys()).find((item) => item.id === key.id)).toMatchObject({ status: 'revoked' });

    const unrevoked = await server.api.post(`${keysPath(setup.session, setup.project.id)}/${key.id}/unrevoke`, { token: setup.session.token });
    expect(unrevoked.status).toBe(200);
    expect(unrevoked.body).toMatchObject({ id: key.id, status: 'active', revoked_at: null });
    expect((await sendLog(key.key)).status).toBe(202);
  });

  it('deletes softly: 401 at once, gone from the list, under ?deleted=true with restore_until, and restore brings it back', async () => {
    const key = await createKey(server.api, setup.session, setup.project.id, { type: 'secret' });
    expect((await sendLog(key.key)).status).toBe(202);

    const deleted = await server.api.delete(`${keysPath(setup.session, setup.project.id)}/${key.id}`, { token: setup.session.token });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ id: key.id, status: 'deleted', revoked_at: expect.any(String) });
    expect((await sendLog(key.key)).status).toBe(401);
    expect((await listKeys()).map((item) => item.id)).not.toContain(key.id);
    const recentlyDeleted = (await listKeys(true)).find((item) => item.id === key.id)!;
    expect(recentlyDeleted).toMatchObject({ status: 'deleted' });
    expect(Date.parse(recentlyDeleted.restore_until!) - Date.parse(recentlyDeleted.deleted_at!)).toBe(30 * DAY_MS);

    const restored = await server.api.post(`${keysPath(setup.session, setup.project.id)}/${key.id}/restore`, { token: setup.session.token });
    expect(restored.status).toBe(200);
    expect(restored.body).toMatchObject({ id: key.id, status: 'active', revoked_at: null });
    expect((await sendLog(key.key)).status).toBe(202);
    expect((await listKeys()).map((item) => item.id)).toContain(key.id);
    expect((await listKeys(true)).map((item) => item.id)).not.toContain(key.id);
  });

  it('answers 404 NOT_FOUND when revoking a deleted key or restoring a live one', async () => {
    const key = await createKey(server.api, setup.session, setup.project.id, { type: 'secret' });
    const restoreLive = await server.api.post(`${keysPath(setup.session, setup.project.id)}/${key.id}/restore`, { token: setup.session.token });
    expect(restoreLive.status).toBe(404);
    expect(restoreLive.body.error.code).toBe('NOT_FOUND');
    expect((await server.api.delete(`${keysPath(setup.session, setup.project.id)}/${key.id}`, { token: setup.session.token })).status).toBe(200);
    const revokeDeleted = await server.api.post(`${keysPath(setup.session, setup.project.id)}/${key.id}/revoke`, { token: setup.session.token });
    expect(revokeDeleted.status).toBe(404);
    expect(revokeDeleted.body.error.code).toBe('NOT_FOUND');
  });
});

describe('key maximum across the account (free plan: 5)', () => {
  let session: Session;
  let projects: { a: string; b: string };
  let first: { id: string; key: string };

  beforeAll(async () => {
    session = await signup(server.api);
    const projectA = await createProject(server.api, session, { name: 'a' });
    const projectB = await createProject(server.api, session, { name: 'b' });
    first = await createKey(server.api, session, projectA.id, { type: 'secret' });
    await createKey(server.api, session, projectA.id, { type: 'public' });
    await createKey(server.api, session, projectB.id, { type: 'secret' });
    await createKey(server.api, session, projectB.id, { type: 'secret' });
    const revoked = await createKey(server.api, session, projectB.id, { type: 'public' });
    const reply = await server.api.post(`${keysPath(session, projectB.id)}/${revoked.id}/revoke`, { token: session.token });
    expect(reply.status).toBe(200);
    projects = { a: projectA.id, b: projectB.id };
  });

  it('refuses the 6th key (revoked keys count, across projects) with 402 QUOTA_EXCEEDED and upgrade options', async () => {
    const project = await createProject(server.api, session, { name: 'c' });
    const reply = await server.api.post(keysPath(session, project.id), { token: session.token, body: { name: 'sixth', type: 'secret' } });
    expect(reply.status).toBe(402);
    expect(reply.body.error.code).toBe('QUOTA_EXCEEDED');
    expect(reply.body.error.message).toBe('the free plan allows 5 API keys across all projects; upgrade or delete a key');
    expect(reply.body.error.details).toEqual({ limit: 5, used: 5, plan: 'free', upgrade: ['starter', 'pro', 'team'] });
    expect(await storedKeyCount(session.organization.id)).toBe(5);
  });

  it('refuses restoring a deleted key when the account is full with 402, and restores with ?force=true', async () => {
    expect((await server.api.delete(`${keysPath(session, projects.a)}/${first.id}`, { token: session.token })).status).toBe(200);
    await createKey(server.api, session, projects.a, { type: 'secret' });

    const refused = await server.api.post(`${keysPath(session, projects.a)}/${first.id}/restore`, { token: session.token });
    expect(refused.status).toBe(402);
    expect(refused.body.error.code).toBe('QUOTA_EXCEEDED');
    expect(refused.body.error.message).toBe('the free plan allows 5 API keys across all projects; upgrade, delete a key, or restore with force=true');
    expect(refused.body.error.details).toEqual({ limit: 5, used: 5, plan: 'free', upgrade: ['starter', 'pro', 'team'] });
    expect((await sendLog(first.key)).status).toBe(401);

    const forced = await server.api.post(`${keysPath(session, projects.a)}/${first.id}/restore?force=true`, { token: session.token });
    expect(forced.status).toBe(200);
    expect(forced.body).toMatchObject({ id: first.id, status: 'active' });
    expect((await sendLog(first.key)).status).toBe(202);
    const [row] = await server.standalone.metadata.query<{ n: number }>(
      'select count(*)::int as n from api_keys where org_id = $1 and deleted_at is null',
      [session.organization.id],
    );
    expect(row!.n).toBe(6);
  });
});
