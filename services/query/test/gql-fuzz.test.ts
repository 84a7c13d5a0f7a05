import { eventually, seededRandom, setupProject, startTestServer, type TestServer } from '@tlm/testkit';

/** Project B's rows carry this marker; no answer to project A may ever contain it. */
const MARKER = 'zzfuzzsecret';

let server: TestServer;
let projectA: Awaited<ReturnType<typeof setupProject>>;
let projectB: Awaited<ReturnType<typeof setupProject>>;

const SEEDS = [
  'from:logs severity:error | last:24h | top 5',
  'from:events | count | last:30d',
  'from:events | count by event_name | top 10 | last:30d',
  'from:events | count_distinct(distinct_id) | last:1d',
  "count | where severity = 'error' | last 1h",
  "count by message | where severity = 'error' | last 1h",
  'from:alert_events | last 7d | sort triggered_at desc | limit 20',
  '"payment failed" last:24h limit:20',
  'severity:error | count by message | top 10',
  'from:issues status:unresolved | last:7d',
  'from:issues status:regressed | count by release_last | last:30d',
  'from:errors fingerprint_hash:abc | last:24h',
  'from:errors level:fatal | count by release | last:7d',
  'from:errors extra.synthetic:logs',
  'from:alerts severity:critical enabled:true',
  '(severity:error OR severity:fatal) -route:/health user.plan:pro* amount >= 10 NOT "timeout"',
  'route:[/a, /b] code in (1, 2) env not in [dev] user.email:*',
  'p95(amount) by route, time(5m) | last 1h',
  'since:2024-01-01T00:00:00Z until:"2024-02-01" fields message, amount | sort amount desc',
  'sum(amount) by severity | sort value asc | limit 3',
];

const VOCABULARY = [
  'from:', 'logs', 'events', 'errors', 'issues', 'alerts', 'alert_events', 'spans', '|', '(', ')', '[', ']', ',', ':', '=', '!=', '>',
  '>=', '<', '<=', '-', 'AND', 'OR', 'NOT', 'in', 'not', 'by', 'time(5m)', 'count', 'count_distinct(', 'sum(', 'avg(', 'p99(', 'where',
  'last', 'since:', 'until:', 'limit', 'top', 'sort', 'fields', 'asc', 'desc', 'severity', 'message', 'route', 'amount', 'user.plan',
  'properties', 'properties.x', 'id', 'timestamp', 'trace_id', 'error', '"quoted text"', "'single'", '24h', '0h', '5', '-3.5', '1e308',
  '2024-05-01', '2024-05-01T10:00:00Z', '*', 'pro*', MARKER, '"', "'", '\\', 'é', '✓', '😀', '\u0000', '\u202e', '$browser', '@x', '#',
];

const CHARACTERS = ['"', "'", '(', ')', '[', ']', ',', '|', ':', '=', '!', '<', '>', '-', '*', ' ', '\n', '\\', 'a', '7', '.', 'é', '😀', '\u0000'];

function mutate(text: string, next: () => number): string {
  let result = text;
  const edits = 1 + Math.floor(next() * 4);
  for (let edit = 0; edit < edits; edit += 1) {
    const at = Math.floor(next() * (result.length + 1));
    const choice = next();
    const character = CHARACTERS[Math.floor(next() * CHARACTERS.length)]!;
    if (choice < 0.4) result = result.slice(0, at) + character + result.slice(at);
    else if (choice < 0.7) result = result.slice(0, at) + result.slice(at + 1);
    else if (choice < 0.85) result = result.slice(0, at) + character + result.slice(at + 1);
    else result = result.slice(0, at) + result.slice(at, at + 12).repeat(2) + result.slice(at + 12);
  }
  return result;
}

function soup(next: () => number): string {
  const length = 1 + Math.floor(next() * 14);
  return Array.from({ length }, () => VOCABULARY[Math.floor(next() * VOCABULARY.length)]).join(next() < 0.7 ? ' ' : '');
}

const EXTREMES = [
  'limit 1e308',
  'top 99999999999999999999',
  'last:99999999999999999999d',
  'since:99999999999999999999w until:99999999999999999999w',
  'amount > 1e400',
  'amount > 1e20 | count',
  'amount:[1e300, -1e300, 9007199254740993]',
  'count by time(99999999999w)',
  'count by time(1s)',
  'count by time(999999999s) | last 1h',
  'timestamp > 0001-01-01',
  'timestamp < 9999-12-31T23:59:59Z',
  'since:0000-01-01 until:9999-12-31',
  `${'('.repeat(50)}severity:error${')'.repeat(50)}`,
  `${'('.repeat(5_000)}a${')'.repeat(5_000)}`,
  `${'('.repeat(8_000)}`,
  `${'NOT '.repeat(3_000)}a`,
  `${'-'.repeat(10_000)}a:1`,
  `"${'x'.repeat(100 * 1024)}"`,
  `message:"${'y'.repeat(15_000)}"`,
  'z'.repeat(100 * 1024),
  `${'a:1 OR '.repeat(1_000)}b:2`,
  `code:[${Array.from({ length: 1_000 }, (_, index) => index).join(',')}]`,
  `"${'\\'.repeat(4_001)}"`,
  `'; DROP TABLE logs; --`,
  `") OR 1=1 --`,
  `message:"' OR project_id != '' --"`,
  `"x') OR ('1'='1":1`,
  `properties."a'b":1 | count by "weird key ' \\" /~"`,
  `${MARKER} | fields message`,
  `route:${MARKER}`,
  `from:logs | count by message | sort value desc | limit 10000`,
  '\u0000',
  '😀:😀 | count by 😀',
  'severity:\u202eerror',
  '\uD800',
];

function corpus(): string[] {
  const next = seededRandom(20240510);
  const queries = [...SEEDS, ...EXTREMES];
  for (let index = 0; index < 1_800; index += 1) queries.push(mutate(SEEDS[Math.floor(next() * SEEDS.length)]!, next));
  for (let index = 0; index < 1_200; index += 1) queries.push(soup(next));
  return queries;
}

beforeAll(async () => {
  server = await startTestServer();
  projectA = await setupProject(server.api);
  projectB = await setupProject(server.api);
  const sent = await Promise.all([
    server.api.post('/v1/logs', {
      token: projectA.secretKey,
      body: { batch: [{ severity: 'error', message: 'payment failed', properties: { route: '/checkout', amount: 12.5, user: { plan: 'pro' } } }] },
    }),
    server.api.post('/v1/logs', {
      token: projectB.secretKey,
      body: {
        batch: ['debug', 'info', 'warn', 'error', 'fatal'].map((severity) => ({
          severity,
          message: `${MARKER} payment failed ${severity}`,
          properties: { route: `/${MARKER}`, amount: 1e9, user: { plan: MARKER }, [MARKER]: MARKER },
        })),
      },
    }),
    server.api.post('/v1/events', {
      token: projectB.publicKey,
      body: { batch: [{ event: MARKER, distinctId: MARKER, properties: { plan: MARKER } }] },
    }),
  ]);
  for (const reply of sent) expect(reply.status).toBe(202);
  await eventually(async () => {
    const reply = await server.api.post('/v1/gql/query', { token: projectB.secretKey, body: { q: `from:events ${MARKER} | count` } });
    expect(reply.body.data.results).toEqual([{ value: 1 }]);
    const logs = await server.api.post('/v1/gql/query', { token: projectB.secretKey, body: { q: 'count' } });
    expect(logs.body.data.results).toEqual([{ value: 5 }]);
  });
});
afterAll(() => server.close());

describe('GQL under random and hostile input', () => {
  it("answers every query with 200, 400 or 422, never 500, and never with another project's rows", async () => {
    const queries = corpus();
    expect(queries.length).toBeGreaterThan(3_000);
    const statuses = new Map<number, number>();
    const failures: string[] = [];
    let cursor = 0;
    const worker = async () => {
      while (cursor < queries.length) {
        const q = queries[cursor++]!;
        const reply = await server.api.post('/v1/gql/query', { token: projectA.secretKey, body: { q } });
        statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
        if (![200, 400, 422].includes(reply.status)) failures.push(`${reply.status} for ${JSON.stringify(q.slice(0, 200))}: ${reply.text.slice(0, 200)}`);
        else if (reply.status === 200 && JSON.stringify(reply.body.data).toLowerCase().includes(MARKER)) {
          failures.push(`project B's rows answered ${JSON.stringify(q.slice(0, 200))}`);
        } else if (reply.status !== 200 && reply.body?.error?.code !== 'VALIDATION_ERROR') {
          failures.push(`${reply.status} without VALIDATION_ERROR for ${JSON.stringify(q.slice(0, 200))}`);
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    expect(failures).toEqual([]);
    // The corpus exercises all three answers, not just the parser's refusals.
    expect(statuses.get(200)).toBeGreaterThan(300);
    expect(statuses.get(400)).toBeGreaterThan(300);
    expect(statuses.get(422)).toBeGreaterThan(50);
  }, 120_000);

  it('answers batches of hostile queries entry by entry', async () => {
    const next = seededRandom(7);
    for (let batch = 0; batch < 30; batch += 1) {
      const queries = Array.from({ length: 10 }, () => (next() < 0.5 ? soup(next) : mutate(SEEDS[Math.floor(next() * SEEDS.length)]!, next)));
      const reply = await server.api.post('/v1/gql', { token: projectA.secretKey, body: { queries } });
      expect(reply.status).toBe(200);
      expect(reply.body).toHaveLength(10);
      expect(JSON.stringify(reply.body.map((entry: { data?: unknown }) => entry.data ?? null)).toLowerCase()).not.toContain(MARKER);
      for (const entry of reply.body) expect(entry.error).not.toBe('internal error');
    }
  });

  it('still answers correctly afterwards', async () => {
    const reply = await server.api.post('/v1/gql/query', { token: projectA.secretKey, body: { q: 'count' } });
    expect(reply.body.data.results).toEqual([{ value: 1 }]);
  });
});
