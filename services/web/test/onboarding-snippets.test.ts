import { snippets } from '../src/pages/onboarding/snippets';

const values = {
  origin: 'http://localhost:8080',
  dsn: 'http://tlm_pk_us_public@localhost:8080/7',
  serverDsn: 'http://tlm_sk_us_secret@localhost:8080/7',
  publicKey: 'tlm_pk_us_public',
  secretKey: 'tlm_sk_us_secret',
};
const code = (id: string) => snippets(values).find((snippet) => snippet.id === id)!.code;

describe('the setup snippets', () => {
  it('give the Node SDK, which sends logs, the server DSN with the secret key', () => {
    expect(code('sentry-node')).toContain(`dsn: "${values.serverDsn}"`);
    expect(code('sentry-node')).toContain('enableLogs: true');
    expect(code('sentry-node')).not.toContain(values.publicKey);
  });

  it('give browsers the DSN with the public key, never the secret one', () => {
    expect(code('sentry-browser')).toContain(`dsn: "${values.dsn}"`);
    expect(code('sentry-browser')).not.toContain(values.secretKey);
    expect(code('posthog-js')).not.toContain(values.secretKey);
  });
});
