import { randomUUID } from 'node:crypto';
import { MAX_DASHBOARD_PANELS, MAX_PROJECT_DASHBOARDS, type Dashboard } from '@tlm/api-schemas';
import { TEST_ADMIN_TOKEN, createProject, setupProject, signup, startTestServer, uniqueEmail, type ProjectSetup, type TestServer } from '@tlm/testkit';

let server: TestServer;
let setup: ProjectSetup;
let base: string;

beforeAll(async () => {
  server = await startTestServer();
  setup = await setupProject(server.api);
  base = dashboardsPath(setup.session.organization.id, setup.project.id);
});
afterAll(() => server.close());

const DAY_MS = 86_400_000;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const dashboardsPath = (orgId: string, projectId: string) => `/api/orgs/${orgId}/projects/${projectId}/dashboards`;

const storedDashboards = async (projectId: string) =>
  (await server.standalone.metadata.query<{ total: number }>('select count(*)::int as total from dashboards where project_id = $1', [projectId]))[0]!.total;

const storedDashboard = async (id: string) => (await server.standalone.metadata.query('select * from dashboards where id = $1', [id]))[0];

async function createDashboard(path: string, token: string, body: unknown): Promise<Dashboard> {
  const reply = await server.api.post(path, { token, body });
  if (reply.status !== 201) throw new Error(`dashboard creation failed: ${reply.status} ${reply.text}`);
  return reply.body as Dashboard;
}

const panels = (count: number) => Array.from({ length: count }, (_, index) => ({ title: `Panel ${index}`, query: 'from:logs | count' }));
const errorsPanel = { title: 'Errors', query: 'from:logs severity:error | count' };
const routesPanel = { title: 'Requests by route', query: 'from:logs | count by route | last:24h', width: 2 as const };

describe('dashboards for members', () => {
  it('creates, reads, lists, changes and deletes a dashboard, which then answers 404 NOT_FOUND', async () => {
    const own = await setupProject(server.api);
    const path = dashboardsPath(own.session.organization.id, own.project.id);
    const token = own.session.token;

    const created = await server.api.post(path, { token, body: { name: 'Checkout health', panels: [errorsPanel, routesPanel] } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(UUID),
      name: 'Checkout health',
      description: '',
      panels: [
        { id: expect.stringMatching(UUID), ...errorsPanel, width: 1 },
        { id: expect.stringMatching(UUID), ...routesPanel },
      ],
      created_at: expect.stringMatching(ISO),
      updated_at: created.body.created_at,
    });
    const dashboard = created.body as Dashboard;
    const [errors, routes] = dashboard.panels;
    expect(errors!.id).not.toBe(routes!.id);

    const read = await server.api.get(`${path}/${dashboard.id}`, { token });
    expect([read.status, read.body]).toEqual([200, dashboard]);

    // By name whatever its case, then by creation.
    await createDashboard(path, token, { name: 'api latency', description: 'p95 per route' });
    await createDashboard(path, token, { name: 'Zeta' });
    await createDashboard(path, token, { name: 'checkout health' });
    const listed = await server.api.get(path, { token });
    expect(listed.status).toBe(200);
    expect(listed.body.dashboards.map((listedOne: Dashboard) => listedOne.name)).toEqual(['api latency', 'Checkout health', 'checkout health', 'Zeta']);
    expect(listed.body.dashboards[1]).toEqual(dashboard);

    const renamed = await server.api.put(`${path}/${dashboard.id}`, { token, body: { name: 'Checkout', description: 'The payment path' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toEqual({ ...dashboard, name: 'Checkout', description: 'The payment path', updated_at: expect.stringMatching(ISO) });
    expect(Date.parse(renamed.body.updated_at)).toBeGreaterThan(Date.parse(dashboard.updated_at));

    const reordered = await server.api.put(`${path}/${dashboard.id}`, { token, body: { panels: [routes, errors] } });
    expect(reordered.status).toBe(200);
    expect(reordered.body.panels).toEqual([routes, errors]);
    expect(reordered.body.name).toBe('Checkout');

    const signups = { title: 'Signups', query: 'from:events event_name:signup | count' };
    const added = await server.api.put(`${path}/${dashboard.id}`, { token, body: { panels: [routes, errors, signups] } });
    expect(added.status).toBe(200);
    expect(added.body.panels).toEqual([routes, errors, { id: expect.stringMatching(UUID), ...signups, width: 1 }]);
    const signupsPanel = added.body.panels[2];
    expect([routes!.id, errors!.id]).not.toContain(signupsPanel.id);

    const removed = await server.api.put(`${path}/${dashboard.id}`, { token, body: { panels: [signupsPanel, { ...routes, title: 'Routes' }] } });
    expect(removed.status).toBe(200);
    expect(removed.body.panels).toEqual([signupsPanel, { ...routes, title: 'Routes' }]);
    expect((await server.api.get(`${path}/${dashboard.id}`, { token })).body).toEqual(removed.body);

    const deleted = await server.api.delete(`${path}/${dashboard.id}`, { token });
    expect([deleted.status, deleted.text]).toEqual([204, '']);
    const gone = await server.api.get(`${path}/${dashboard.id}`, { token });
    expect([gone.status, gone.body.error]).toEqual([404, { code: 'NOT_FOUND', message: 'dashboard not found' }]);
    const again = await server.api.delete(`${path}/${dashboard.id}`, { token });
    expect([again.status, again.body.error.code]).toEqual([404, 'NOT_FOUND']);
    expect(await storedDashboard(dashboard.id)).toBeUndefined();
    expect(await storedDashboards(own.project.id)).toBe(3);
  });

  it('lets a member invited into the organization read, change and delete the dashboards', async () => {
    const invited = await server.api.post(`/api/orgs/${setup.session.organization.id}/invitations`, {
      token: setup.session.token,
      body: { email: uniqueEmail('member'), role: 'member' },
    });
    const invitation = /#token=([A-Za-z0-9_-]+)/.exec(invited.body.accept_url)![1]!;
    const member = await server.api.post('/api/invitations/accept', { body: { token: invitation, name: 'Mia Member', password: 'a long password 123' } });
    expect(member.body.role).toBe('member');
    const token = member.body.token as string;

    const owners = await createDashboard(base, setup.session.token, { name: "The owner's", panels: [errorsPanel] });
    const members = await createDashboard(base, token, { name: "The member's", panels: [routesPanel] });
    expect((await server.api.get(`${base}/${members.id}`, { token: setup.session.token })).body).toEqual(members);
    const listed = await server.api.get(base, { token });
    expect(listed.body.dashboards.map((dashboard: Dashboard) => dashboard.id)).toEqual(expect.arrayContaining([owners.id, members.id]));

    const changed = await server.api.put(`${base}/${owners.id}`, { token, body: { panels: [...owners.panels, routesPanel] } });
    expect(changed.status).toBe(200);
    expect(changed.body.panels).toEqual([owners.panels[0], { id: expect.stringMatching(UUID), ...routesPanel }]);
    expect((await server.api.delete(`${base}/${owners.id}`, { token })).status).toBe(204);
    expect(await storedDashboard(owners.id)).toBeUndefined();
  });

  it('refuses a body POST may not take with its status and VALIDATION_ERROR, storing no dashboard', async () => {
    const before = await storedDashboards(setup.project.id);
    const cases: [string, unknown, number][] = [
      ['missing name', { panels: [] }, 400],
      ['empty name', { name: '' }, 400],
      ['name of 201 characters', { name: 'x'.repeat(201) }, 400],
      ['name of blanks only', { name: ' \n\t ' }, 400],
      ['panel title of blanks only', { name: 'ok', panels: [{ ...errorsPanel, title: '   ' }] }, 400],
      ['extra field', { name: 'ok', owner: 'me' }, 400],
      ['25 panels', { name: 'ok', panels: panels(MAX_DASHBOARD_PANELS + 1) }, 400],
      ['empty query', { name: 'ok', panels: [{ title: 'Empty', query: '' }] }, 400],
      ['width 3', { name: 'ok', panels: [{ ...errorsPanel, width: 3 }] }, 400],
      ['panel without a title', { name: 'ok', panels: [{ query: 'from:logs | count' }] }, 400],
      ['panel id that is no UUID', { name: 'ok', panels: [{ ...errorsPanel, id: 'first' }] }, 400],
      ['panel id of no panel of the dashboard', { name: 'ok', panels: [{ ...errorsPanel, id: randomUUID() }] }, 400],
      ['query over an unknown source', { name: 'ok', panels: [{ title: 'Nowhere', query: 'from:nowhere | count' }] }, 422],
    ];
    for (const [what, body, status] of cases) {
      const reply = await server.api.post(base, { token: setup.session.token, body });
      expect([what, reply.status, reply.body.error.code]).toEqual([what, status, 'VALIDATION_ERROR']);
    }
    expect(await storedDashboards(setup.project.id)).toBe(before);
  });

  it('takes a dashboard of 24 panels', async () => {
    const reply = await server.api.post(base, { token: setup.session.token, body: { name: 'Full', panels: panels(MAX_DASHBOARD_PANELS) } });
    expect(reply.status).toBe(201);
    expect(reply.body.panels).toHaveLength(24);
    expect(new Set(reply.body.panels.map((panel: { id: string }) => panel.id)).size).toBe(24);
  });

  it("names the panel whose query does not parse, keeping the GQL error's position, and stores nothing", async () => {
    const before = await storedDashboards(setup.project.id);
    const reply = await server.api.post(base, {
      token: setup.session.token,
      body: { name: 'Broken', panels: [errorsPanel, { title: 'Broken', query: 'from:logs where x' }] },
    });
    expect(reply.status).toBe(400);
    expect(reply.body.error).toEqual({
      code: 'VALIDATION_ERROR',
      message: "panels[1].query: unexpected 'where' at column 11",
      details: { offset: 10, line: 1, column: 11, expected: expect.any(Array) },
    });
    expect(await storedDashboards(setup.project.id)).toBe(before);
  });

  it('refuses a change PUT may not make with its status and VALIDATION_ERROR, leaving the dashboard as it was', async () => {
    const dashboard = await createDashboard(base, setup.session.token, { name: 'Unchanged', panels: [errorsPanel, routesPanel] });
    const other = await createDashboard(base, setup.session.token, { name: 'Other', panels: [errorsPanel] });
    const [first, second] = dashboard.panels;
    const stored = await storedDashboard(dashboard.id);
    const cases: [string, unknown, number, RegExp][] = [
      ['empty name', { name: '' }, 400, /name/],
      ['name of 201 characters', { name: 'x'.repeat(201) }, 400, /name/],
      ['name of blanks only', { name: '   ' }, 400, /name/],
      ['extra field', { name: 'ok', owner: 'me' }, 400, /unknown field owner/],
      ['25 panels', { panels: panels(MAX_DASHBOARD_PANELS + 1) }, 400, /panels must NOT have more than 24 items/],
      ['empty query', { panels: [first, { ...second, query: '' }] }, 400, /panels\.1\.query/],
      ['query that does not parse', { panels: [first, { ...second, query: 'from:logs | | count' }] }, 400, /^panels\[1\]\.query: unexpected '\|' at column 13$/],
      ['width 3', { panels: [{ ...first, width: 3 }] }, 400, /panels\.0\.width/],
      ['panel id of no panel', { panels: [first, { ...second, id: randomUUID() }] }, 400, /^panels\[1\]\.id: .+ is not a panel of this dashboard$/],
      ["another dashboard's panel id", { panels: [other.panels[0]] }, 400, /^panels\[0\]\.id: .+ is not a panel of this dashboard$/],
      ['the same panel id twice', { panels: [first, second, first] }, 400, /^panels\[2\]\.id: .+ is listed twice$/],
      ['query over an unknown source', { panels: [{ ...first, query: 'from:nowhere | count' }] }, 422, /^panels\[0\]\.query: unknown source 'nowhere'/],
    ];
    for (const [what, body, status, message] of cases) {
      const reply = await server.api.put(`${base}/${dashboard.id}`, { token: setup.session.token, body });
      expect([what, reply.status, reply.body.error.code]).toEqual([what, status, 'VALIDATION_ERROR']);
      expect([what, reply.body.error.message]).toEqual([what, expect.stringMatching(message)]);
    }
    expect(await storedDashboard(dashboard.id)).toEqual(stored);
  });

  it('refuses a change made from a copy older than the stored dashboard with 409 CONFLICT, so two editors drop nothing unseen', async () => {
    const dashboard = await createDashboard(base, setup.session.token, { name: 'Shared', panels: [errorsPanel] });
    // Two people read the same dashboard and each adds a panel to what they read.
    const first = await server.api.put(`${base}/${dashboard.id}`, {
      token: setup.session.token,
      body: { updated_at: dashboard.updated_at, panels: [...dashboard.panels, { title: 'Mine', query: 'from:logs | count' }] },
    });
    expect(first.status).toBe(200);
    const stored = await storedDashboard(dashboard.id);
    const second = await server.api.put(`${base}/${dashboard.id}`, {
      token: setup.session.token,
      body: { updated_at: dashboard.updated_at, panels: [...dashboard.panels, { title: 'Theirs', query: 'from:events | count' }] },
    });
    expect([second.status, second.body.error.code]).toEqual([409, 'CONFLICT']);
    expect(second.body.error.message).toMatch(/changed since it was read/);
    expect(await storedDashboard(dashboard.id)).toEqual(stored);
    // Made again from what it holds now, the change keeps both panels.
    const again = await server.api.put(`${base}/${dashboard.id}`, {
      token: setup.session.token,
      body: { updated_at: first.body.updated_at, panels: [...first.body.panels, { title: 'Theirs', query: 'from:events | count' }] },
    });
    expect(again.status).toBe(200);
    expect(again.body.panels.map((panel: { title: string }) => panel.title)).toEqual(['Errors', 'Mine', 'Theirs']);
    // A change without updated_at is made whatever the dashboard holds, as before.
    expect((await server.api.put(`${base}/${dashboard.id}`, { token: setup.session.token, body: { name: 'Renamed' } })).status).toBe(200);
  });

  it('answers 404 NOT_FOUND for an id that is no UUID, an unknown one, or a dashboard of another project, changing nothing', async () => {
    const secondProject = await createProject(server.api, setup.session, { name: 'second' });
    const elsewhere = await createDashboard(dashboardsPath(setup.session.organization.id, secondProject.id), setup.session.token, { name: 'Elsewhere', panels: [errorsPanel] });
    const stored = await storedDashboard(elsewhere.id);
    const before = await storedDashboards(setup.project.id);
    for (const id of ['not-a-uuid', randomUUID(), elsewhere.id]) {
      for (const reply of [
        await server.api.get(`${base}/${id}`, { token: setup.session.token }),
        await server.api.put(`${base}/${id}`, { token: setup.session.token, body: { name: 'Taken over' } }),
        await server.api.delete(`${base}/${id}`, { token: setup.session.token }),
      ]) {
        expect([id, reply.status, reply.body.error]).toEqual([id, 404, { code: 'NOT_FOUND', message: 'dashboard not found' }]);
      }
    }
    expect(await storedDashboard(elsewhere.id)).toEqual(stored);
    expect(await storedDashboards(setup.project.id)).toBe(before);
  });

  it("answers 401 UNAUTHORIZED without a session and 404 NOT_FOUND to another organization's user, changing nothing", async () => {
    const dashboard = await createDashboard(base, setup.session.token, { name: 'Private', panels: [errorsPanel] });
    const stored = await storedDashboard(dashboard.id);
    const before = await storedDashboards(setup.project.id);

    for (const reply of [
      await server.api.get(base),
      await server.api.post(base, { body: { name: 'Anonymous' } }),
      await server.api.get(`${base}/${dashboard.id}`),
      await server.api.put(`${base}/${dashboard.id}`, { body: { name: 'Anonymous' } }),
      await server.api.delete(`${base}/${dashboard.id}`),
    ]) {
      expect([reply.status, reply.body.error.code]).toEqual([401, 'UNAUTHORIZED']);
    }

    const stranger = await signup(server.api);
    const strangersPath = dashboardsPath(stranger.organization.id, setup.project.id);
    for (const path of [base, strangersPath]) {
      for (const reply of [
        await server.api.get(path, { token: stranger.token }),
        await server.api.post(path, { token: stranger.token, body: { name: 'Stranger' } }),
        await server.api.get(`${path}/${dashboard.id}`, { token: stranger.token }),
        await server.api.put(`${path}/${dashboard.id}`, { token: stranger.token, body: { name: 'Stranger' } }),
        await server.api.delete(`${path}/${dashboard.id}`, { token: stranger.token }),
      ]) {
        expect([path, reply.status, reply.body.error.code]).toEqual([path, 404, 'NOT_FOUND']);
      }
    }
    expect(await storedDashboard(dashboard.id)).toEqual(stored);
    expect(await storedDashboards(setup.project.id)).toBe(before);
  });

  it('refuses the 101st dashboard of a project with 409 CONFLICT, storing nothing', async () => {
    const full = await setupProject(server.api);
    const path = dashboardsPath(full.session.organization.id, full.project.id);
    await server.standalone.metadata.query(
      `insert into dashboards (id, project_id, name, panels) select gen_random_uuid(), $1, 'Bulk ' || n, '[]'::jsonb from generate_series(1, $2::int) n`,
      [full.project.id, MAX_PROJECT_DASHBOARDS - 1],
    );
    const hundredth = await createDashboard(path, full.session.token, { name: 'The hundredth' });
    expect(await storedDashboards(full.project.id)).toBe(100);

    const refused = await server.api.post(path, { token: full.session.token, body: { name: 'One too many' } });
    expect([refused.status, refused.body.error]).toEqual([409, { code: 'CONFLICT', message: 'a project holds at most 100 dashboards' }]);
    expect(await storedDashboards(full.project.id)).toBe(100);
    expect((await server.api.get(path, { token: full.session.token })).body.dashboards).toHaveLength(100);

    // The limit counts the dashboards there are: one deleted makes room for one.
    expect((await server.api.delete(`${path}/${hundredth.id}`, { token: full.session.token })).status).toBe(204);
    await createDashboard(path, full.session.token, { name: 'In its place' });
    expect(await storedDashboards(full.project.id)).toBe(100);
  });

  it("keeps a deleted project's dashboards, unreachable, until the project's purge removes them", async () => {
    const doomed = await setupProject(server.api);
    const orgId = doomed.session.organization.id;
    const path = dashboardsPath(orgId, doomed.project.id);
    const dashboard = await createDashboard(path, doomed.session.token, { name: 'Doomed', panels: [errorsPanel] });

    expect((await server.api.delete(`/api/orgs/${orgId}/projects/${doomed.project.id}`, { token: doomed.session.token })).status).toBe(200);
    const hidden = await server.api.get(`${path}/${dashboard.id}`, { token: doomed.session.token });
    expect([hidden.status, hidden.body.error]).toEqual([404, { code: 'NOT_FOUND', message: 'project not found' }]);
    // Restorable for 30 days, with its dashboards.
    expect(await storedDashboards(doomed.project.id)).toBe(1);

    await server.standalone.metadata.query('update projects set deleted_at = $2 where id = $1', [doomed.project.id, new Date(Date.now() - 31 * DAY_MS)]);
    const cleanup = await server.api.post('/admin/cleanup', { token: TEST_ADMIN_TOKEN });
    expect(cleanup.status).toBe(200);
    expect(await server.standalone.metadata.query('select id from projects where id = $1', [doomed.project.id])).toHaveLength(0);
    expect(await storedDashboards(doomed.project.id)).toBe(0);
  });
});
