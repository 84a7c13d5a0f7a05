import * as Sentry from '@sentry/node';
import { eventually, gqlRows, setupProject, startTestServer, type TestServer } from '@tlm/testkit';

/**
 * The setup page's Sentry (Node) snippet: a server's DSN carries the secret key, so the unmodified SDK's logs are
 * stored in a project that keeps "Allow browser logs" off; the same SDK with the public key's DSN has its logs refused.
 */

let server: TestServer;
let setup: Awaited<ReturnType<typeof setupProject>>;
let host: string;

const init = (key: string) =>
  Sentry.init({ dsn: `http://${key}@${host}/${setup.project.dsn_id}`, enableLogs: true, tracesSampleRate: 0, defaultIntegrations: false });

beforeAll(async () => {
  server = await startTestServer();
  setup = await setupProject(server.api);
  host = new URL(server.url).host;
});
afterAll(async () => {
  await Sentry.close(2_000);
  await server.close();
});

const logsSaying = (message: string) => gqlRows(server.api, setup.secretKey, `from:logs message:'${message}' | last:1h`);

describe('@sentry/node logs by the key in its DSN', () => {
  it('stores the logs of a DSN with the secret key, browser logs off', async () => {
    expect(setup.project.allow_browser_logs).toBe(false);
    init(setup.secretKey);
    Sentry.logger.info('sent with the server DSN', { route: '/checkout' });
    await Sentry.flush(5_000);
    const rows = await eventually(async () => {
      const found = await logsSaying('sent with the server DSN');
      if (found.length === 0) throw new Error('not stored yet');
      return found;
    });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ severity: 'info' });
  });

  it('refuses the logs of a DSN with the public key, and stores none of them', async () => {
    init(setup.publicKey);
    Sentry.logger.info('sent with the public DSN');
    await Sentry.flush(5_000);
    // A log sent after it with the secret key, once stored, shows the public one had its answer long before.
    init(setup.secretKey);
    Sentry.logger.info('sent after the public DSN');
    await Sentry.flush(5_000);
    await eventually(async () => {
      if ((await logsSaying('sent after the public DSN')).length === 0) throw new Error('not stored yet');
    });
    expect(await logsSaying('sent with the public DSN')).toEqual([]);
  });
});
