import * as Sentry from '@sentry/node';
import { eventually, gqlRows, setupProject, startTestServer, type TestServer } from '@tlm/testkit';

let server: TestServer;
let setup: Awaited<ReturnType<typeof setupProject>>;

beforeAll(async () => {
  server = await startTestServer();
  setup = await setupProject(server.api);
  Sentry.init({
    dsn: `http://${setup.publicKey}@${new URL(server.url).host}/${setup.project.dsn_id}`,
    release: 'app@2.0.0',
    environment: 'production',
    defaultIntegrations: false,
  });
});
afterAll(async () => {
  await Sentry.close(2_000);
  await server.close();
});

const gql = (q: string) => gqlRows(server.api, setup.secretKey, q);

/** The start of the hour two hours ago: session times inside the free plan's three days of retention, whenever run. */
const BASE = Math.floor(Date.now() / 3_600_000) * 3_600_000 - 2 * 3_600_000;
const at = (offsetMs: number) => new Date(BASE + offsetMs).toISOString();

function envelope(items: [Record<string, unknown>, unknown][]): string {
  const lines = ['{}'];
  for (const [header, payload] of items) lines.push(JSON.stringify(header), typeof payload === 'string' ? payload : JSON.stringify(payload));
  return `${lines.join('\n')}\n`;
}

const sendEnvelope = (body: string) =>
  server.api.post('/v1/envelope', { token: setup.publicKey, body, headers: { 'content-type': 'application/x-sentry-envelope' } });

const sessionUpdate = (sid: string, fields: Record<string, unknown>) => ({
  sid,
  did: 'user-7',
  started: at(0),
  attrs: { release: 'shop@1.0.0', environment: 'production' },
  ...fields,
});

describe('release-health sessions from @sentry/node', () => {
  it('stores a session the SDK starts, marks it errored when an exception is captured, and ends it exited', async () => {
    Sentry.setUser({ id: 'sdk-user' });
    Sentry.startSession();
    Sentry.captureSession();
    const sessionOf = async (status: string) => {
      const rows = await gql('from:sessions release:app@2.0.0 | fields session_id, distinct_id, status, outcome, errors, environment, quantity');
      expect(rows).toHaveLength(1);
      expect(rows[0]!.status).toBe(status);
      return rows[0]!;
    };
    const started = await eventually(() => sessionOf('ok'));
    expect(started).toMatchObject({ distinct_id: 'sdk-user', outcome: 'healthy', errors: 0, environment: 'production', quantity: 1 });

    Sentry.captureException(new Error('checkout failed'));
    await eventually(async () => expect((await sessionOf('ok')).errors).toBe(1));

    Sentry.endSession();
    const ended = await eventually(() => sessionOf('exited'));
    expect(ended).toMatchObject({ session_id: started.session_id, outcome: 'errored', errors: 1 });
  });
});

describe('session items', () => {
  it('keeps the latest state of a session: a later update replaces it, an older one sent late does not', async () => {
    const sid = '5f0c2a9e-1b7d-4c1e-9d35-6a0b7c1d2e3f';
    const first = await sendEnvelope(envelope([[{ type: 'session' }, sessionUpdate(sid, { init: true, status: 'ok', timestamp: at(0) })]]));
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ accepted: 1, rejected: 0 });
    await sendEnvelope(envelope([[{ type: 'session' }, sessionUpdate(sid, { status: 'crashed', errors: 1, duration: 12.5, timestamp: at(12_500) })]]));
    await sendEnvelope(envelope([[{ type: 'session' }, sessionUpdate(sid, { status: 'ok', timestamp: at(5_000) })]]));

    const rows = await gql(`from:sessions session_id:${sid} | fields status, outcome, errors, duration_ms, distinct_id, release, started`);
    expect(rows).toEqual([
      { status: 'crashed', outcome: 'crashed', errors: 1, duration_ms: 12_500, distinct_id: 'user-7', release: 'shop@1.0.0', started: at(0) },
    ]);
  });

  it('counts aggregated sessions per outcome, so the crash-free rate is one query', async () => {
    const reply = await sendEnvelope(
      envelope([
        [
          { type: 'sessions' },
          {
            aggregates: [
              { started: at(3_600_000), exited: 90, errored: 6 },
              { started: at(3_660_000), exited: 1, crashed: 3, abnormal: 0 },
            ],
            attrs: { release: 'api@4.2.0', environment: 'production' },
          },
        ],
      ]),
    );
    expect(reply.body).toMatchObject({ accepted: 1, rejected: 0 });
    const rows = await gql('from:sessions release:api@4.2.0 | sum(quantity) by outcome');
    expect(Object.fromEntries(rows.map((row) => [row['outcome'], row['value']]))).toEqual({ healthy: 91, errored: 6, crashed: 3 });
  });

  it.each([
    ['a session without a release', { type: 'session' }, { sid: 'a1', started: at(0), attrs: {} }, 'session item: attrs.release is required'],
    ['an unknown status', { type: 'session' }, sessionUpdate('a2', { status: 'exploded' }), 'session item: status must be one of ok, exited, crashed, abnormal, errored, unhandled'],
    ['an unreadable start', { type: 'session' }, sessionUpdate('a3', { started: 'yesterday' }), 'session item: started must be an RFC 3339 date-time or epoch seconds'],
    ['a negative error count', { type: 'session' }, sessionUpdate('a4', { errors: -1 }), 'session item: errors must be >= 0'],
    ['an error count beyond 32 bits', { type: 'session' }, sessionUpdate('a5', { errors: 5e9 }), 'session item: errors must be <= 2147483647'],
    ['a duration over a year', { type: 'session' }, sessionUpdate('a6', { duration: 1e306 }), 'session item: duration must be <= 31622400'],
    ['an aggregate count beyond 32 bits', { type: 'sessions' }, { aggregates: [{ started: at(0), exited: 5e9 }], attrs: { release: 'r' } }, 'sessions item: aggregates.0.exited must be <= 2147483647'],
    ['aggregates counting nothing', { type: 'sessions' }, { aggregates: [{ started: at(0) }], attrs: { release: 'r' } }, 'sessions item: every aggregate count is zero'],
    ['a payload that is not JSON', { type: 'session' }, 'not json', 'session item: the payload is not a JSON object'],
  ])('rejects %s with a reason and keeps the valid item beside it', async (_name, header, payload, message) => {
    const sid = `kept-${Math.random().toString(16).slice(2)}`;
    const reply = await sendEnvelope(envelope([[header, payload], [{ type: 'session' }, sessionUpdate(sid, { status: 'exited' })]]));
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ accepted: 1, rejected: 1, errors: [{ index: 0, message }] });
    expect(await gql(`from:sessions session_id:${sid} | count`)).toEqual([{ value: 1 }]);
  });
});
