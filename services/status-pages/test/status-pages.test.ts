import { signup, startTestServer, type TestServer } from '@tlm/testkit';

let server: TestServer;
let owner: Awaited<ReturnType<typeof signup>>;
let base: string;
const slug = `acme-${process.pid}`;

beforeAll(async () => {
  server = await startTestServer();
  owner = await signup(server.api);
  base = `/api/orgs/${owner.organization.id}/status-pages`;
});
afterAll(() => server.close());

describe('managing status pages', () => {
  it('creates a page with components; a taken slug is 409 CONFLICT and a bad slug 400', async () => {
    const created = await server.api.post(base, { token: owner.token, body: { slug, title: 'Acme status', components: [{ name: 'API' }, { name: 'Dashboard' }] } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ slug, title: 'Acme status', components: [{ name: 'API' }, { name: 'Dashboard' }] });
    const taken = await server.api.post(base, { token: owner.token, body: { slug, title: 'again' } });
    expect(taken.status).toBe(409);
    expect(taken.body.error.code).toBe('CONFLICT');
    expect((await server.api.post(base, { token: owner.token, body: { slug: 'Not A Slug!', title: 'x' } })).status).toBe(400);
  });

  it('refuses unknown fields on a new page or incident, and an incident naming a component the page lacks, with 400', async () => {
    const cases: [string, unknown][] = [
      [base, { slug: `extra-${process.pid}`, title: 'x', extra: 1 }],
      [`${base}/${slug}/incidents`, { title: 'x', status: 'investigating', impact: 'minor', extra: 1 }],
      [`${base}/${slug}/incidents`, { title: 'x', status: 'investigating', impact: 'minor', components: ['Nope'] }],
    ];
    for (const [path, body] of cases) {
      const reply = await server.api.post(path, { token: owner.token, body });
      expect([JSON.stringify(body), reply.status, reply.body.error?.code]).toEqual([JSON.stringify(body), 400, 'VALIDATION_ERROR']);
    }
    const listed = await server.api.get(`/v1/status/${slug}`);
    expect(JSON.stringify(listed.body)).not.toContain('Nope');
  });

  it('hides the page from other organizations (404) and needs a token (401)', async () => {
    const stranger = await signup(server.api);
    expect((await server.api.get(`/api/orgs/${stranger.organization.id}/status-pages/${slug}`, { token: stranger.token })).status).toBe(404);
    expect((await server.api.get(`${base}/${slug}`)).status).toBe(401);
  });

  it('opens and resolves incidents that drive the public snapshot', async () => {
    const opened = await server.api.post(`${base}/${slug}/incidents`, {
      token: owner.token,
      body: { title: 'API errors', status: 'investigating', impact: 'major', components: ['API'], message: 'Looking into it' },
    });
    expect(opened.status).toBe(201);
    const live = await server.api.get(`/v1/status/${slug}`);
    expect(live.status).toBe(200);
    expect(live.body).toMatchObject({
      slug,
      title: 'Acme status',
      status: 'partial_outage',
      components: [
        { name: 'API', status: 'partial_outage' },
        { name: 'Dashboard', status: 'operational' },
      ],
      incidents: [{ id: opened.body.id, status: 'investigating', impact: 'major' }],
    });
    expect(live.body.uptime.window_days).toBe(90);
    expect(live.body.uptime.percent).toBeLessThanOrEqual(100);

    const resolved = await server.api.patch(`${base}/${slug}/incidents/${opened.body.id}`, { token: owner.token, body: { status: 'resolved', message: 'Fixed' } });
    expect(resolved.body.resolved_at).not.toBeNull();
    expect(resolved.body.updates.map((update: { status: string }) => update.status)).toEqual(['investigating', 'resolved']);
    expect((await server.api.get(`/v1/status/${slug}`)).body).toMatchObject({ status: 'operational', incidents: [] });
  });

  it('pages the incident history by days and answers 400 for a bad days value', async () => {
    for (const title of ['one', 'two', 'three']) {
      await server.api.post(`${base}/${slug}/incidents`, { token: owner.token, body: { title, status: 'resolved', impact: 'minor' } });
    }
    const firstPage = await server.api.get(`/v1/status/${slug}/incidents?days=7&per_page=2&page=1`);
    expect(firstPage.body).toMatchObject({ days: 7, page: 1, per_page: 2, total: 4 });
    expect(firstPage.body.incidents).toHaveLength(2);
    const secondPage = await server.api.get(`/v1/status/${slug}/incidents?days=7&per_page=2&page=2`);
    expect(secondPage.body.incidents).toHaveLength(2);
    const bad = await server.api.get(`/v1/status/${slug}/incidents?days=abc`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('VALIDATION_ERROR');
  });

  it('keeps components operational under an open incident of impact none (a notice) and degrades them under minor', async () => {
    const notice = await server.api.post(`${base}/${slug}/incidents`, { token: owner.token, body: { title: 'Maintenance tonight', status: 'monitoring', impact: 'none' } });
    expect((await server.api.get(`/v1/status/${slug}`)).body).toMatchObject({
      status: 'operational',
      components: [
        { name: 'API', status: 'operational' },
        { name: 'Dashboard', status: 'operational' },
      ],
    });
    const minor = await server.api.post(`${base}/${slug}/incidents`, { token: owner.token, body: { title: 'Slow API', status: 'investigating', impact: 'minor', components: ['API'] } });
    expect((await server.api.get(`/v1/status/${slug}`)).body.components).toEqual([
      { name: 'API', status: 'degraded_performance' },
      { name: 'Dashboard', status: 'operational' },
    ]);
    for (const id of [notice.body.id, minor.body.id]) {
      await server.api.patch(`${base}/${slug}/incidents/${id}`, { token: owner.token, body: { status: 'resolved' } });
    }
  });

  it('resolves a slug to its region and title, and 404 for an unknown slug', async () => {
    expect((await server.api.get(`/v1/status-pages/${slug}/resolve`)).body).toEqual({ slug, region: 'us', title: 'Acme status' });
    expect((await server.api.get('/v1/status/no-such-page')).status).toBe(404);
  });

  it('updates and deletes a page', async () => {
    const patched = await server.api.patch(`${base}/${slug}`, { token: owner.token, body: { title: 'Acme' } });
    expect(patched.body.title).toBe('Acme');
    expect((await server.api.delete(`${base}/${slug}`, { token: owner.token })).status).toBe(204);
    expect((await server.api.get(`/v1/status/${slug}`)).status).toBe(404);
  });
});
