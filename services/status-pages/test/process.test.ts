import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { Api, eventually, openIsolatedPostgres, postgresUnavailableReason } from '@tlm/testkit';

/** The built fleet entry point (`make test` builds first), run as a container runs it. */
const MAIN = path.join(__dirname, '..', 'dist', 'main.js');
const unavailable = postgresUnavailableReason();
const describeWithPostgres = unavailable ? describe.skip : describe;
if (unavailable) console.warn(`skipping the status-pages process tests: Postgres is unavailable (${unavailable})`);

describeWithPostgres('the status-pages process on Postgres', () => {
  let database: Awaited<ReturnType<typeof openIsolatedPostgres>>;
  let child: ChildProcess;
  let exited: Promise<number | null>;
  let output = '';
  let api: Api;
  const applicationName = `tlm-status-pages-${process.pid}`;

  beforeAll(async () => {
    database = await openIsolatedPostgres(1);
    child = spawn(process.execPath, [MAIN], {
      env: {
        PATH: process.env['PATH'],
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
        DATABASE_URL: `${database.url}&application_name=${applicationName}`,
        JWT_SECRET: 'y'.repeat(40),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const url = await eventually(async () => {
      const listening = /"url":"(http:\/\/[^"]+)"/.exec(output);
      if (!listening) throw new Error(`not listening yet: ${output}`);
      return listening[1]!;
    }, 60_000);
    api = new Api(url);
  }, 90_000);
  afterAll(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
    await database.dispose();
  });

  it('stays up and ready again when Postgres ends its idle connections (a restart or failover)', async () => {
    expect((await api.get('/readyz')).status).toBe(200);
    const [ended] = await database.store.query<{ count: number }>(
      `select count(pg_terminate_backend(pid))::int as count from pg_stat_activity where application_name = $1`,
      [applicationName],
    );
    expect(ended!.count).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(child.exitCode).toBeNull();
    const ready = await eventually(async () => {
      const reply = await api.get('/readyz');
      if (reply.status !== 200) throw new Error(`readyz answered ${reply.status}`);
      return reply;
    });
    expect(ready.body.checks).toEqual([{ name: 'metadata', status: 'ok' }]);
    expect((await api.get('/v1/status/no-such-page')).status).toBe(404);
  });
});
