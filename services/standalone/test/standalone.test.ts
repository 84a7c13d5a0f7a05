import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { setupProject, startTestServer, type TestServer } from '@tlm/testkit';

let server: TestServer;
const logLines: string[] = [];

beforeAll(async () => {
  const stream = new PassThrough();
  stream.on('data', (chunk: Buffer) => logLines.push(...chunk.toString('utf8').split('\n').filter(Boolean)));
  server = await startTestServer({ MEMORY_LIMIT: '2GiB' }, stream);
});
afterAll(() => server.close());

describe('probes', () => {
  it('answers /healthz and /readyz with each store and the bus checked', async () => {
    expect((await server.api.get('/healthz')).body).toEqual({ status: 'ok' });
    const ready = await server.api.get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({
      status: 'ok',
      checks: [
        { name: 'metadata', status: 'ok' },
        { name: 'analytics', status: 'ok' },
        { name: 'bus', status: 'ok' },
        { name: 'blobs', status: 'ok' },
      ],
    });
  });
});

describe('/metrics', () => {
  it('counts requests by route and status, items by signal and outcome, and bus publish latency and lag', async () => {
    const setup = await setupProject(server.api);
    await server.api.post('/v1/logs', {
      token: setup.secretKey,
      body: { batch: [{ severity: 'info', message: 'counted' }, { severity: 'nope', message: 'rejected' }] },
    });
    await server.api.post('/v1/events', { token: setup.secretKey, body: { batch: [{ event: 'counted' }] } });
    const metrics = (await server.api.get('/metrics')).text;
    expect(metrics).toMatch(/tlm_http_requests_total\{service="standalone",method="POST",route="\/v1\/logs",status="202"\} 1/);
    expect(metrics).toMatch(/tlm_http_request_duration_seconds_bucket\{le="\+Inf",service="standalone",method="POST",route="\/v1\/logs",status="202"\} 1/);
    expect(metrics).toMatch(/tlm_ingest_items_total\{signal="logs",outcome="accepted"\} 1/);
    expect(metrics).toMatch(/tlm_ingest_items_total\{signal="logs",outcome="rejected"\} 1/);
    expect(metrics).toMatch(/tlm_ingest_items_total\{signal="events",outcome="accepted"\} 1/);
    expect(metrics).toMatch(/tlm_bus_publish_duration_seconds_count\{topic="tlm\.logs\.v1"\} 1/);
    expect(metrics).toMatch(/tlm_bus_consumer_lag\{topic="tlm\.logs\.v1",group="tlm-ingest-writer"\} 0/);
    expect(metrics).toMatch(/tlm_ingest_journal_sync_seconds_count\{topic="tlm\.logs\.v1"\} [1-9]/);
  });
});

describe('the memory budget', () => {
  it("gives DuckDB half of MEMORY_LIMIT, spilling under DATA_DIR, and reports its memory and the split in /metrics", async () => {
    const [setting] = await server.standalone.analytics.query("SELECT current_setting('memory_limit') AS memory_limit, current_setting('temp_directory') AS spill");
    expect(setting).toEqual({ memory_limit: '1.0 GiB', spill: expect.stringMatching(/duckdb-spill$/) });
    const metrics = (await server.api.get('/metrics')).text;
    expect(metrics).toMatch(/^tlm_memory_budget_bytes\{part="total"\} 2147483648$/m);
    expect(metrics).toMatch(/^tlm_memory_budget_bytes\{part="duckdb"\} 1073741824$/m);
    expect(metrics).toMatch(/^tlm_analytics_store_memory_bytes\{kind="limit"\} 1073741824$/m);
    expect(metrics).toMatch(/^tlm_analytics_store_memory_bytes\{kind="in_memory"\} \d+$/m);
    expect(metrics).toMatch(/^tlm_analytics_store_memory_bytes\{kind="spilled"\} \d+$/m);
    const budget = logLines.map((line) => JSON.parse(line) as Record<string, unknown>).find((line) => line['msg'] === 'memory budget');
    expect(budget).toMatchObject({ memory_limit: '2048MiB', duckdb_memory_limit: '1024MiB', node_share: '717MiB', pglite_share: '307MiB' });
  });
});

describe('request logs', () => {
  it('writes one JSON line per request with route, status and duration, and never a key, token or password', async () => {
    const setup = await setupProject(server.api);
    await server.api.post('/v1/logs', { token: setup.secretKey, body: { batch: [{ severity: 'info', message: 'logged' }] } });
    await server.api.post('/v1/logs?sentry_key=should-not-appear', { token: setup.publicKey, body: { batch: [] } });
    const requests = logLines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line['msg'] === 'request');
    expect(requests).toContainEqual(
      expect.objectContaining({ service: 'standalone', method: 'POST', route: '/v1/logs', path: '/v1/logs', status: 202, duration_ms: expect.any(Number) }),
    );
    expect(requests).toContainEqual(expect.objectContaining({ route: '/api/auth/signup', status: 201 }));
    const everything = logLines.join('\n');
    for (const secret of [setup.secretKey, setup.publicKey, setup.session.token, setup.session.password, 'should-not-appear']) {
      expect(everything).not.toContain(secret);
    }
  });
});

describe('JOURNAL_DIR', () => {
  it('keeps the ingest journal where it names, outside DATA_DIR, and stores what went through it', async () => {
    const journalDir = mkdtempSync(path.join(tmpdir(), 'tlm-journal-dir-'));
    const elsewhere = await startTestServer({ JOURNAL_DIR: journalDir });
    try {
      const setup = await setupProject(elsewhere.api);
      const sent = await elsewhere.api.post('/v1/logs', { token: setup.secretKey, body: { batch: [{ severity: 'info', message: 'journaled elsewhere' }] } });
      expect(sent.status).toBe(202);
      const counted = await elsewhere.api.post('/v1/gql/query', { token: setup.secretKey, body: { q: 'from:logs "journaled elsewhere" | count' } });
      expect(counted.body.data.results).toEqual([{ value: 1 }]);
      const logsTopic = path.join(journalDir, 'tlm.logs.v1');
      const segments = readdirSync(logsTopic).filter((name) => name.endsWith('.log'));
      expect(segments.reduce((bytes, name) => bytes + statSync(path.join(logsTopic, name)).size, 0)).toBeGreaterThan(0);
      expect(existsSync(path.join(elsewhere.dataDir, 'journal'))).toBe(false);
    } finally {
      await elsewhere.close();
      rmSync(journalDir, { recursive: true, force: true });
    }
  });
});
