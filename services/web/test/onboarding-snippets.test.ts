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
