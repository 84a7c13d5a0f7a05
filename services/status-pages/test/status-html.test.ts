import { signup, startTestServer, type TestServer } from '@tlm/testkit';

let server: TestServer;
let owner: Awaited<ReturnType<typeof signup>>;
let base: string;
const slug = `html-${process.pid}`;
const HTML = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };
const DAY_MS = 86_400_000;

/** The `<li>` bars of one component's uptime list, by the component's name. */
function barsOf(html: string, component: string): { level: string; title: string }[] {
  const list = new RegExp(`<ol class="bars" aria-label="Uptime of ${component}, last 90 days">(.*?)</ol>`).exec(html);
  if (!list) throw new Error(`no uptime bars for ${component}`);
  return [...list[1]!.matchAll(/<li class="([a-z_]+)" title="([^"]*)"><\/li>/g)].map((match) => ({ level: match[1]!, title: match[2]! }));
}

async function incidentUpdates(id: string): Promise<unknown[]> {
  const rows = await server.standalone.metadata.query<{ updates: unknown[] }>('select updates from status_incidents where id = $1', [id]);
  return rows[0]!.updates;
}

beforeAll(async () => {
  server = await startTestServer();
  owner = await signup(server.api);
  base = `/api/orgs/${owner.organization.id}/status-pages`;
  const created = await server.api.post(base, { token: owner.token, body: { slug, title: 'Acme <Cloud>', components: [{ name: 'API' }, { name: 'Dashboard' }] } });
  expect(created.status).toBe(201);
});
afterAll(() => server.close());

describe('incident updates', () => {
  it('appends an update that sets the incident status, and resolving stamps resolved_at', async () => {
    const opened = await server.api.post(`${base}/${slug}/incidents`, {
      token: owner.token,
      body: { title: 'Slow queries', status: 'investigating', impact: 'minor', components: ['API'], message: 'Looking into it' },
    });
    const identified = await server.api.post(`${base}/${slug}/incidents/${opened.body.id}/updates`, {
      token: owner.token,
      body: { status: 'identified', message: 'An index is missing' },
    });
    expect(identified.status).toBe(201);
    expect(identified.body).toMatchObject({ id: opened.body.id, status: 'identified', resolved_at: null });
    expect(identified.body.updates.map((update: { status: string; message: string }) => [update.status, update.message])).toEqual([
      ['investigating', 'Looking into it'],
      ['identified', 'An index is missing'],
    ]);
    const resolved = await server.api.post(`${base}/${slug}/incidents/${opened.body.id}/updates`, { token: owner.token, body: { status: 'resolved', message: 'Index added' } });
    expect(resolved.body).toMatchObject({ status: 'resolved', resolved_at: expect.any(String) });
    expect((await server.api.get(`/v1/status/${slug}/incidents`)).body.incidents[0].updates).toHaveLength(3);
  });

  it('refuses bad updates with 400 VALIDATION_ERROR and stores nothing', async () => {
    const opened = await server.api.post(`${base}/${slug}/incidents`, { token: owner.token, body: { title: 'Flaky', status: 'investigating', impact: 'none' } });
    const bodies: unknown[] = [
      {},
      { status: 'identified' },
      { message: 'no status' },
      { status: 'fixed', message: 'unknown status' },
      { status: 'identified', message: '' },
      { status: 'identified', message: 'x'.repeat(5_001) },
      { status: 'identified', message: 'extra field', impact: 'major' },
    ];
    for (const body of bodies) {
      const reply = await server.api.post(`${base}/${slug}/incidents/${opened.body.id}/updates`, { token: owner.token, body });
      expect([JSON.stringify(body).slice(0, 60), reply.status, reply.body.error?.code]).toEqual([JSON.stringify(body).slice(0, 60), 400, 'VALIDATION_ERROR']);
    }
    expect(await incidentUpdates(opened.body.id)).toHaveLength(1);
    const [row] = await server.standalone.metadata.query<{ status: string }>('select status from status_incidents where id = $1', [opened.body.id]);
    expect(row!.status).toBe('investigating');
    await server.api.post(`${base}/${slug}/incidents/${opened.body.id}/updates`, { token: owner.token, body: { status: 'resolved', message: 'Gone' } });
  });

  it('answers 404 NOT_FOUND for an unknown incident or another organization, and 401 without a token', async () => {
    const opened = await server.api.post(`${base}/${slug}/incidents`, { token: owner.token, body: { title: 'Private', status: 'investigating', impact: 'none' } });
    const update = { status: 'monitoring', message: 'Watching' };
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      const reply = await server.api.post(`${base}/${slug}/incidents/${id}/updates`, { token: owner.token, body: update });
      expect([reply.status, reply.body.error.code]).toEqual([404, 'NOT_FOUND']);
    }
    const stranger = await signup(server.api);
    const foreign = await server.api.post(`/api/orgs/${stranger.organization.id}/status-pages/${slug}/incidents/${opened.body.id}/updates`, { token: stranger.token, body: update });
    expect([foreign.status, foreign.body.error.code]).toEqual([404, 'NOT_FOUND']);
    const anonymous = await server.api.post(`${base}/${slug}/incidents/${opened.body.id}/updates`, { body: update });
    expect([anonymous.status, anonymous.body.error.code]).toEqual([401, 'UNAUTHORIZED']);
    expect(await incidentUpdates(opened.body.id)).toHaveLength(1);
    await server.api.post(`${base}/${slug}/incidents/${opened.body.id}/updates`, { token: owner.token, body: { status: 'resolved', message: 'Closed' } });
  });
});

describe('the public HTML page', () => {
  let active: string;

  beforeAll(async () => {
    const opened = await server.api.post(`${base}/${slug}/incidents`, {
      token: owner.token,
      body: { title: '<script>alert("x")</script> API errors', status: 'investigating', impact: 'major', components: ['API'], message: 'First look & <b>triage</b>' },
    });
    active = opened.body.id;
    await server.api.post(`${base}/${slug}/incidents/${active}/updates`, { token: owner.token, body: { status: 'identified', message: 'A bad deploy' } });
    // A resolved outage three days ago, 10:00 to 12:00 UTC, for the uptime bars and the history.
    const past = await server.api.post(`${base}/${slug}/incidents`, { token: owner.token, body: { title: 'Database down', status: 'investigating', impact: 'critical', components: ['Dashboard'] } });
    await server.api.post(`${base}/${slug}/incidents/${past.body.id}/updates`, { token: owner.token, body: { status: 'resolved', message: 'Failed over' } });
    const day = Math.floor(Date.now() / DAY_MS) * DAY_MS - 3 * DAY_MS;
    // The page has been up for longer than the uptime window: every one of its 90 days counts.
    await server.standalone.metadata.query(`update status_pages set created_at = now() - interval '100 days' where slug = $1`, [slug]);
    await server.standalone.metadata.query('update status_incidents set created_at = $2, resolved_at = $3 where id = $1', [
      past.body.id,
      new Date(day + 10 * 3_600_000),
      new Date(day + 12 * 3_600_000),
    ]);
  });

  it('renders components, the active incident with its updates newest first, and escapes every text', async () => {
    const page = await server.api.get(`/status/${slug}`, { headers: HTML });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.text).toContain('<title>Acme &#60;Cloud&#62;</title>');
    expect(page.text).toContain('Partial outage');
    expect(page.text).toMatch(/<h3>API<\/h3><span class="status partial_outage">Partial outage<\/span>/);
    expect(page.text).toMatch(/<h3>Dashboard<\/h3><span class="status operational">Operational<\/span>/);
    expect(page.text).toContain('&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62; API errors');
    expect(page.text).not.toContain('<script');
    expect(page.text).toContain('First look &#38; &#60;b&#62;triage&#60;/b&#62;');
    const active = page.text.slice(page.text.indexOf('Active incidents'), page.text.indexOf('id="components-title"'));
    expect(active.indexOf('A bad deploy')).toBeGreaterThan(-1);
    expect(active.indexOf('A bad deploy')).toBeLessThan(active.indexOf('First look'));
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
  });

  it('draws 90 daily uptime bars per component from the incidents, with a title for each day', async () => {
    const page = await server.api.get(`/status/${slug}`, { headers: HTML });
    const api = barsOf(page.text, 'API');
    const dashboard = barsOf(page.text, 'Dashboard');
    expect([api.length, dashboard.length]).toEqual([90, 90]);
    const today = new Date().toISOString().slice(0, 10);
    const outageDay = new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS - 3 * DAY_MS).toISOString().slice(0, 10);
    expect(api.at(-1)).toMatchObject({ level: 'partial_outage' });
    expect(api.at(-1)!.title).toMatch(new RegExp(`^${today} · [\\d.]+% uptime · Partial outage: `));
    expect(dashboard[86]).toEqual({ level: 'major_outage', title: `${outageDay} · 91.67% uptime · Major outage: Database down` });
    expect(dashboard[0]).toEqual({ level: 'operational', title: `${new Date(Date.now() - 89 * DAY_MS).toISOString().slice(0, 10)} · 100% uptime · No incidents` });
    expect(api[86]!.level).toBe('operational');
  });

  it("has no data on the days before a new page existed, and counts its uptime from then", async () => {
    const young = `young-${slug}`;
    const made = await server.api.post(base, { token: owner.token, body: { slug: young, title: 'Young', components: [{ name: 'API' }] } });
    expect(made.status).toBe(201);
    const down = await server.api.post(`${base}/${young}/incidents`, { token: owner.token, body: { title: 'Down', status: 'investigating', impact: 'critical', components: ['API'] } });
    // Made 30 minutes ago, down for the last 20 of them.
    await server.standalone.metadata.query(`update status_pages set created_at = now() - interval '30 minutes' where slug = $1`, [young]);
    await server.standalone.metadata.query(`update status_incidents set created_at = now() - interval '20 minutes' where id = $1`, [down.body.id]);
    const made30 = new Date(Date.now() - 30 * 60_000).toISOString().slice(0, 10);
    const page = await server.api.get(`/status/${young}`, { headers: HTML });
    const bars = barsOf(page.text, 'API');
    for (const bar of bars.filter((candidate) => candidate.title.slice(0, 10) < made30)) {
      expect(bar).toEqual({ level: 'no_data', title: `${bar.title.slice(0, 10)} · No data: the page did not exist yet` });
    }
    // Today's bar and at most yesterday's (past midnight UTC) are the page's; the other 88 have no data.
    expect(bars.filter((bar) => bar.level === 'no_data').length).toBeGreaterThanOrEqual(88);
    expect(bars[89]!.level).toBe('major_outage');
    // Down for 20 of its 30 minutes: a third, not the 99.98% a 90-day window would say.
    const snapshot = await server.api.get(`/v1/status/${young}`);
    expect(snapshot.body.uptime.percent).toBeGreaterThan(32);
    expect(snapshot.body.uptime.percent).toBeLessThan(35);
  });

  it('lists resolved incidents of the last 90 days in the history', async () => {
    const page = await server.api.get(`/status/${slug}`, { headers: HTML });
    const history = page.text.slice(page.text.indexOf('id="history-title"'));
    expect(history).toContain('Database down');
    expect(history).toContain('Failed over');
    expect(history).toContain('Slow queries');
    expect(history).not.toContain('API errors');
  });

  it('says of an empty history that nothing was resolved, not that nothing happened, while an incident is open', async () => {
    const quiet = `${slug}-open`;
    expect((await server.api.post(base, { token: owner.token, body: { slug: quiet, title: 'Open only', components: [{ name: 'API' }] } })).status).toBe(201);
    const opened = await server.api.post(`${base}/${quiet}/incidents`, { token: owner.token, body: { title: 'Checkout failing', status: 'investigating', impact: 'major' } });
    expect(opened.status).toBe(201);
    const page = await server.api.get(`/status/${quiet}`, { headers: HTML });
    const history = page.text.slice(page.text.indexOf('id="history-title"'));
    expect(history).toContain('No incidents resolved in the last 90 days.');
    expect(page.text).not.toContain('No incidents in the last');
    expect(page.text.slice(page.text.indexOf('Active incidents'), page.text.indexOf('id="components-title"'))).toContain('Checkout failing');
  });

  it('is cacheable: a short max-age, an ETag, 304 on a match and a new ETag after a change', async () => {
    const first = await server.api.get(`/status/${slug}`, { headers: HTML });
    expect(first.headers.get('cache-control')).toBe('public, max-age=30');
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]+"$/);
    const again = await server.api.get(`/status/${slug}`, { headers: { ...HTML, 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    const monitoring = await server.api.post(`${base}/${slug}/incidents/${active}/updates`, { token: owner.token, body: { status: 'monitoring', message: 'A fix is out' } });
    expect(monitoring.status).toBe(201);
    const changed = await server.api.get(`/status/${slug}`, { headers: { ...HTML, 'if-none-match': etag } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
    expect(changed.text).toContain('A fix is out');
  });

  it('answers an unknown slug with a 404 HTML page', async () => {
    const missing = await server.api.get('/status/no-such-page', { headers: HTML });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(missing.text).toContain('Status page not found');
  });

  it('gives JSON clients the JSON snapshot on the same path, and the JSON route stays as it was', async () => {
    const json = await server.api.get(`/status/${slug}`, { headers: { accept: 'application/json' } });
    expect(json.status).toBe(200);
    expect(json.headers.get('content-type')).toContain('application/json');
    expect(json.headers.get('vary')).toContain('Accept');
    const v1 = await server.api.get(`/v1/status/${slug}`);
    expect({ ...json.body, updated_at: null }).toEqual({ ...v1.body, updated_at: null });
    expect(v1.body).toMatchObject({ slug, status: 'partial_outage', incidents: [{ id: active, status: 'monitoring' }] });
    const missing = await server.api.get('/status/no-such-page', { headers: { accept: 'application/json' } });
    expect([missing.status, missing.body.error.code]).toEqual([404, 'NOT_FOUND']);
  });
});
