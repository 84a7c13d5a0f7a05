import { setupProject, startTestServer, eventually, type TestServer } from '@tlm/testkit';
import { namedPromotions } from '../src/promoter';

let server: TestServer;
let project: Awaited<ReturnType<typeof setupProject>>;

const query = async (q: string) => {
  const reply = await server.api.post('/v1/gql/query', { token: project.secretKey, body: { q } });
  expect(reply.status).toBe(200);
  return reply.body.data.results as Record<string, unknown>[];
};

const QUERIES = [
  'count by route | last 1h',
  'p95(duration_ms) by route | last 1h',
  'route:/checkout duration_ms > 100 | count | last 1h',
  'from:events | count by plan | last 1h',
];

beforeAll(async () => {
  // Keys carried by ten rows are busy enough here; a pass runs when the test asks.
  server = await startTestServer({ PROMOTE_MIN_ROWS: '10', PROMOTE_INTERVAL_MS: '0' });
  project = await setupProject(server.api);
});
afterAll(() => server.close());

async function sendLogs(count: number, offset: number) {
  const batch = Array.from({ length: count }, (_, index) => ({
    severity: 'info',
    message: `request ${offset + index}`,
    properties: { route: ['/checkout', '/cart', '/search'][index % 3], duration_ms: (offset + index) * 7, ...(index % 4 === 0 ? { rare: 'x' } : {}) },
  }));
  expect((await server.api.post('/v1/logs', { token: project.secretKey, body: { batch } })).status).toBe(202);
}

describe('property promotion in the standalone server', () => {
  it('promotes the keys the schema registry counts past PROMOTE_MIN_ROWS, and queries answer the same through the columns', async () => {
    await sendLogs(30, 0);
    const events = Array.from({ length: 12 }, (_, index) => ({ event: 'signup', distinctId: `u${index}`, properties: { plan: index % 2 ? 'pro' : 'free' } }));
    expect((await server.api.post('/v1/events', { token: project.publicKey, body: { batch: events } })).status).toBe(202);
    await eventually(async () => expect(await query('count | last 1h')).toEqual([{ value: 30 }]));
    const before = await Promise.all(QUERIES.map(query));
    expect(server.standalone.analytics.promotedColumns('logs').size).toBe(0);

    // The registry counts asynchronously after the rows are stored.
    await eventually(async () =>
      expect(await server.standalone.metadata.query("select signal, key, volume from schema_properties where key in ('route', 'plan') order by key")).toEqual([
        { signal: 'events', key: 'plan', volume: 12 },
        { signal: 'logs', key: 'route', volume: 30 },
      ]),
    );
    // The server's own `$ip` and the events' `distinct_id` are as busy.
    expect((await server.standalone.promoter.runOnce()).sort()).toEqual([
      'events:$ip',
      'events:distinct_id',
      'events:plan',
      'logs:$ip',
      'logs:duration_ms',
      'logs:route',
    ]);
    const logColumns = server.standalone.analytics.promotedColumns('logs');
    expect(logColumns.get('properties\u0000route')).toEqual({ text: expect.any(String), number: null });
    expect(logColumns.get('properties\u0000duration_ms')).toEqual({ text: expect.any(String), number: expect.any(String) });
    // `rare` is in 8 rows of 30: under PROMOTE_MIN_ROWS.
    expect(logColumns.has('properties\u0000rare')).toBe(false);
    expect(await Promise.all(QUERIES.map(query))).toEqual(before);
    expect(await server.standalone.promoter.runOnce()).toEqual([]);

    // Rows after the promotion carry the columns from their insert.
    await sendLogs(30, 30);
    await eventually(async () => expect(await query('count | last 1h')).toEqual([{ value: 60 }]));
    const [checkout] = await query('route:/checkout | count | last 1h');
    expect(checkout).toEqual({ value: 20 });
    const [unfilled] = await server.standalone.analytics.query(
      `SELECT count(*) AS n FROM logs WHERE "${logColumns.get('properties\u0000route')!.text}" IS DISTINCT FROM json_extract_string(properties, '/route')`,
    );
    expect(unfilled).toEqual({ n: 0 });
  });

  it('reads PROMOTE_PROPERTIES as signal:key pairs and refuses anything else', () => {
    expect(namedPromotions(' logs:route , events:$browser,logs:a:b ')).toEqual([
      { signal: 'logs', key: 'route', numeric: true },
      { signal: 'events', key: '$browser', numeric: true },
      { signal: 'logs', key: 'a:b', numeric: true },
    ]);
    expect(namedPromotions('')).toEqual([]);
    for (const wrong of ['route', 'spans:name', 'logs:']) expect(() => namedPromotions(wrong)).toThrow('PROMOTE_PROPERTIES');
  });
});
