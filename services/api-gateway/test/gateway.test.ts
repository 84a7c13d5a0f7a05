import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createLogger, createServiceApp, finishServiceApp, listen, type RunningServer } from '@tlm/core';
import { Api, setupProject, startTestServer, type TestServer } from '@tlm/testkit';
import { gatewayRoutes, upstreamOf, upstreamReadiness, type Upstream } from '@tlm/api-gateway';

const UPSTREAMS: Upstream[] = ['ingest-gateway', 'query', 'key-admin', 'dashboard-api', 'alerts', 'ai', 'exports', 'status-pages'];

describe('the route table', () => {
  it.each([
    ['/v1/logs', 'ingest-gateway'],
    ['/v1/events', 'ingest-gateway'],
    ['/v1/envelope', 'ingest-gateway'],
    ['/api/42/envelope/', 'ingest-gateway'],
    ['/batch/', 'ingest-gateway'],
    ['/i/v0/e/', 'ingest-gateway'],
    ['/flags/', 'ingest-gateway'],
    ['/flags', 'ingest-gateway'],
    ['/decide/', 'ingest-gateway'],
    ['/array/tlm_pk_us_abc/config', 'ingest-gateway'],
    ['/array/tlm_pk_us_abc/config.js', 'ingest-gateway'],
    ['/v1/otlp/v1/traces', 'ingest-gateway'],
    ['/v1/artifacts', 'ingest-gateway'],
    ['/v1/symbolicate', 'ingest-gateway'],
    ['/v1/gql/query', 'query'],
    ['/v1/schema', 'query'],
    ['/v1/info', 'query'],
    ['/v1/openapi.json', 'query'],
    ['/api/orgs/o/projects/p/gql', 'query'],
    ['/api/orgs/o/projects/p/schema', 'query'],
    ['/api/orgs/o/projects/p/replay/sessions', 'query'],
    ['/api/orgs/o/projects/p/replay/sessions/s/chunks/0', 'query'],
    ['/api/orgs/o/projects/p/profiles/chunks/c', 'query'],
    ['/api/orgs/o/projects/p/attachments', 'query'],
    ['/api/orgs/o/projects/p/dashboards', 'query'],
    ['/api/orgs/o/projects/p/dashboards/d', 'query'],
    ['/api/orgs/o/projects/p/keys', 'key-admin'],
    ['/api/orgs/o/projects/p/keys/k/revoke', 'key-admin'],
    ['/api/auth/signup', 'dashboard-api'],
    ['/api/orgs/o/projects/p', 'dashboard-api'],
    ['/api/orgs/o/projects/p/restore', 'dashboard-api'],
    ['/api/orgs/o/projects/p/issues/i/resolve', 'dashboard-api'],
    ['/api/orgs/o/gdpr/export', 'dashboard-api'],
    ['/v1/gql/nl', 'ai'],
    ['/v1/ai/chat', 'ai'],
    ['/v1/ai/chat/stream', 'ai'],
    ['/api/orgs/o/projects/p/gql/nl', 'ai'],
    ['/api/orgs/o/projects/p/ai/chat', 'ai'],
    ['/api/orgs/o/projects/p/ai/chat/stream', 'ai'],
    ['/api/orgs/o/projects/p/gql/autocomplete', 'query'],
    ['/v1/alerts', 'alerts'],
    ['/v1/alerts/a/mute', 'alerts'],
    ['/v1/slos/s', 'alerts'],
    ['/api/orgs/o/projects/p/alerts', 'alerts'],
    ['/api/orgs/o/projects/p/alerts/a/deliveries', 'alerts'],
    ['/api/orgs/o/projects/p/slos/s/history', 'alerts'],
    ['/v1/exports', 'exports'],
    ['/v1/exports/e/download', 'exports'],
    ['/api/orgs/o/projects/p/exports', 'exports'],
    ['/v1/status/acme', 'status-pages'],
    ['/v1/status/acme/incidents', 'status-pages'],
    ['/v1/status-pages/acme/resolve', 'status-pages'],
    ['/api/orgs/o/status-pages/acme/incidents', 'status-pages'],
  ])('sends %s to %s', (path, upstream) => {
    expect(upstreamOf(path)).toBe(upstream);
  });

  it.each([
    ['GET', '/v1/replay/sessions', 'query'],
    ['GET', '/v1/replay/sessions/s-1/chunks/0', 'query'],
    ['GET', '/v1/profiles/chunks', 'query'],
    ['GET', '/v1/profiles/chunks/c-1', 'query'],
    ['GET', '/v1/attachments', 'query'],
    ['GET', '/v1/attachments/0b9a8f3e-1111-4222-8333-444455556666', 'query'],
    ['POST', '/v1/replay/sessions', 'ingest-gateway'],
    ['POST', '/v1/replay/chunks', 'ingest-gateway'],
    ['POST', '/v1/profiles/chunks', 'ingest-gateway'],
    ['OPTIONS', '/v1/replay/chunks', 'ingest-gateway'],
  ])('sends %s %s to %s (reads and ingest share the replay and profile paths)', (method, path, upstream) => {
    expect(upstreamOf(path, method)).toBe(upstream);
  });

  it('owns nothing outside /v1, /api and the SDK capture paths', () => {
    expect(upstreamOf('/')).toBeUndefined();
    expect(upstreamOf('/v1/unknown')).toBeUndefined();
    expect(upstreamOf('/admin/cleanup')).toBeUndefined();
    expect(upstreamOf('/array/tlm_pk_us_abc/array.js')).toBeUndefined();
    expect(upstreamOf('/flags/extra')).toBeUndefined();
  });
});

describe('the API gateway in front of running services', () => {
  let backend: TestServer;
  let gateway: RunningServer;
  let api: Api;
  const webDistDir = mkdtempSync(path.join(tmpdir(), 'tlm-gateway-web-'));
  writeFileSync(path.join(webDistDir, 'index.html'), '<!doctype html><title>tlm</title>');

  beforeAll(async () => {
    backend = await startTestServer();
    // Every upstream is the standalone server here: it serves all of their routes.
    const targets = Object.fromEntries(UPSTREAMS.map((name) => [name, backend.url])) as Record<Upstream, string>;
    const logger = createLogger('api-gateway', 'silent');
    const app = createServiceApp({ service: 'api-gateway', logger, readiness: upstreamReadiness(targets), trustedProxies: ['loopback'] });
    app.use(gatewayRoutes(targets, 5_000, webDistDir));
    finishServiceApp(app, logger);
    gateway = await listen(app, 0, '127.0.0.1', 1_000);
    api = new Api(gateway.url);
  });
  afterAll(async () => {
    await gateway.close();
    await backend.close();
    rmSync(webDistDir, { recursive: true, force: true });
  });

  it('serves the web app to page navigations and keeps unknown API paths JSON', async () => {
    const html = { accept: 'text/html,*/*;q=0.8' };
    const page = await api.get('/orgs/1/projects/2/explore?q=from%3Alogs', { headers: html });
    expect(page.status).toBe(200);
    expect(page.text).toBe('<!doctype html><title>tlm</title>');
    const unknown = await api.get('/api/no-such-route', { headers: html });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('NOT_FOUND');
  });

  it('sends a navigation to a public status page to the status pages service, not to the web app', async () => {
    expect(upstreamOf('/status/acme', 'GET')).toBe('status-pages');
    expect(upstreamOf('/status/acme', 'POST')).toBeUndefined();
    const page = await api.get('/status/no-such-page', { headers: { accept: 'text/html,*/*;q=0.8' } });
    expect(page.status).toBe(404);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.text).toContain('Status page not found');
  });

  it('carries signup, project and key creation, and ingest through to the services', async () => {
    const setup = await setupProject(api);
    const reply = await api.post('/v1/logs', {
      token: setup.secretKey,
      body: { batch: [{ severity: 'info', message: 'through the gateway' }] },
      headers: { 'x-forwarded-for': '198.51.100.7' },
    });
    expect(reply.status).toBe(202);
    const [row] = await backend.standalone.analytics.query(`SELECT properties FROM logs WHERE message = 'through the gateway'`);
    // The client address survives the extra hop: the gateway appends itself to X-Forwarded-For.
    expect(JSON.parse(row!['properties'] as string)['$ip']).toBe('198.51.100.7');
  });

  it('counts proxied requests under the upstream that answered, not as unmatched', async () => {
    const setup = await setupProject(api);
    const sent = await api.post('/v1/events', { token: setup.secretKey, body: { batch: [{ event: 'gateway-metrics' }] } });
    expect(sent.status).toBe(202);
    const metrics = (await api.get('/metrics')).text;
    expect(metrics).toContain('tlm_http_requests_total{service="api-gateway",method="POST",route="upstream:ingest-gateway",status="202"}');
    expect(metrics).toContain('tlm_http_requests_total{service="api-gateway",method="POST",route="upstream:key-admin",status="201"}');
    expect(metrics).not.toMatch(/tlm_http_requests_total\{service="api-gateway",[^}]*route="unmatched",status="20\d"\}/);
  });

  it('passes error answers through unchanged', async () => {
    const reply = await api.post('/v1/logs', { body: { batch: [] } });
    expect(reply.status).toBe(401);
    expect(reply.body.error.code).toBe('UNAUTHORIZED');
  });

  it('answers 404 NOT_FOUND for paths no service owns, readable from any origin', async () => {
    const reply = await api.get('/nowhere', { headers: { origin: 'http://shop.example' } });
    expect(reply.status).toBe(404);
    expect(reply.body.error.code).toBe('NOT_FOUND');
    expect(reply.headers.get('access-control-allow-origin')).toBe('*');
  });

  it("carries posthog-js's flags and remote-config requests to the ingest gateway", async () => {
    const setup = await setupProject(api);
    const flags = await api.post('/flags/?v=2', { body: { token: setup.publicKey, distinct_id: 'gw-user' }, headers: { origin: 'http://shop.example' } });
    expect(flags.status).toBe(200);
    expect(flags.body).toMatchObject({ flags: {}, errorsWhileComputingFlags: false });
    expect(flags.headers.get('access-control-allow-origin')).toBe('http://shop.example');
    const config = await api.get(`/array/${setup.publicKey}/config`);
    expect([config.status, config.body.token]).toEqual([200, setup.publicKey]);
  });

  it('is ready when every upstream answers /healthz', async () => {
    const reply = await api.get('/readyz');
    expect(reply.status).toBe(200);
    expect(reply.body.checks.map((check: { name: string }) => check.name).sort()).toEqual([...UPSTREAMS].sort());
  });

  it('answers 502 when an upstream is down', async () => {
    const closed = await listen(createServiceApp({ service: 'x', logger: createLogger('x', 'silent'), readiness: [], trustedProxies: [] }), 0, '127.0.0.1', 100);
    const port = (closed.server.address() as AddressInfo).port;
    await closed.close();
    const down = `http://127.0.0.1:${port}`;
    const logger = createLogger('api-gateway', 'silent');
    const app = createServiceApp({ service: 'api-gateway', logger, readiness: [], trustedProxies: [] });
    app.use(gatewayRoutes(Object.fromEntries(UPSTREAMS.map((name) => [name, down])) as Record<Upstream, string>, 1_000));
    finishServiceApp(app, logger);
    const broken = await listen(app, 0, '127.0.0.1', 100);
    try {
      const reply = await new Api(broken.url).get('/api/auth/me');
      expect(reply.status).toBe(502);
      expect(reply.body.error.code).toBe('INTERNAL_ERROR');
    } finally {
      await broken.close();
    }
  });
});
