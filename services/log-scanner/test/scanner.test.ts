import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PYTHON_TRACEBACK, eventually, setupProject, startTestServer, type TestServer } from '@tlm/testkit';

/**
 * The log scanner in a started server: error logs sent through POST /v1/logs become errors and issues (read with
 * GQL `from:errors extra.synthetic:logs`), once per log row across passes and restarts.
 */

const V8_STACK = `TypeError: Cannot read properties of undefined (reading 'rows')
    at Object.query (/srv/node_modules/fake-db/index.js:1:45)
    at getUser (/srv/src/users.js:2:34)
    at Object.<anonymous> (/srv/main.js:3:7)`;

interface ErrorResult {
  id: string;
  type: string;
  value: string;
  level: string;
  issue_id: string;
  extra: Record<string, unknown>;
  frames: { function: string | null; filename: string; lineno: number; in_app: boolean }[];
}

const parsed = (value: unknown) => (typeof value === 'string' ? JSON.parse(value) : value);

describe('the log scanner', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tlm-log-scanner-'));
  let server: TestServer;
  let setup: Awaited<ReturnType<typeof setupProject>>;

  beforeAll(async () => {
    server = await startTestServer({ DATA_DIR: dataDir });
    setup = await setupProject(server.api);
  });
  afterAll(async () => {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function scannerErrors(): Promise<ErrorResult[]> {
    const reply = await server.api.post('/v1/gql/query', {
      token: setup.secretKey,
      body: { q: 'from:errors extra.synthetic:logs | fields id, type, value, level, issue_id, extra, frames | sort timestamp asc' },
    });
    expect(reply.status).toBe(200);
    return (reply.body.data.results as Record<string, unknown>[]).map((row) => ({
      ...(row as unknown as ErrorResult),
      extra: parsed(row['extra']),
      frames: parsed(row['frames']),
    }));
  }

  it('turns error and fatal logs into errors: tracebacks and stacks parsed, other messages as the value', async () => {
    const start = Date.now();
    const sent = await server.api.post('/v1/logs', {
      token: setup.secretKey,
      body: {
        batch: [
          { severity: 'error', message: PYTHON_TRACEBACK, timestamp: new Date(start - 3_000).toISOString(), properties: { release: 'api@1.4.0' } },
          { severity: 'fatal', message: V8_STACK, timestamp: new Date(start - 2_000).toISOString() },
          { severity: 'error', message: 'Traceback (most recent call last): see the attached file', timestamp: new Date(start - 1_000).toISOString() },
          { severity: 'warn', message: 'disk at 91%' },
          { severity: 'info', message: 'TypeError: this is only an info log' },
        ],
      },
    });
    expect(sent.status).toBe(202);

    expect(await server.standalone.logScanner.runPass()).toEqual({ ran: true, published: 3 });
    const errors = await scannerErrors();
    expect(errors.map(({ type, value, level }) => ({ type, value, level }))).toEqual([
      { type: 'LookupError', value: 'unknown customer 7', level: 'error' },
      { type: 'TypeError', value: "Cannot read properties of undefined (reading 'rows')", level: 'fatal' },
      { type: '', value: 'Traceback (most recent call last): see the attached file', level: 'error' },
    ]);

    const [python, node, plain] = errors;
    expect(python!.extra).toMatchObject({ synthetic: 'logs', log_message: 'order 42 could not be processed', release: 'api@1.4.0' });
    expect(python!.extra['chain']).toEqual([
      { type: 'KeyError', value: '7', relation: 'context', frames: [expect.objectContaining({ function: 'lookup_customer', lineno: 10 })] },
    ]);
    expect(python!.frames.map((frame) => [frame.function, frame.lineno])).toEqual([
      ['<module>', 8],
      ['lookup_customer', 12],
    ]);
    expect(node!.frames.map((frame) => [frame.function, frame.in_app])).toEqual([
      ['Object.<anonymous>', true],
      ['getUser', true],
      ['Object.query', false],
    ]);
    expect(plain!.frames).toEqual([]);

    // Issue snapshots follow the errors' count by moments.
    await eventually(async () => {
      const issues = await server.api.post('/v1/gql/query', { token: setup.secretKey, body: { q: 'from:issues | fields id, title, event_count' } });
      const titles = (issues.body.data.results as { id: string; title: string; event_count: number }[]).filter((issue) =>
        errors.some((error) => error.issue_id === issue.id),
      );
      expect(titles.map((issue) => issue.event_count)).toEqual([1, 1, 1]);
    });
  });

  it('makes no second error of a log row on the next pass, and only errors of new logs', async () => {
    const before = await scannerErrors();
    expect(await server.standalone.logScanner.runPass()).toEqual({ ran: true, published: 0 });
    await server.api.post('/v1/logs', { token: setup.secretKey, body: { batch: [{ severity: 'error', message: 'payment provider returned 502' }] } });
    expect(await server.standalone.logScanner.runPass()).toEqual({ ran: true, published: 1 });
    const after = await scannerErrors();
    expect(after).toHaveLength(before.length + 1);
    expect(after.at(-1)!.value).toBe('payment provider returned 502');
  });

  it('makes no second error after a restart on the same data', async () => {
    const before = (await scannerErrors()).map((error) => error.id).sort();
    await server.close();
    server = await startTestServer({ DATA_DIR: dataDir });
    expect(await server.standalone.logScanner.runPass()).toEqual({ ran: true, published: 0 });
    expect((await scannerErrors()).map((error) => error.id).sort()).toEqual(before);
  });

  it('stores a Python exception group with its members in extra.chain, numbered as Sentry numbers them', async () => {
    const group = `sync failed
  + Exception Group Traceback (most recent call last):
  |   File "/srv/app/sync.py", line 9, in sync_all
  |     async with asyncio.TaskGroup() as group:
  | ExceptionGroup: unhandled errors in a TaskGroup (1 sub-exception)
  +-+---------------- 1 ----------------
    | Traceback (most recent call last):
    |   File "/srv/app/sync.py", line 5, in pull
    |     raise ConnectionError("billing unreachable")
    | ConnectionError: billing unreachable
    +------------------------------------`;
    await server.api.post('/v1/logs', { token: setup.secretKey, body: { batch: [{ severity: 'error', message: group }] } });
    expect(await server.standalone.logScanner.runPass()).toEqual({ ran: true, published: 1 });
    const stored = (await scannerErrors()).at(-1)!;
    expect(stored).toMatchObject({ type: 'ExceptionGroup', value: 'unhandled errors in a TaskGroup (1 sub-exception)' });
    expect(stored.frames.map((frame) => [frame.function, frame.lineno])).toEqual([['sync_all', 9]]);
    expect(stored.extra['chain']).toEqual([
      {
        type: 'ConnectionError',
        value: 'billing unreachable',
        relation: 'cause',
        exception_id: 1,
        parent_id: 0,
        frames: [expect.objectContaining({ function: 'pull', lineno: 5 })],
      },
    ]);
  });
});

describe('the log scanner schedule', () => {
  let server: TestServer;
  afterAll(() => server.close());

  it('runs a pass every LOG_SCAN_INTERVAL_MS without being asked', async () => {
    server = await startTestServer({ LOG_SCAN_INTERVAL_MS: '1000' });
    const setup = await setupProject(server.api);
    await server.api.post('/v1/logs', { token: setup.secretKey, body: { batch: [{ severity: 'fatal', message: 'worker ran out of memory' }] } });
    const errors = await eventually(async () => {
      const reply = await server.api.post('/v1/gql/query', { token: setup.secretKey, body: { q: 'from:errors extra.synthetic:logs' } });
      const results = reply.body.data.results as { value: string; level: string }[];
      if (results.length === 0) throw new Error('no scanner error yet');
      return results;
    }, 10_000);
    expect(errors).toEqual([expect.objectContaining({ value: 'worker ran out of memory', level: 'fatal' })]);
  });
});
