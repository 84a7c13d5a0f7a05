import { randomUUID } from 'node:crypto';
import { issuesTable, type IssueRow } from '@tlm/analytics-store';
import { createLogger, createServiceApp, finishServiceApp, listen } from '@tlm/core';
import { Api, startTestServer, type TestServer } from '@tlm/testkit';
import { RemoteAnalyticsStore, remoteAnalyticsRoutes } from '../src/remoteAnalytics';

/**
 * A small fleet's storage node answers its dashboard API's analytics calls on /internal/analytics, with
 * ANALYTICS_API_TOKEN; RemoteAnalyticsStore is the dashboard API's side of it.
 */

const TOKEN = 'remote-analytics-token-0123456789';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ ANALYTICS_API_TOKEN: TOKEN });
});
afterAll(() => server?.close());

function issueRow(projectId: string, title: string): IssueRow {
  return {
    project_id: projectId,
    id: randomUUID(),
    short_id: 1,
    title,
    culprit: 'app.js',
    fingerprint: 'f'.repeat(32),
    status: 'unresolved',
    level: 'error',
    event_count: 3,
    user_count: 1,
    first_seen: Date.parse('2026-01-01T00:00:00Z'),
    last_seen: Date.parse('2026-01-02T00:00:00Z'),
    release_first: null,
    release_last: null,
    resolved_in_release: null,
    updated_at: Date.parse('2026-01-02T00:00:00Z'),
  };
}

const titlesIn = async (projectId: string) =>
  (await server.standalone.analytics.query('SELECT title FROM issues WHERE project_id = $project_id ORDER BY title', { project_id: projectId })).map((row) => row['title']);

describe('the storage node analytics endpoints', () => {
  it("inserts, reads and deletes rows of the storage node's own store through RemoteAnalyticsStore", async () => {
    const store = await RemoteAnalyticsStore.connect(server.url, TOKEN);
    expect(store.dialect).toBe('duckdb');
    const projectId = randomUUID();
    await store.insert(issuesTable, [issueRow(projectId, 'TypeError: a'), issueRow(projectId, 'TypeError: b')]);
    expect(await titlesIn(projectId)).toEqual(['TypeError: a', 'TypeError: b']);
    expect(await store.query('SELECT count(*) AS n FROM issues WHERE project_id = $project_id', { project_id: projectId })).toEqual([{ n: 2 }]);
    await store.execute("DELETE FROM issues WHERE project_id = $project_id AND title = 'TypeError: a'", { project_id: projectId });
    expect(await titlesIn(projectId)).toEqual(['TypeError: b']);
    await expect(store.ping()).resolves.toBeUndefined();
  });

  it('refuses a wrong or missing token with 401 UNAUTHORIZED and changes nothing', async () => {
    const projectId = randomUUID();
    await server.standalone.analytics.insert(issuesTable, [issueRow(projectId, 'kept')]);
    const body = { sql: 'DELETE FROM issues WHERE project_id = $project_id', params: { project_id: projectId } };
    for (const token of ['not-the-analytics-token', undefined]) {
      const reply = await server.api.post('/internal/analytics/execute', { ...(token ? { token } : {}), body });
      expect(reply.status).toBe(401);
      expect(reply.body.error.code).toBe('UNAUTHORIZED');
    }
    expect(await titlesIn(projectId)).toEqual(['kept']);
    await expect(RemoteAnalyticsStore.connect(server.url, 'not-the-analytics-token')).rejects.toThrow(/answered ping with 401/);
  });

  it('refuses an insert into a table it does not have, and a statement without SQL, with 400 VALIDATION_ERROR', async () => {
    const projectId = randomUUID();
    const unknown = await server.api.post('/internal/analytics/insert', { token: TOKEN, body: { table: 'users', rows: [{ project_id: projectId }] } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.code).toBe('VALIDATION_ERROR');
    const empty = await server.api.post('/internal/analytics/query', { token: TOKEN, body: { sql: '' } });
    expect(empty.status).toBe(400);
    expect(empty.body.error.code).toBe('VALIDATION_ERROR');
    const extra = await server.api.post('/internal/analytics/insert', { token: TOKEN, body: { table: 'issues', rows: [], drop: true } });
    expect(extra.status).toBe(400);
    expect(extra.body.error.code).toBe('VALIDATION_ERROR');
    expect(await titlesIn(projectId)).toEqual([]);
  });

  it('is off, 404 NOT_FOUND, without ANALYTICS_API_TOKEN', async () => {
    const logger = createLogger('remote-analytics-test', 'silent');
    const app = createServiceApp({ service: 'remote-analytics-test', logger, readiness: [], trustedProxies: [] });
    app.use(remoteAnalyticsRoutes(server.standalone.analytics, undefined));
    finishServiceApp(app, logger);
    const running = await listen(app, 0, '127.0.0.1', 1_000);
    try {
      const reply = await new Api(running.url).post('/internal/analytics/query', { token: TOKEN, body: { sql: 'SELECT 1 AS n' } });
      expect(reply.status).toBe(404);
      expect(reply.body.error.code).toBe('NOT_FOUND');
    } finally {
      await running.close();
    }
  });
});
