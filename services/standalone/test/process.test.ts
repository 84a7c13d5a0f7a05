import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DuckDBStore } from '@tlm/analytics-store';
import { Api, eventually, seedMetadata, setupProject } from '@tlm/testkit';

/** These tests run the built entry point, as `make start` does (`make test` builds first). */
const MAIN = path.join(__dirname, '..', 'dist', 'main.js');
let dataDir: string;
let nextPort = 19_300 + (process.pid % 500);
/** Every process a test started; one still running when the test ends (a failed assertion) is killed. */
const started: Pick<Running, 'child' | 'exited'>[] = [];

beforeEach(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'tlm-process-'));
  // A migrated metadata store to start from, as test servers get: PGlite's initdb costs seconds of CPU per start.
  await seedMetadata(dataDir);
});
afterEach(async () => {
  for (const { child, exited } of started.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  }
  rmSync(dataDir, { recursive: true, force: true });
});

interface Running {
  child: ChildProcess;
  api: Api;
  output: () => string;
  exited: Promise<number | null>;
}

/**
 * How long a process may take to start or refuse to: on a loaded machine (CI beside other work, two cores) PGlite's
 * start alone has taken over 30 s. A bound on a hang, not a speed.
 */
const START_MS = 90_000;
/** A test starts up to two processes. */
const PROCESS_TEST_MS = 3 * START_MS;

/** Runs the entry point expecting it to refuse to start; answers its exit code and what it wrote to stderr. */
function refusedStart(env: Record<string, string>): { status: number | null; stderr: string } {
  const result = spawnSync(process.execPath, [MAIN], {
    env: { PATH: process.env['PATH'], PORT: String(nextPort++), HOST: '127.0.0.1', DATA_DIR: dataDir, ...env },
    encoding: 'utf8',
    timeout: START_MS,
  });
  return { status: result.status, stderr: result.stderr };
}

async function startProcess(env: Record<string, string> = {}): Promise<Running> {
  const port = nextPort++;
  const child = spawn(process.execPath, [MAIN], {
    // scrypt at 2^14 for the sign-ups, as test servers have it (PASSWORD_COST's default costs about half a second each).
    env: { PATH: process.env['PATH'], PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, RATE_LIMIT_ENABLED: 'false', LOG_LEVEL: 'info', PASSWORD_COST: '16384', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  started.push({ child, exited });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const api = new Api(`http://127.0.0.1:${port}`);
  const deadline = Date.now() + START_MS;
  for (;;) {
    try {
      if ((await api.get('/readyz')).status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`server did not start:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { child, api, output: () => output, exited };
}

/** Log rows whose message starts with `prefix`, or how many different messages they hold. */
async function storedMessages(prefix: string, what: 'rows' | 'distinct' = 'rows'): Promise<number> {
  const store = await DuckDBStore.open(path.join(dataDir, 'analytics.duckdb'));
  try {
    const counted = what === 'rows' ? 'count(*)' : 'count(DISTINCT message)';
    const [row] = await store.query(`SELECT ${counted} AS n FROM logs WHERE starts_with(message, $prefix)`, { prefix });
    return row!['n'] as number;
  } finally {
    await store.close();
  }
}

const batch = (prefix: string, request: number) => ({
  batch: Array.from({ length: 50 }, (_, item) => ({ severity: 'info', message: `${prefix} ${request}-${item}` })),
});

describe('the standalone process', () => {
  it('keeps every row it answered 202 for when it is killed with SIGKILL right after, and starts again', async () => {
    const first = await startProcess();
    const setup = await setupProject(first.api);
    const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => first.api.post('/v1/logs', { token: setup.secretKey, body: batch('crash', i) })));
    expect(replies.every((reply) => reply.status === 202)).toBe(true);
    first.child.kill('SIGKILL');
    await first.exited;

    const second = await startProcess();
    // The key, the project and the account survived too.
    const after = await second.api.post('/v1/logs', { token: setup.secretKey, body: batch('after', 0) });
    expect(after.status).toBe(202);
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
    expect(await storedMessages('crash ')).toBe(20 * 50);
    expect(await storedMessages('after ')).toBe(50);
  }, PROCESS_TEST_MS);

  it('stores once, at the next start, what it answered before committing when SIGKILL came (the ingest journal)', async () => {
    // No commit wait: answers go out once the items are in the journal, so the kill finds most of them uncommitted.
    const first = await startProcess({ INGEST_COMMIT_WAIT_MS: '0' });
    const setup = await setupProject(first.api);
    const envelope = (n: number) => {
      const eventId = n.toString(16).padStart(32, '0');
      return `{"event_id":"${eventId}"}\n{"type":"event"}\n${JSON.stringify({ event_id: eventId, message: 'the journal holds this error', level: 'error' })}\n`;
    };
    const events = Array.from({ length: 20 }, (_, n) => ({ event: 'journaled_signup', distinctId: `user-${n}` }));
    const replies = await Promise.all([
      ...Array.from({ length: 40 }, (_, i) => first.api.post('/v1/logs', { token: setup.secretKey, body: batch('journaled', i) })),
      ...Array.from({ length: 5 }, () => first.api.post('/v1/events', { token: setup.secretKey, body: { batch: events } })),
      ...Array.from({ length: 30 }, (_, n) =>
        first.api.post('/v1/envelope', { token: setup.secretKey, body: envelope(n + 1), headers: { 'content-type': 'application/x-sentry-envelope' } }),
      ),
    ]);
    expect(replies.map((reply) => reply.status)).toEqual([...Array(45).fill(202), ...Array(30).fill(200)]);
    first.child.kill('SIGKILL');
    await first.exited;

    const second = await startProcess();
    // The issue's row for GQL is copied from its count shortly after the count.
    await eventually(async () => {
      const issues = await second.api.post('/v1/gql/query', { token: setup.secretKey, body: { q: 'from:issues | fields title, event_count' } });
      expect(issues.body.data.results).toEqual([{ title: 'the journal holds this error', event_count: 30 }]);
    });
    const counted = await second.api.post('/v1/gql/query', { token: setup.secretKey, body: { q: 'from:events event:journaled_signup | count' } });
    expect(counted.body.data.results).toEqual([{ value: 100 }]);
    // Rows the journal gave back are counted as any stored rows are, at the next flush of the counts.
    await eventually(async () => {
      const usage = await second.api.get(`/api/orgs/${setup.session.organization.id}/usage`, { token: setup.session.token });
      expect(usage.body.usage).toEqual(expect.objectContaining({ events: 100, logs: 40 * 50 }));
    });
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
    expect(await storedMessages('journaled ')).toBe(40 * 50);
    expect(await storedMessages('journaled ', 'distinct')).toBe(40 * 50);
  }, 2 * PROCESS_TEST_MS);

  it('counts into the schema registry and usage, at the next start, the events and logs a SIGKILL left uncounted', async () => {
    // No stats flush before the kill: the rows are stored and answered 202, their counts are not.
    const first = await startProcess({ STATS_FLUSH_MS: '600000' });
    const setup = await setupProject(first.api);
    const events = Array.from({ length: 25 }, (_, n) => ({ event: 'crash_checkout', distinctId: `user-${n}`, properties: { step: n } }));
    const accepted = await first.api.post('/v1/events', { token: setup.secretKey, body: { batch: events } });
    expect(accepted.status).toBe(202);
    expect((await first.api.post('/v1/logs', { token: setup.secretKey, body: batch('counted', 0) })).status).toBe(202);
    // Stored before the kill, so the next start finds them in the store uncounted (rows the journal still held would
    // be stored and counted after the start, as any others).
    const stored = async (q: string) => (await first.api.post('/v1/gql/query', { token: setup.secretKey, body: { q } })).body.data.results;
    await eventually(async () => {
      expect(await stored('from:events | count')).toEqual([{ value: 25 }]);
      expect(await stored('from:logs | count')).toEqual([{ value: 50 }]);
    });
    first.child.kill('SIGKILL');
    await first.exited;

    const second = await startProcess();
    // Counted during the start, before the server listens: no waiting for a flush.
    const schema = await second.api.get('/v1/schema', { token: setup.secretKey });
    expect(schema.status).toBe(200);
    expect(schema.body.event_names).toEqual([expect.objectContaining({ name: 'crash_checkout', volume: 25 })]);
    const volumes = (properties: { key: string; volume: number }[]) => Object.fromEntries(properties.map((property) => [property.key, property.volume]));
    expect(volumes(schema.body.event_properties)).toEqual({ $ip: 25, distinct_id: 25, step: 25 });
    const usagePath = `/api/orgs/${setup.session.organization.id}/usage`;
    const usage = await second.api.get(usagePath, { token: setup.session.token });
    expect(usage.status).toBe(200);
    expect(usage.body.usage).toEqual(expect.objectContaining({ events: 25, logs: 50 }));

    // New rows are numbered after the recovered ones and counted once with them.
    expect((await second.api.post('/v1/events', { token: setup.secretKey, body: { batch: events.slice(0, 5) } })).status).toBe(202);
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
    const third = await startProcess();
    const after = await third.api.get('/v1/schema', { token: setup.secretKey });
    expect(after.body.event_names).toEqual([expect.objectContaining({ name: 'crash_checkout', volume: 30 })]);
    expect(volumes(after.body.event_properties)).toEqual({ $ip: 30, distinct_id: 30, step: 30 });
    expect((await third.api.get(usagePath, { token: setup.session.token })).body.usage).toEqual(expect.objectContaining({ events: 30, logs: 50 }));
    third.child.kill('SIGTERM');
    expect(await third.exited).toBe(0);
  }, 2 * PROCESS_TEST_MS);

  it('keeps ingesting while a second process on the same DATA_DIR is refused', async () => {
    const running = await startProcess();
    const setup = await setupProject(running.api);
    expect((await running.api.post('/v1/logs', { token: setup.secretKey, body: batch('first', 0) })).status).toBe(202);

    expect(refusedStart({}).status).toBe(1);

    expect((await running.api.post('/v1/logs', { token: setup.secretKey, body: batch('first', 1) })).status).toBe(202);
    running.child.kill('SIGTERM');
    expect(await running.exited).toBe(0);
    expect(await storedMessages('first ')).toBe(2 * 50);
  }, PROCESS_TEST_MS);

  it('refuses a second process on the same DATA_DIR, naming it, before touching the metadata store', async () => {
    const running = await startProcess();
    const controlFile = path.join(dataDir, 'metadata', 'global', 'pg_control');
    const before = { bytes: readFileSync(controlFile), modified: statSync(controlFile).mtimeMs };

    const second = refusedStart({});

    expect(second.status).toBe(1);
    expect(second.stderr).toMatch(new RegExp(`^DATA_DIR ${dataDir} is in use by another process`, 'm'));
    expect(readFileSync(controlFile)).toEqual(before.bytes);
    expect(statSync(controlFile).mtimeMs).toBe(before.modified);
    running.child.kill('SIGTERM');
    expect(await running.exited).toBe(0);
  }, PROCESS_TEST_MS);

  it('refuses a DATA_DIR it cannot write, naming it', () => {
    const notADirectory = path.join(dataDir, 'a-file');
    writeFileSync(notADirectory, '');

    for (const unwritable of [notADirectory, path.join(notADirectory, 'data')]) {
      const refused = refusedStart({ DATA_DIR: unwritable });
      expect(refused.status).toBe(1);
      expect(refused.stderr).toMatch(new RegExp(`^DATA_DIR ${unwritable} is not a writable directory: E(EXIST|NOTDIR)`));
    }
  });

  it('refuses a MEMORY_LIMIT that is not a size or is below 1GiB, naming it', () => {
    const small = refusedStart({ MEMORY_LIMIT: '512MiB' });
    expect(small.status).toBe(1);
    expect(small.stderr).toMatch(/^MEMORY_LIMIT 512MiB is below the least this server runs in, 1GiB/);
    const word = refusedStart({ MEMORY_LIMIT: 'lots' });
    expect(word.status).toBe(1);
    expect(word.stderr).toMatch(/MEMORY_LIMIT/);
  });

  it('refuses a JOURNAL_SYNC other than bounded or always, naming it, before it opens a journal', () => {
    const refused = refusedStart({ JOURNAL_SYNC: 'sometimes' });
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/^invalid configuration: JOURNAL_SYNC must be one of bounded, always \(got "sometimes"\)$/m);
    expect(readdirSync(dataDir)).not.toContain('journal');
  });

  it('drains in-flight requests on SIGTERM, also when a second SIGTERM follows, stores every accepted row and exits 0', async () => {
    const running = await startProcess();
    // The start-up ends with a line for people (stderr) beside the JSON log line for machines (stdout).
    const port = new URL(running.api.baseUrl).port;
    expect(running.output()).toContain(`tlm is running: open http://127.0.0.1:${port} in a browser.`);
    expect(running.output()).toContain(`Data: ${dataDir}.`);
    expect(running.output()).toContain(`"url":"http://127.0.0.1:${port}"`);
    const setup = await setupProject(running.api);
    const inFlight = Array.from({ length: 40 }, (_, i) =>
      running.api.post('/v1/logs', { token: setup.secretKey, body: batch('drain', i) }).catch(() => undefined),
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    running.child.kill('SIGTERM');
    // What make does when its process group is sent SIGTERM: the recipe gets the group's signal, then make's own.
    await eventually(async () => expect(running.output()).toContain('"msg":"draining and closing"'), 10_000, 5);
    expect(running.child.kill('SIGTERM')).toBe(true);
    const replies = await Promise.all(inFlight);
    expect(await running.exited).toBe(0);
    expect(running.output()).toContain('"msg":"already draining"');
    expect(running.output()).not.toContain('without draining');
    expect(running.output()).toContain('"msg":"stopped cleanly"');
    const accepted = replies.filter((reply) => reply?.status === 202).length;
    expect(accepted).toBeGreaterThan(0);
    expect(await storedMessages('drain ')).toBe(accepted * 50);
  }, PROCESS_TEST_MS);
});

describe('make start', () => {
  const ROOT = path.join(__dirname, '..', '..', '..');

  it('runs the server with two malloc arenas unless MALLOC_ARENA_MAX names another number', () => {
    // The recipe as make runs it, `build` taken as done; `env` in the server's place prints what the server would get.
    const recipe = spawnSync('make', ['-s', '-n', '-o', 'build', 'start'], { cwd: ROOT, encoding: 'utf8' }).stdout.trim();
    expect(recipe).toMatch(/exec node services\/standalone\/dist\/main\.js$/);
    const environment = (env: Record<string, string>) =>
      spawnSync('sh', ['-c', recipe.replace('node services/standalone/dist/main.js', 'env')], { cwd: ROOT, env: { PATH: process.env['PATH'], ...env }, encoding: 'utf8' }).stdout;
    expect(environment({})).toMatch(/^MALLOC_ARENA_MAX=2$/m);
    expect(environment({ MALLOC_ARENA_MAX: '4' })).toMatch(/^MALLOC_ARENA_MAX=4$/m);
  });
});
