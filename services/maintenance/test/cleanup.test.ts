import { randomUUID } from 'node:crypto';
import { exportFileKey } from '@tlm/blob-store';
import { finishExportJob, insertExportJob } from '@tlm/metadata-store';
import { TEST_ADMIN_TOKEN, createKey, eventually, setPlan, setupProject, signup, startTestServer, type TestServer } from '@tlm/testkit';

/** Test servers start with this token; setPlan uses it too. */
const ADMIN_TOKEN = TEST_ADMIN_TOKEN;
const DAY_MS = 24 * 60 * 60 * 1000;

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const runCleanup = (token = ADMIN_TOKEN) => server.api.post('/admin/cleanup', { token });
const daysAgo = (days: number) => new Date(Date.now() - days * DAY_MS);

async function logCount(projectId: string): Promise<number> {
  const [row] = await server.standalone.analytics.query('SELECT count(*) AS n FROM logs WHERE project_id = $p', { p: projectId });
  return row!['n'] as number;
}

describe('POST /admin/cleanup', () => {
  it('refuses a wrong admin token with 401 UNAUTHORIZED and a missing one with 401', async () => {
    expect((await runCleanup('not-the-admin-token-at-all')).status).toBe(401);
    const missing = await server.api.post('/admin/cleanup');
    expect(missing.status).toBe(401);
    expect(missing.body.error.code).toBe('UNAUTHORIZED');
  });

  it("purges telemetry older than the plan's retention and keeps the rest", async () => {
    const setup = await setupProject(server.api);
    const reply = await server.api.post('/v1/logs', {
      token: setup.secretKey,
      body: {
        batch: [
          { severity: 'info', message: 'four days old', timestamp: daysAgo(4).toISOString() },
          { severity: 'info', message: 'two days old', timestamp: daysAgo(2).toISOString() },
          { severity: 'info', message: 'fresh' },
        ],
      },
    });
    expect(reply.status).toBe(202);
    expect(await logCount(setup.project.id)).toBe(3);

    const cleanup = await runCleanup();
    expect(cleanup.status).toBe(200);
    // The free plan keeps 3 days.
    const rows = await server.standalone.analytics.query('SELECT message FROM logs WHERE project_id = $p ORDER BY timestamp', {
      p: setup.project.id,
    });
    expect(rows.map((row) => row['message'])).toEqual(['two days old', 'fresh']);
  });

  it('trims a soft-deleted project (still restorable) to its retention too', async () => {
    const setup = await setupProject(server.api);
    await server.api.post('/v1/logs', {
      token: setup.secretKey,
      body: { batch: [{ severity: 'info', message: 'old, deleted project', timestamp: daysAgo(5).toISOString() }, { severity: 'info', message: 'recent' }] },
    });
    const deleted = await server.api.delete(`/api/orgs/${setup.session.organization.id}/projects/${setup.project.id}`, { token: setup.session.token });
    expect(deleted.status).toBe(200);
    expect((await runCleanup()).status).toBe(200);
    const rows = await server.standalone.analytics.query('SELECT message FROM logs WHERE project_id = $p', { p: setup.project.id });
    expect(rows.map((row) => row['message'])).toEqual(['recent']);
  });

  it("drops stored bodies of days past the plan's retention and keeps the newer ones", async () => {
    const setup = await setupProject(server.api);
    const blobs = server.standalone.blobs;
    const old = `${setup.project.id}/replays/${daysAgo(5).toISOString().slice(0, 10)}/s-1/0`;
    const recent = `${setup.project.id}/replays/${daysAgo(1).toISOString().slice(0, 10)}/s-2/0`;
    const oldProfile = `${setup.project.id}/profiles/${daysAgo(4).toISOString().slice(0, 10)}/c-1`;
    const oldAttachment = `${setup.project.id}/attachments/${daysAgo(4).toISOString().slice(0, 10)}/e-1/a-1`;
    const recentAttachment = `${setup.project.id}/attachments/${daysAgo(1).toISOString().slice(0, 10)}/e-2/a-2`;
    for (const key of [old, recent, oldProfile, oldAttachment, recentAttachment]) await blobs.put(key, Buffer.from('body'));
    expect((await runCleanup()).status).toBe(200);
    expect(await blobs.get(old)).toBeUndefined();
    expect(await blobs.get(oldProfile)).toBeUndefined();
    expect(await blobs.get(oldAttachment)).toBeUndefined();
    expect((await blobs.get(recent))?.toString()).toBe('body');
    expect((await blobs.get(recentAttachment))?.toString()).toBe('body');
  });

  it("forgets export jobs whose files retention removed, so no listed download link leads to a 404", async () => {
    const setup = await setupProject(server.api);
    const { metadata, blobs } = server.standalone;
    const exportJob = async (createdAt: Date) => {
      const job = await insertExportJob(metadata, { id: randomUUID(), projectId: setup.project.id, format: 'csv', query: null, source: 'logs' });
      const blobKey = exportFileKey(setup.project.id, createdAt.getTime(), job.id, 'csv');
      await blobs.put(blobKey, Buffer.from('timestamp,message\n'));
      await metadata.query('update export_jobs set created_at = $2 where id = $1', [job.id, createdAt]);
      await finishExportJob(metadata, job.id, { status: 'done', rows: 0, size: 18, blobKey });
      return job.id;
    };
    await exportJob(daysAgo(5));
    const recent = await exportJob(daysAgo(1));

    expect((await runCleanup()).status).toBe(200);
    const listed = await server.api.get('/v1/exports', { token: setup.secretKey });
    expect(listed.status).toBe(200);
    expect(listed.body.exports.map((job: { id: string }) => job.id)).toEqual([recent]);
    const file = await fetch(listed.body.exports[0].download_url);
    expect(file.status).toBe(200);
  });

  it("removes issues last seen before the plan's retention, with their users and snapshots, and keeps the recent ones", async () => {
    const setup = await setupProject(server.api);
    // Pro keeps 90 days, so an error of five days ago keeps its own time; the downgrade then puts it past retention.
    await setPlan(server.api, setup.session, 'pro');
    const envelope = (type: string, timestamp: string, user: string) =>
      `{}\n{"type":"event"}\n${JSON.stringify({ timestamp, exception: { values: [{ type, value: 'boom' }] }, user: { id: user } })}\n`;
    for (const [type, timestamp, user] of [
      ['StaleError', daysAgo(5).toISOString(), 'stale-user'],
      ['FreshError', new Date().toISOString(), 'fresh-user'],
    ] as const) {
      const sent = await server.api.post('/v1/envelope', {
        token: setup.secretKey,
        body: envelope(type, timestamp, user),
        headers: { 'content-type': 'application/x-sentry-envelope' },
      });
      expect(sent.body).toMatchObject({ accepted: 1, rejected: 0 });
    }
    const snapshots = () =>
      server.standalone.analytics.query('SELECT title FROM issues WHERE project_id = $p ORDER BY title', { p: setup.project.id });
    await eventually(async () => expect(await snapshots()).toHaveLength(2));
    await setPlan(server.api, setup.session, 'free');

    expect((await runCleanup()).status).toBe(200);
    const titles = (rows: Record<string, unknown>[]) => rows.map((row) => String(row['title']).split(':')[0]);
    expect(titles(await snapshots())).toEqual(['FreshError']);
    expect(titles(await server.standalone.metadata.query('select title from issues where project_id = $1', [setup.project.id]))).toEqual(['FreshError']);
    const users = await server.standalone.metadata.query<{ user_key: string }>('select user_key from issue_users where project_id = $1', [setup.project.id]);
    expect(users.map((user) => user.user_key)).toEqual(['id:fresh-user']);

    // The fingerprint seen again opens the issue afresh, counting only what is inside retention.
    const again = await server.api.post('/v1/envelope', {
      token: setup.secretKey,
      body: envelope('StaleError', new Date().toISOString(), 'stale-user'),
      headers: { 'content-type': 'application/x-sentry-envelope' },
    });
    expect(again.body).toMatchObject({ accepted: 1 });
    await eventually(async () => {
      const reply = await server.api.post('/v1/gql/query', { token: setup.secretKey, body: { q: 'from:issues | fields title, event_count, user_count' } });
      expect(reply.body.data.results.map((row: { title: string; event_count: number; user_count: number }) => [row.title.split(':')[0], row.event_count, row.user_count]).sort()).toEqual([
        ['FreshError', 1, 1],
        ['StaleError', 1, 1],
      ]);
    });
  });

  it('removes projects, keys and accounts whose 30-day restore window has passed, and nothing younger', async () => {
    const setup = await setupProject(server.api);
    await server.api.post('/v1/logs', { token: setup.secretKey, body: { batch: [{ severity: 'info', message: 'doomed' }] } });
    const org = setup.session.organization.id;
    const oldKey = await createKey(server.api, setup.session, setup.project.id, { type: 'secret' });
    const youngKey = await createKey(server.api, setup.session, setup.project.id, { type: 'secret' });
    await server.api.delete(`/api/orgs/${org}/projects/${setup.project.id}/keys/${oldKey.id}`, { token: setup.session.token });
    await server.api.delete(`/api/orgs/${org}/projects/${setup.project.id}/keys/${youngKey.id}`, { token: setup.session.token });
    await server.standalone.metadata.query('update api_keys set deleted_at = $2 where id = $1', [oldKey.id, daysAgo(31)]);

    const doomed = await setupProject(server.api);
    await server.api.post('/v1/logs', { token: doomed.secretKey, body: { batch: [{ severity: 'info', message: 'doomed' }] } });
    const doomedBody = `${doomed.project.id}/replays/${new Date().toISOString().slice(0, 10)}/s/0`;
    await server.standalone.blobs.put(doomedBody, Buffer.from('body'));
    await server.api.delete(`/api/orgs/${doomed.session.organization.id}/projects/${doomed.project.id}`, { token: doomed.session.token });
    await server.standalone.metadata.query('update projects set deleted_at = $2 where id = $1', [doomed.project.id, daysAgo(31)]);

    const leaver = await signup(server.api);
    await server.api.delete('/api/auth/account', { token: leaver.token });
    await server.standalone.metadata.query('update users set deleted_at = $2 where id = $1', [leaver.user.id, daysAgo(31)]);
    await server.standalone.metadata.query('update organizations set deleted_at = $2 where id = $1', [leaver.organization.id, daysAgo(31)]);

    const cleanup = await runCleanup();
    expect(cleanup.status).toBe(200);
    expect(cleanup.body).toMatchObject({ accounts_removed: 1, projects_removed: 1, keys_removed: 1 });

    const keys = await server.standalone.metadata.query<{ id: string }>('select id from api_keys where id = any($1::uuid[])', [
      [oldKey.id, youngKey.id],
    ]);
    expect(keys.map((key) => key.id)).toEqual([youngKey.id]);
    expect(await server.standalone.metadata.query('select id from projects where id = $1', [doomed.project.id])).toHaveLength(0);
    expect(await logCount(doomed.project.id)).toBe(0);
    expect(await server.standalone.blobs.get(doomedBody)).toBeUndefined();
    expect(await logCount(setup.project.id)).toBe(1);
    expect(await server.standalone.metadata.query('select id from users where id = $1', [leaver.user.id])).toHaveLength(0);
    // The address is free again once the account is gone.
    const again = await server.api.post('/api/auth/signup', { body: { email: leaver.user.email, password: 'another password' } });
    expect(again.status).toBe(201);
  });
});

describe('POST /admin/cleanup without ADMIN_TOKEN configured', () => {
  it('is disabled with 404 NOT_FOUND', async () => {
    const plain = await startTestServer({ ADMIN_TOKEN: '' });
    try {
      const reply = await plain.api.post('/admin/cleanup', { token: ADMIN_TOKEN });
      expect(reply.status).toBe(404);
      expect(reply.body.error.code).toBe('NOT_FOUND');
    } finally {
      await plain.close();
    }
  });
});
