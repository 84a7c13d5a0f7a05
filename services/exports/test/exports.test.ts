import { strFromU8, unzipSync } from 'fflate';
import { Api, createKey, eventually, setupProject, startTestServer, type TestServer } from '@tlm/testkit';

let server: TestServer;
let setup: Awaited<ReturnType<typeof setupProject>>;

beforeAll(async () => {
  server = await startTestServer({ EXPORT_POLL_MS: '100' });
  setup = await setupProject(server.api);
  await server.api.post('/v1/logs', {
    token: setup.secretKey,
    body: { batch: [1, 2, 3].map((n) => ({ severity: n === 2 ? 'error' : 'info', message: `line ${n}, "quoted"`, properties: { n } })) },
  });
});
afterAll(() => server.close());

async function finished(id: string, key = setup.secretKey, timeoutMs = 15_000) {
  return eventually(async () => {
    const jobs = (await server.api.get('/v1/exports', { token: key })).body.exports as { id: string; status: string }[];
    const job = jobs.find((candidate) => candidate.id === id)!;
    expect(job.status).toBe('done');
    return job as { id: string; status: string; rows: number; size: number; download_url: string; format: string };
  }, timeoutMs);
}

async function download(url: string): Promise<{ status: number; type: string | null; body: Buffer }> {
  const response = await fetch(url);
  return { status: response.status, type: response.headers.get('content-type'), body: Buffer.from(await response.arrayBuffer()) };
}

describe('exports', () => {
  it('runs a CSV export of a query in the background and serves it at a signed link that needs no key', async () => {
    const queued = await server.api.post('/v1/exports', { token: setup.secretKey, body: { format: 'csv', query: 'from:logs | last:1h' } });
    expect(queued.status).toBe(202);
    expect(queued.body).toEqual({ id: expect.any(String), status: 'queued' });
    const job = await finished(queued.body.id);
    expect(job).toMatchObject({ format: 'csv', query: 'from:logs | last:1h', source: null, rows: 3, size: expect.any(Number) });
    const file = await download(job.download_url);
    expect(file.status).toBe(200);
    expect(file.type).toContain('text/csv');
    const lines = file.body.toString('utf8').trimEnd().split('\r\n');
    expect(lines[0]).toContain('message');
    expect(lines).toHaveLength(4);
    expect(file.body.toString('utf8')).toContain('"line 2, ""quoted"""');
  });

  it("holds only as many rows as the query's own limit answers", async () => {
    const queued = await server.api.post('/v1/exports', { token: setup.secretKey, body: { format: 'json', query: 'from:logs | fields message | limit 2' } });
    const job = await finished(queued.body.id);
    expect(job).toMatchObject({ format: 'json', rows: 2 });
    const rows = JSON.parse((await download(job.download_url)).body.toString('utf8')) as unknown[];
    expect(rows).toHaveLength(2);
  });

  it('refuses a tampered or missing token with 401 UNAUTHORIZED', async () => {
    const queued = await server.api.post('/v1/exports', { token: setup.secretKey, body: { format: 'json', source: 'logs' } });
    const job = await finished(queued.body.id);
    expect(job).toMatchObject({ query: null, source: 'logs' });
    const url = new URL(job.download_url);
    const tampered = await new Api(url.origin).get(`${url.pathname}?token=${url.searchParams.get('token')!.slice(0, -2)}xx`);
    expect(tampered.status).toBe(401);
    expect(tampered.body.error.code).toBe('UNAUTHORIZED');
    expect((await new Api(url.origin).get(url.pathname)).status).toBe(401);
    const json = JSON.parse((await download(job.download_url)).body.toString('utf8')) as unknown[];
    expect(json).toHaveLength(3);
  });

  it('packs a GDPR ZIP with the project and one JSON-lines file per source', async () => {
    const queued = await server.api.post('/v1/exports', { token: setup.secretKey, body: { format: 'gdpr_zip' } });
    const job = await finished(queued.body.id);
    const file = await download(job.download_url);
    expect(file.type).toBe('application/zip');
    const files = unzipSync(new Uint8Array(file.body));
    expect(Object.keys(files).sort()).toEqual(
      ['project.json', ...['logs', 'events', 'errors', 'issues', 'alerts', 'alert_events', 'spans', 'vitals', 'sessions'].map((source) => `${source}.jsonl`)].sort(),
    );
    expect(strFromU8(files['logs.jsonl']!).split('\n')).toHaveLength(3);
    expect(JSON.parse(strFromU8(files['project.json']!)).project.id).toBe(setup.project.id);
  });

  it('reads every row of a search across the 10,000-row page limit, rows of one millisecond included', async () => {
    const big = await setupProject(server.api);
    for (let request = 0; request < 21; request++) {
      const reply = await server.api.post('/v1/logs', {
        token: big.secretKey,
        body: { batch: Array.from({ length: 500 }, (_, item) => ({ severity: 'info', message: `bulk ${request}-${item}` })) },
      });
      expect(reply.status).toBe(202);
    }
    const queued = await server.api.post('/v1/exports', { token: big.secretKey, body: { format: 'json', source: 'logs' } });
    const job = await finished(queued.body.id, big.secretKey, 30_000);
    expect(job.rows).toBe(10_500);
    const rows = JSON.parse((await download(job.download_url)).body.toString('utf8')) as { id: string }[];
    expect(new Set(rows.map((row) => row.id)).size).toBe(10_500);

    // Fields without the time and the id, and a sort with a key after the time: paged alike, each row as asked.
    const fields = await server.api.post('/v1/exports', { token: big.secretKey, body: { format: 'json', query: 'from:logs | fields message | sort timestamp desc, severity' } });
    const fieldsJob = await finished(fields.body.id, big.secretKey, 30_000);
    expect(fieldsJob.rows).toBe(10_500);
    const messages = JSON.parse((await download(fieldsJob.download_url)).body.toString('utf8')) as Record<string, unknown>[];
    expect(new Set(messages.map((row) => row['message'])).size).toBe(10_500);
    expect(messages.every((row) => Object.keys(row).length === 1)).toBe(true);
  });

  it('stops serving a download link once its project is deleted, and again after a restore', async () => {
    const other = await setupProject(server.api);
    await server.api.post('/v1/logs', { token: other.secretKey, body: { batch: [{ severity: 'info', message: 'private' }] } });
    const queued = await server.api.post('/v1/exports', { token: other.secretKey, body: { format: 'json', source: 'logs' } });
    const job = await finished(queued.body.id, other.secretKey);
    expect((await download(job.download_url)).status).toBe(200);

    const projectPath = `/api/orgs/${other.session.organization.id}/projects/${other.project.id}`;
    expect((await server.api.delete(projectPath, { token: other.session.token })).status).toBe(200);
    const url = new URL(job.download_url);
    const gone = await new Api(url.origin).get(`${url.pathname}${url.search}`);
    expect(gone.status).toBe(404);
    expect(gone.body.error.code).toBe('NOT_FOUND');

    expect((await server.api.post(`${projectPath}/restore`, { token: other.session.token })).status).toBe(200);
    expect((await download(job.download_url)).status).toBe(200);
  });

  it("stops serving a download link once the organization's owner deletes their account", async () => {
    const other = await setupProject(server.api);
    const queued = await server.api.post('/v1/exports', { token: other.secretKey, body: { format: 'json', source: 'logs' } });
    const job = await finished(queued.body.id, other.secretKey);
    expect((await download(job.download_url)).status).toBe(200);
    expect((await server.api.delete('/api/auth/account', { token: other.session.token })).status).toBe(200);
    expect((await download(job.download_url)).status).toBe(404);
  });

  it('checks the request: scopes, a query or a source, not both (neither for a GDPR ZIP), and valid GQL, storing nothing refused', async () => {
    const reader = await createKey(server.api, setup.session, setup.project.id, { type: 'secret', scopes: ['data:read'] });
    expect((await server.api.post('/v1/exports', { token: reader.key, body: { format: 'csv' } })).status).toBe(403);
    expect((await server.api.get('/v1/exports', { token: reader.key })).status).toBe(403);
    const cases: [unknown, number][] = [
      [{ format: 'xml' }, 400],
      [{ format: 'csv', query: 'from:logs', source: 'logs' }, 400],
      [{ format: 'csv', source: 'nowhere' }, 400],
      [{ format: 'csv', query: 'from:logs | count by' }, 400],
      [{ format: 'csv', query: 'from:nowhere' }, 422],
      [{ format: 'gdpr_zip', query: 'from:logs' }, 400],
      [{ format: 'gdpr_zip', source: 'logs' }, 400],
    ];
    const listed = async () => (await server.api.get('/v1/exports', { token: setup.secretKey })).body.exports.length as number;
    const before = await listed();
    for (const [body, status] of cases) {
      const reply = await server.api.post('/v1/exports', { token: setup.secretKey, body });
      expect([JSON.stringify(body), reply.status, reply.body.error.code]).toEqual([JSON.stringify(body), status, 'VALIDATION_ERROR']);
    }
    expect(await listed()).toBe(before);
  });
});
