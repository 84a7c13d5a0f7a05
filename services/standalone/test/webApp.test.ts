import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createLogger, createServiceApp, finishServiceApp, listen } from '@tlm/core';
import { webAppRoutes } from '@tlm/runtime';
import { Api, startTestServer, type TestServer } from '@tlm/testkit';

/** The web app served at / from the same origin as /api and /v1: pages get index.html, APIs keep their JSON. */

const INDEX = '<!doctype html><title>tlm</title><div id="root"></div>';
const BROWSER = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

let server: TestServer;
let distDir: string;

beforeAll(async () => {
  distDir = mkdtempSync(path.join(tmpdir(), 'tlm-web-'));
  mkdirSync(path.join(distDir, 'assets'));
  writeFileSync(path.join(distDir, 'index.html'), INDEX);
  writeFileSync(path.join(distDir, 'assets', 'index-abc123.js'), 'console.log("app")');
  server = await startTestServer({ WEB_DIST_DIR: distDir });
});
afterAll(async () => {
  await server.close();
  rmSync(distDir, { recursive: true, force: true });
});

describe('pages', () => {
  it.each(['/', '/login', '/orgs/1/projects/2/explore?q=from%3Alogs%20%7C%20last%3A1h'])('answers %s with index.html, never cached', async (page) => {
    const reply = await server.api.get(page, { headers: BROWSER });
    expect(reply.status).toBe(200);
    expect(reply.text).toBe(INDEX);
    expect(reply.headers.get('content-type')).toMatch(/^text\/html/);
    expect(reply.headers.get('cache-control')).toBe('no-cache');
    expect(reply.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(reply.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(reply.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('serves hashed assets with a year of immutable caching', async () => {
    const reply = await server.api.get('/assets/index-abc123.js');
    expect(reply.status).toBe(200);
    expect(reply.text).toBe('console.log("app")');
    expect(reply.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
  });

  it('answers a missing asset with JSON 404 NOT_FOUND', async () => {
    const reply = await server.api.get('/assets/index-gone.js');
    expect(reply.status).toBe(404);
    expect(reply.body.error.code).toBe('NOT_FOUND');
  });
});

describe('API paths', () => {
  it.each(['/api/no-such-route', '/v1/no-such-route', '/api', '/v1'])('keep answering JSON 404 NOT_FOUND for %s, even to a browser', async (unknown) => {
    const reply = await server.api.get(unknown, { headers: BROWSER });
    expect(reply.status).toBe(404);
    expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
    expect(reply.body.error.code).toBe('NOT_FOUND');
  });

  it('answer a script asking for JSON at a page path with JSON 404, not the app', async () => {
    const reply = await server.api.get('/orgs/1/projects', { headers: { accept: 'application/json' } });
    expect(reply.status).toBe(404);
    expect(reply.body.error.code).toBe('NOT_FOUND');
  });

  it('still answer the API routes themselves', async () => {
    const reply = await server.api.get('/api/auth/me', { headers: BROWSER });
    expect(reply.status).toBe(401);
    expect(reply.body.error.code).toBe('UNAUTHORIZED');
  });
});

describe('without a build', () => {
  it('answers pages with 404 NOT_FOUND naming the fix', async () => {
    const empty = mkdtempSync(path.join(tmpdir(), 'tlm-web-empty-'));
    const logger = createLogger('web', 'silent');
    const app = createServiceApp({ service: 'web', logger, readiness: [], trustedProxies: [] });
    app.use(webAppRoutes(empty));
    finishServiceApp(app, logger);
    const bare = await listen(app, 0, '127.0.0.1', 1_000);
    try {
      const reply = await new Api(bare.url).get('/', { headers: BROWSER });
      expect(reply.status).toBe(404);
      expect(reply.body.error.message).toBe(`the web app is not built in ${empty}: run make build`);
    } finally {
      await bare.close();
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
