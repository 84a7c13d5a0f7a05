import * as Sentry from '@sentry/node';
import { eventually, setupProject, startTestServer, type TestServer } from '@tlm/testkit';

/**
 * The real @sentry/node SDK, unmodified, pointed at a started server with DSN
 * http://<public key>@127.0.0.1:<port>/<dsn_id>: what a team does to try the service.
 */
let server: TestServer;
let setup: Awaited<ReturnType<typeof setupProject>>;

beforeAll(async () => {
  server = await startTestServer();
  setup = await setupProject(server.api);
  const dsn = `http://${setup.publicKey}@127.0.0.1:${new URL(server.url).port}/${setup.project.dsn_id}`;
  Sentry.init({
    dsn,
    release: 'shop@1.2.3',
    environment: 'staging',
    // The SDK's process handlers and instrumentation would act on the jest worker itself.
    defaultIntegrations: false,
    integrations: [Sentry.linkedErrorsIntegration(), Sentry.functionToStringIntegration(), Sentry.requestDataIntegration()],
  });
});

afterAll(async () => {
  await Sentry.close(2_000);
  await server.close();
});

async function errorRows(where: string, params: Record<string, string> = {}) {
  return server.standalone.analytics.query(
    // A row names its stack (docs/decisions.md "Stacks are stored once"); GQL reads its frames the same way.
    `SELECT id, type, value, level, release, environment, tags, "user", extra, coalesce(e.frames, s.frames) AS frames, fingerprint_hash, issue_id, source
     FROM errors e LEFT JOIN (SELECT id AS stack_id, frames FROM stacks WHERE project_id = $project) s USING (stack_id)
     WHERE project_id = $project AND ${where} ORDER BY timestamp`,
    { project: setup.project.id, ...params },
  );
}

const gql = async (q: string) => {
  const reply = await server.api.post('/v1/gql/query', { token: setup.secretKey, body: { q } });
  expect(reply.status).toBe(200);
  return reply.body.data.results as Record<string, unknown>[];
};

function failCheckout(): never {
  throw new TypeError('cart is empty');
}

describe('the Sentry Node SDK against the envelope endpoint', () => {
  it('captureException makes an error row and an issue, with the user, tags, release and environment intact', async () => {
    Sentry.setUser({ id: 'user-42', email: 'ada@example.com' });
    Sentry.setTag('feature', 'checkout');
    let eventId = '';
    try {
      failCheckout();
    } catch (error) {
      eventId = Sentry.captureException(error);
    }
    expect(await Sentry.flush(5_000)).toBe(true);

    const [row] = await errorRows(`id = $id`, { id: eventId.replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5') });
    expect(row).toMatchObject({ type: 'TypeError', value: 'cart is empty', level: 'error', release: 'shop@1.2.3', environment: 'staging', source: 'generic' });
    expect(JSON.parse(row!['tags'] as string)).toMatchObject({ feature: 'checkout' });
    expect(JSON.parse(row!['user'] as string)).toEqual({ id: 'user-42', email: 'ada@example.com' });
    const frames = JSON.parse(row!['frames'] as string) as { function: string; filename: string; in_app: boolean; lineno: number }[];
    const innermost = frames[frames.length - 1]!;
    expect(innermost).toMatchObject({ function: 'failCheckout', in_app: true });
    expect(innermost.filename).toMatch(/sentry\.test\.ts$/);
    expect(innermost.lineno).toBeGreaterThan(0);
    expect(JSON.parse(row!['extra'] as string)).toMatchObject({ 'sdk.name': 'sentry.javascript.node' });

    // Issue snapshots follow the answer by moments.
    await eventually(async () => expect(await gql(`from:issues fingerprint:${String(row!['fingerprint_hash'])}`)).toEqual([
      expect.objectContaining({
        id: row!['issue_id'],
        short_id: 1,
        title: 'TypeError: cart is empty',
        culprit: expect.stringMatching(/^failCheckout in .*sentry\.test\.ts$/),
        status: 'unresolved',
        level: 'error',
        event_count: 1,
        user_count: 1,
        release_first: 'shop@1.2.3',
        release_last: 'shop@1.2.3',
        resolved_in_release: null,
      }),
    ]));
  });

  it('groups the same exception from the same place into one issue and counts each event', async () => {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        failCheckout();
      } catch (error) {
        Sentry.captureException(error);
      }
    }
    expect(await Sentry.flush(5_000)).toBe(true);
    await eventually(async () =>
      expect(await gql(`from:issues title:'TypeError: cart is empty'`)).toEqual([expect.objectContaining({ event_count: 4, user_count: 1 })]),
    );
  });

  it('captureMessage arrives with its level, an empty type and the scope', async () => {
    Sentry.withScope((scope) => {
      scope.setUser({ id: 'user-7' });
      scope.setTag('provider', 'stripe');
      Sentry.captureMessage('payment provider slow', 'warning');
    });
    expect(await Sentry.flush(5_000)).toBe(true);
    const [row] = await errorRows(`value = 'payment provider slow'`);
    expect(row).toMatchObject({ type: '', level: 'warning', release: 'shop@1.2.3', environment: 'staging' });
    expect(JSON.parse(row!['tags'] as string)).toMatchObject({ provider: 'stripe' });
    expect(JSON.parse(row!['user'] as string)).toMatchObject({ id: 'user-7' });
    await eventually(async () => expect(await gql(`from:issues title:'payment provider slow'`)).toEqual([expect.objectContaining({ level: 'warning', event_count: 1 })]));
  });

  it('keeps an error cause as the chain (LinkedErrors)', async () => {
    const cause = new RangeError('quantity out of range');
    Sentry.captureException(new Error('order rejected', { cause }));
    expect(await Sentry.flush(5_000)).toBe(true);
    const [row] = await errorRows(`value = 'order rejected'`);
    expect(JSON.parse(row!['extra'] as string)['chain']).toEqual([
      expect.objectContaining({ type: 'RangeError', value: 'quantity out of range', relation: 'cause' }),
    ]);
  });

  it("stores a scope's attachments beside the event, readable by the event's id", async () => {
    const log = 'GET /cart 200\nPOST /checkout 500\n';
    let eventId = '';
    Sentry.withScope((scope) => {
      scope.addAttachment({ filename: 'requests.log', data: log, contentType: 'text/plain' });
      eventId = Sentry.captureException(new Error('checkout failed with a log'));
    });
    expect(await Sentry.flush(5_000)).toBe(true);
    expect(await errorRows(`value = 'checkout failed with a log'`)).toHaveLength(1);
    const listed = await eventually(async () => {
      const reply = await server.api.get(`/v1/attachments?event_id=${eventId}`, { token: setup.secretKey });
      expect(reply.body.attachments).toHaveLength(1);
      return reply.body.attachments[0];
    });
    expect(listed).toMatchObject({ filename: 'requests.log', content_type: 'text/plain', attachment_type: 'event.attachment', size_bytes: log.length });
    const body = await server.api.get(`/v1/attachments/${listed.id}`, { token: setup.secretKey });
    expect(body.text).toBe(log);
  });
});
