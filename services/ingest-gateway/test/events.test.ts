import { setupProject, startTestServer, type TestServer } from '@tlm/testkit';

let server: TestServer;
let setup: Awaited<ReturnType<typeof setupProject>>;

beforeAll(async () => {
  server = await startTestServer();
  // Browser logs stay off: events from a public key must not depend on that setting.
  setup = await setupProject(server.api, { allow_browser_logs: false });
});
afterAll(() => server.close());

interface StoredEvent {
  event_name: string;
  distinct_id: string | null;
  properties: Record<string, unknown>;
}

async function storedEvents(names: string[]): Promise<StoredEvent[]> {
  const rows = await server.standalone.analytics.query(
    `SELECT event_name, distinct_id, properties FROM events WHERE project_id = $project AND list_contains(string_split($names, ','), event_name) ORDER BY event_name`,
    { project: setup.project.id, names: names.join(',') },
  );
  return rows.map((row) => ({
    event_name: row['event_name'] as string,
    distinct_id: row['distinct_id'] as string | null,
    properties: JSON.parse(row['properties'] as string),
  }));
}

const sendEvents = (batch: unknown[], token = setup.secretKey) => server.api.post('/v1/events', { token, body: { batch } });

describe('POST /v1/events', () => {
  it('stores distinctId and distinct_id alike, in properties.distinct_id and the distinct_id column', async () => {
    const reply = await sendEvents([
      { event: 'camel spelled', distinctId: 'user-camel' },
      { event: 'snake spelled', distinct_id: 'user-snake', properties: { plan: 'pro' } },
    ]);
    expect(reply.status).toBe(202);
    expect(reply.body).toEqual({ accepted: 2, rejected: 0, errors: [] });
    const rows = await storedEvents(['camel spelled', 'snake spelled']);
    expect(rows.map(({ event_name, distinct_id }) => [event_name, distinct_id])).toEqual([
      ['camel spelled', 'user-camel'],
      ['snake spelled', 'user-snake'],
    ]);
    expect(rows[0]!.properties['distinct_id']).toBe('user-camel');
    expect(rows[1]!.properties).toMatchObject({ distinct_id: 'user-snake', plan: 'pro' });
    expect(rows[0]!.properties).not.toHaveProperty('distinctId');
  });

  it('falls back to properties.distinct_id when neither top-level spelling is given', async () => {
    expect((await sendEvents([{ event: 'from properties', properties: { distinct_id: 'user-prop' } }])).status).toBe(202);
    const [row] = await storedEvents(['from properties']);
    expect(row!.distinct_id).toBe('user-prop');
    expect(row!.properties['distinct_id']).toBe('user-prop');
  });

  it('takes the spelling that holds an id when another spelling is empty', async () => {
    const reply = await sendEvents([
      { event: 'empty camel', distinctId: '', distinct_id: 'user-snake-beside-empty' },
      { event: 'empty snake', distinct_id: '', properties: { distinct_id: 'user-prop-beside-empty' } },
    ]);
    expect(reply.status).toBe(202);
    expect(reply.body).toEqual({ accepted: 2, rejected: 0, errors: [] });
    const rows = await storedEvents(['empty camel', 'empty snake']);
    expect(rows.map((row) => [row.event_name, row.distinct_id, row.properties['distinct_id']])).toEqual([
      ['empty camel', 'user-snake-beside-empty', 'user-snake-beside-empty'],
      ['empty snake', 'user-prop-beside-empty', 'user-prop-beside-empty'],
    ]);
  });

  it('stores a null distinct_id for an anonymous event', async () => {
    expect((await sendEvents([{ event: 'anonymous' }])).status).toBe(202);
    const [row] = await storedEvents(['anonymous']);
    expect(row!.distinct_id).toBeNull();
    expect(row!.properties).not.toHaveProperty('distinct_id');
  });

  it("rejects an item without `event` with 'event is required' and keeps the others", async () => {
    const reply = await sendEvents([
      { event: 'kept before' },
      { distinctId: 'nameless', properties: { marker: 'nameless' } },
      { event: 'kept after' },
    ]);
    expect(reply.status).toBe(202);
    expect(reply.body).toEqual({ accepted: 2, rejected: 1, errors: [{ index: 1, message: 'event is required' }] });
    expect((await storedEvents(['kept before', 'kept after'])).map((row) => row.event_name)).toEqual(['kept after', 'kept before']);
    const [nameless] = await server.standalone.analytics.query(
      `SELECT count(*) AS n FROM events WHERE project_id = $project AND distinct_id = 'nameless'`,
      { project: setup.project.id },
    );
    expect(Number(nameless!['n'])).toBe(0);
  });

  it('accepts events from a public key although the project does not allow browser logs', async () => {
    const logs = await server.api.post('/v1/logs', { token: setup.publicKey, body: { batch: [{ severity: 'info', message: 'blocked' }] } });
    expect(logs.status).toBe(403);
    const reply = await sendEvents([{ event: 'from the browser', distinctId: 'visitor' }], setup.publicKey);
    expect(reply.status).toBe(202);
    expect(reply.body.accepted).toBe(1);
    expect(await storedEvents(['from the browser'])).toHaveLength(1);
  });

  it('rejects a batch of 501 events with 400 VALIDATION_ERROR and stores none of them', async () => {
    const reply = await sendEvents(Array.from({ length: 501 }, () => ({ event: 'too many' })));
    expect(reply.status).toBe(400);
    expect(reply.body.error.code).toBe('VALIDATION_ERROR');
    expect(reply.body.error.message).toContain('at most 500');
    expect(await storedEvents(['too many'])).toHaveLength(0);
  });

  it('accepts exactly 500 events', async () => {
    const reply = await sendEvents(Array.from({ length: 500 }, () => ({ event: 'five hundred' })));
    expect(reply.status).toBe(202);
    expect(reply.body.accepted).toBe(500);
    expect(await storedEvents(['five hundred'])).toHaveLength(500);
  });
});
