import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { eventually, gqlRows, setupProject, startTestServer, type TestServer } from '@tlm/testkit';
import { snippets } from '../src/pages/onboarding/snippets';

const values = {
  origin: 'http://localhost:8080',
  dsn: 'http://tlm_pk_us_public@localhost:8080/7',
  publicKey: 'tlm_pk_us_public',
  secretKey: 'tlm_sk_us_secret',
};
const all = snippets(values);
const snippet = (id: string) => all.find((candidate) => candidate.id === id)!;

describe('the setup snippets', () => {
  it('give Sentry SDKs the DSN with the public key, never the secret one: the SDK sends its key in URLs and headers', () => {
    for (const id of ['sentry-node', 'sentry-browser']) {
      expect(snippet(id).code).toContain(`dsn: "${values.dsn}"`);
      expect(snippet(id).code).not.toContain(values.secretKey);
    }
  });

  it("say that the Node SDK's logs, sent with the public key, need the project's browser-logs setting", () => {
    expect(snippet('sentry-node').code).toContain('enableLogs: true');
    expect(snippet('sentry-node').intro).toContain('"Allow browser logs"');
  });

  it('turn the OpenTelemetry SDK\'s metrics exporter off: the service takes no OTLP metrics, and each export would answer 404', () => {
    expect(snippet('opentelemetry').code).toContain('export OTEL_METRICS_EXPORTER="none"');
  });
});

describe('the curl snippet, run by a shell against a started server', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer();
  }, 120_000);

  afterAll(async () => {
    await server?.close();
  });

  it('stores its log, its event and its error, which becomes an issue', async () => {
    const setup = await setupProject(server.api);
    const curl = snippets({ origin: server.url, dsn: '', publicKey: setup.publicKey, secretKey: setup.secretKey }).find((one) => one.id === 'curl')!;
    // Asynchronously: the server answers from this process's event loop.
    const { stdout: output } = await promisify(execFile)('sh', ['-e', '-c', curl.code.replaceAll('curl -X', 'curl -sS --fail-with-body -X')], { encoding: 'utf8', timeout: 30_000 });
    expect(output).toContain('"accepted":1');
    const count = async (q: string) => (await gqlRows(server.api, setup.secretKey, q))[0]!['value'];
    await eventually(async () => {
      expect(await count('from:logs "hello from curl" | count')).toBe(1);
      expect(await count('from:events event_name:"signed up" | count')).toBe(1);
      expect(await count('from:issues | count')).toBe(1);
    }, 15_000, 200);
  }, 60_000);
});
