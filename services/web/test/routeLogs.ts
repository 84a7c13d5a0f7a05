import { eventually, gqlRows, type ProjectSetup, type TestServer } from '@tlm/testkit';

/**
 * Three error logs and one info log over two routes (`/checkout` twice, `/search` once among the errors), stored and
 * counted before a page reads them: the data of the pages that answer questions about logs (Ask AI, dashboards).
 */
export async function sendRouteLogs(server: TestServer, setup: ProjectSetup): Promise<void> {
  const logs = [
    ...['/checkout', '/checkout', '/search'].map((route) => ({ severity: 'error', message: `request failed on ${route}`, properties: { route } })),
    { severity: 'info', message: 'request served', properties: { route: '/search' } },
  ];
  expect((await server.api.post('/v1/logs', { token: setup.secretKey, body: { batch: logs } })).status).toBe(202);
  await eventually(async () => {
    expect(await gqlRows(server.api, setup.secretKey, 'from:logs | count')).toEqual([{ value: 4 }]);
    expect((await server.api.get('/v1/schema', { token: setup.secretKey })).body.log_properties.length).toBeGreaterThan(0);
  });
}
