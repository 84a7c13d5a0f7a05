import { eventually, setupProject, signup, startTestServer, uniqueEmail, type TestServer } from '@tlm/testkit';

let server: TestServer;
let setup: Awaited<ReturnType<typeof setupProject>>;
let base: string;

beforeAll(async () => {
  server = await startTestServer({ EXPORT_POLL_MS: '100' });
  setup = await setupProject(server.api);
  base = `/api/orgs/${setup.session.organization.id}/projects/${setup.project.id}/exports`;
  await server.api.post('/v1/logs', {
    token: setup.secretKey,
    body: { batch: ['first', 'second'].map((message) => ({ severity: 'info', message })) },
  });
});
afterAll(() => server.close());

const storedJobs = async (projectId: string) =>
  (await server.standalone.metadata.query<{ total: number }>('select count(*)::int as total from export_jobs where project_id = $1', [projectId]))[0]!.total;

describe('exports for members', () => {
  it('starts an export with a session, lists it with its progress and a signed download link', async () => {
    const queued = await server.api.post(base, { token: setup.session.token, body: { format: 'csv', query: 'from:logs | last:1h' } });
    expect(queued.status).toBe(202);
    expect(queued.body).toEqual({ id: expect.any(String), status: 'queued' });
    const job = await eventually(async () => {
      const listed = await server.api.get(base, { token: setup.session.token });
      expect(listed.status).toBe(200);
      const found = (listed.body.exports as { id: string; status: string; rows: number; download_url: string }[]).find((candidate) => candidate.id === queued.body.id)!;
      expect(found.status).toBe('done');
      return found;
    }, 15_000);
    expect(job.rows).toBe(2);
    const file = await fetch(job.download_url);
    expect(file.status).toBe(200);
    const lines = (await file.text()).trimEnd().split('\r\n');
    expect(lines).toHaveLength(3);
    // The same job is listed for the project's API keys.
    const byKey = await server.api.get('/v1/exports', { token: setup.secretKey });
    expect(byKey.body.exports.map((listed: { id: string }) => listed.id)).toContain(queued.body.id);
  });

  it('refuses bad requests with the exact status and code, storing no job', async () => {
    const before = await storedJobs(setup.project.id);
    const cases: [unknown, number][] = [
      [{ format: 'xml' }, 400],
      [{ format: 'csv', extra: true }, 400],
      [{ format: 'csv', query: 'from:logs', source: 'logs' }, 400],
      [{ format: 'csv', source: 'nowhere' }, 400],
      [{ format: 'csv', query: 'from:logs | count by' }, 400],
    ];
    for (const [body, status] of cases) {
      const reply = await server.api.post(base, { token: setup.session.token, body });
      expect([JSON.stringify(body), reply.status, reply.body.error.code]).toEqual([JSON.stringify(body), status, 'VALIDATION_ERROR']);
    }
    expect(await storedJobs(setup.project.id)).toBe(before);
  });

  it('lets only owners start and download a GDPR ZIP: a member gets 403 FORBIDDEN and no job, and may still start a CSV export', async () => {
    const email = uniqueEmail('member');
    const invited = await server.api.post(`/api/orgs/${setup.session.organization.id}/invitations`, { token: setup.session.token, body: { email, role: 'member' } });
    const token = /#token=([A-Za-z0-9_-]+)/.exec(invited.body.accept_url)![1]!;
    const member = await server.api.post('/api/invitations/accept', { body: { token, name: 'Mia Member', password: 'a long password 123' } });
    expect(member.body.role).toBe('member');
    const before = await storedJobs(setup.project.id);
    const refused = await server.api.post(base, { token: member.body.token, body: { format: 'gdpr_zip' } });
    expect([refused.status, refused.body.error.code]).toEqual([403, 'FORBIDDEN']);
    expect(await storedJobs(setup.project.id)).toBe(before);
    const csv = await server.api.post(base, { token: member.body.token, body: { format: 'csv', source: 'logs' } });
    expect(csv.status).toBe(202);
    const zip = await server.api.post(base, { token: setup.session.token, body: { format: 'gdpr_zip' } });
    expect(zip.status).toBe(202);
    expect(await storedJobs(setup.project.id)).toBe(before + 2);
    // Both finished: the member is given the CSV's link and not the ZIP's; the owner and the project's keys get both.
    type Listed = { id: string; status: string; download_url?: string };
    const listed = (sessionToken: string) =>
      eventually(async () => {
        const jobs = (await server.api.get(base, { token: sessionToken })).body.exports as Listed[];
        const mine = [csv.body.id, zip.body.id].map((id) => jobs.find((job) => job.id === id)!);
        expect(mine.map((job) => job.status)).toEqual(['done', 'done']);
        return mine;
      }, 15_000);
    const [memberCsv, memberZip] = await listed(member.body.token);
    expect(memberCsv!.download_url).toMatch(/\/v1\/exports\/.+\/download\?token=/);
    expect(memberZip!.download_url).toBeUndefined();
    const [, ownerZip] = await listed(setup.session.token);
    expect((await fetch(ownerZip!.download_url!)).status).toBe(200);
    const byKey = (await server.api.get('/v1/exports', { token: setup.secretKey })).body.exports as Listed[];
    expect(byKey.find((job) => job.id === zip.body.id)!.download_url).toMatch(/download\?token=/);
  });

  it('answers 401 without a session and 404 for a stranger or an unknown project, storing no job', async () => {
    const before = await storedJobs(setup.project.id);
    const anonymous = await server.api.post(base, { body: { format: 'csv' } });
    expect([anonymous.status, anonymous.body.error.code]).toEqual([401, 'UNAUTHORIZED']);
    const stranger = await signup(server.api);
    const foreign = await server.api.post(`/api/orgs/${stranger.organization.id}/projects/${setup.project.id}/exports`, { token: stranger.token, body: { format: 'csv' } });
    expect([foreign.status, foreign.body.error.code]).toEqual([404, 'NOT_FOUND']);
    const listed = await server.api.get(`/api/orgs/${setup.session.organization.id}/projects/00000000-0000-4000-8000-000000000000/exports`, { token: setup.session.token });
    expect([listed.status, listed.body.error.code]).toEqual([404, 'NOT_FOUND']);
    expect(await storedJobs(setup.project.id)).toBe(before);
  });
});
