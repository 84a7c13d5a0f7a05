import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createKey, eventually, setupProject, signup, startSmtpServer, startTestServer, type TestServer, type TestSmtpServer } from '@tlm/testkit';

/** A request a loopback receiver got: its path, headers and body as sent. */
interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  raw: string;
  body: any;
}

let server: TestServer;
let strict: TestServer;
let smtp: TestSmtpServer;
let receiver: http.Server;
let setup: Awaited<ReturnType<typeof setupProject>>;
const received: Received[] = [];

/** Answers as the real services do: Slack `ok`, PagerDuty 202 with its JSON, a webhook `ok`; /fail is a receiver that is down. */
function answer(path: string, res: http.ServerResponse): void {
  if (path === '/fail') {
    res.writeHead(500, { 'content-type': 'text/plain' });
    res.end('receiver down');
  } else if (path === '/pagerduty') {
    res.writeHead(202, { 'content-type': 'application/json' });
    res.end('{"status":"success","message":"Event processed"}');
  } else res.end('ok');
}

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, raw, body: JSON.parse(raw) });
      answer(req.url ?? '', res);
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  smtp = await startSmtpServer();
  server = await startTestServer({
    ALERT_EVALUATION_INTERVAL_MS: '1000',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    PAGERDUTY_EVENTS_URL: `${base()}/pagerduty`,
    SMTP_URL: smtp.url,
    PUBLIC_URL: 'http://tlm.test',
    ALERT_DELIVERY_ATTEMPTS: '3',
    ALERT_DELIVERY_BACKOFF_MS: '50',
  });
  // The defaults: private networks not allowed, no SMTP_URL.
  strict = await startTestServer({ ALERT_EVALUATION_INTERVAL_MS: '60000' });
  setup = await setupProject(server.api);
});
afterAll(async () => {
  await server.close();
  await strict.close();
  await smtp.close();
  await new Promise((resolve) => receiver.close(resolve));
});

const base = () => `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
const ROUTING_KEY = 'R0UTINGKEY0123456789abcdefABCDEF';
const rule = (channels: unknown[], extra: Record<string, unknown> = {}) => ({ name: 'channels', metric: 'from:logs | count', threshold: 1e9, window_minutes: 5, channels, ...extra });
const deliveriesOf = async (id: string, query = '') => (await server.api.get(`/v1/alerts/${id}/deliveries${query}`, { token: setup.secretKey })).body.deliveries;
const logErrors = (count: number, marker: string) =>
  server.api.post('/v1/logs', { token: setup.secretKey, body: { batch: Array.from({ length: count }, () => ({ severity: 'error', message: `${marker} failure` })) } });

describe('the channel types a server can send to', () => {
  it('says e-mail is out of reach on a server without SMTP_URL, and why, to keys and to members alike', async () => {
    const strictSetup = await setupProject(strict.api);
    const byKey = await strict.api.get('/v1/alerts/channel-types', { token: strictSetup.secretKey });
    expect(byKey.status).toBe(200);
    expect(byKey.body).toEqual({
      channel_types: [
        { type: 'webhook', available: true },
        { type: 'email', available: false, reason: 'e-mail cannot be sent from this server: SMTP_URL is not configured' },
        { type: 'slack', available: true },
        { type: 'pagerduty', available: true },
      ],
    });
    const project = `/api/orgs/${strictSetup.session.organization.id}/projects/${strictSetup.project.id}`;
    const byMember = await strict.api.get(`${project}/alerts/channel-types`, { token: strictSetup.session.token });
    expect(byMember.status).toBe(200);
    expect(byMember.body).toEqual(byKey.body);
  });

  it('offers every type on a server with SMTP_URL', async () => {
    const reply = await server.api.get('/v1/alerts/channel-types', { token: setup.secretKey });
    expect(reply.status).toBe(200);
    expect(reply.body.channel_types.map((type: { type: string; available: boolean }) => [type.type, type.available])).toEqual([
      ['webhook', true],
      ['email', true],
      ['slack', true],
      ['pagerduty', true],
    ]);
  });

  it('answers 401 without a key', async () => {
    const reply = await strict.api.get('/v1/alerts/channel-types');
    expect(reply.status).toBe(401);
    expect(reply.body.error.code).toBe('UNAUTHORIZED');
  });
});

describe('channels a server will never call', () => {
  let strictSetup: Awaited<ReturnType<typeof setupProject>>;
  beforeAll(async () => {
    strictSetup = await setupProject(strict.api);
  });
  const listed = async () => (await strict.api.get('/v1/alerts', { token: strictSetup.secretKey })).body.alerts as { id: string; channels: unknown[] }[];

  it.each([
    [{ type: 'webhook', url: 'http://127.0.0.1:9/hook' }, 'channels[0].url: webhook address 127.0.0.1 is not a public address'],
    [{ type: 'webhook', url: 'http://localhost:9/hook' }, 'is not a public address'],
    [{ type: 'webhook', url: 'http://[::1]:9/hook' }, 'webhook address ::1 is not a public address'],
    [{ type: 'slack', url: 'http://10.1.2.3/services/T/B/x' }, 'channels[0].url: webhook address 10.1.2.3 is not a public address'],
    [{ type: 'webhook', url: 'http://169.254.169.254/latest/meta-data' }, 'webhook address 169.254.169.254 is not a public address'],
    [{ type: 'email', to: 'oncall@example.com' }, 'channels[0]: e-mail cannot be sent from this server: SMTP_URL is not configured'],
    [{ type: 'sms', to: '+15550100' }, 'channels[0].type must be one of webhook, email, slack, pagerduty'],
    [{ url: 'https://hooks.example.com/x' }, 'channels[0].type must be one of webhook, email, slack, pagerduty'],
    [{ type: 'pagerduty' }, 'channels[0]: routing_key is required'],
    [{ type: 'pagerduty', routing_key: 'short' }, 'channels[0]: routing_key must be 8 to 64 letters and digits, the integration key of an Events API v2 integration'],
    [{ type: 'email', to: 'not an address' }, 'channels[0]: to must match format "email"'],
    [{ type: 'slack', url: 'https://hooks.slack.com/x', secret: 'x' }, 'channels[0]: unknown field secret'],
  ])('refuses %j on creation with 400 VALIDATION_ERROR naming the reason, and stores nothing', async (channel, reason) => {
    const before = await listed();
    const reply = await strict.api.post('/v1/alerts', { token: strictSetup.secretKey, body: rule([channel]) });
    expect(reply.status).toBe(400);
    expect(reply.body.error.code).toBe('VALIDATION_ERROR');
    expect(reply.body.error.message).toContain(reason);
    expect(await listed()).toEqual(before);
  });

  it('names every channel it will never call at once, in the message and by index in details.channels, and stores nothing', async () => {
    const before = await listed();
    const reply = await strict.api.post('/v1/alerts', {
      token: strictSetup.secretKey,
      body: rule([{ type: 'webhook', url: 'http://127.0.0.1:9/hook' }, { type: 'pagerduty', routing_key: ROUTING_KEY }, { type: 'email', to: 'oncall@example.com' }, { type: 'pagerduty', routing_key: 'short' }]),
    });
    expect(reply.status).toBe(400);
    expect(reply.body.error.code).toBe('VALIDATION_ERROR');
    const problems = [
      { index: 0, message: expect.stringMatching(/^channels\[0\]\.url: webhook address 127\.0\.0\.1 is not a public address/) },
      { index: 2, message: 'channels[2]: e-mail cannot be sent from this server: SMTP_URL is not configured' },
      { index: 3, message: expect.stringMatching(/^channels\[3\]: routing_key must be 8 to 64 letters and digits/) },
    ];
    expect(reply.body.error.details).toEqual({ channels: problems });
    expect(reply.body.error.message).toBe(reply.body.error.details.channels.map((problem: { message: string }) => problem.message).join('; '));
    expect(await listed()).toEqual(before);
  });

  it('refuses a channel it will never call on update with 400 VALIDATION_ERROR and keeps the rule as it was', async () => {
    const created = await strict.api.post('/v1/alerts', { token: strictSetup.secretKey, body: rule([{ type: 'pagerduty', routing_key: ROUTING_KEY }]) });
    expect(created.status).toBe(201);
    for (const channels of [[{ type: 'webhook', url: 'http://192.168.0.10/hook' }], [{ type: 'email', to: 'oncall@example.com' }], [{ type: 'teams', url: 'https://x.example.com' }]]) {
      const reply = await strict.api.put(`/v1/alerts/${created.body.id}`, { token: strictSetup.secretKey, body: { name: 'renamed', channels } });
      expect(reply.status).toBe(400);
      expect(reply.body.error.code).toBe('VALIDATION_ERROR');
    }
    const stored = (await strict.api.get(`/v1/alerts/${created.body.id}`, { token: strictSetup.secretKey })).body;
    expect(stored).toMatchObject({ name: 'channels', channels: [{ type: 'pagerduty', routing_key: ROUTING_KEY }] });
  });
});

describe('notifications', () => {
  it('tells every channel once when a rule starts firing, nothing while it keeps firing, and once when it recovers', async () => {
    const marker = `notify-${Date.now()}`;
    const to = `oncall-${marker}@example.com`;
    const created = await server.api.post('/v1/alerts', {
      token: setup.secretKey,
      body: {
        name: `Errors ${marker}`,
        metric: `from:logs severity:error "${marker}" | count`,
        threshold: 2,
        comparator: 'gt',
        window_minutes: 10,
        severity: 'critical',
        channels: [
          { type: 'webhook', url: `${base()}/hook` },
          { type: 'slack', url: `${base()}/slack` },
          { type: 'pagerduty', routing_key: ROUTING_KEY },
          { type: 'email', to },
        ],
      },
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const secret = created.body.channels[0].secret as string;
    const link = `http://tlm.test/orgs/${setup.session.organization.id}/projects/${setup.project.id}/alerts/${id}`;
    const mine = (path: string) => received.filter((request) => request.path === path && request.raw.includes(id));
    expect(created.body.state).toBe('ok');

    await logErrors(3, marker);
    const firing = await eventually(async () => {
      const current = (await server.api.get(`/v1/alerts/${id}`, { token: setup.secretKey })).body;
      expect(current.state).toBe('firing');
      return current;
    }, 15_000);
    await eventually(async () => expect([mine('/hook'), mine('/slack'), mine('/pagerduty')].map((requests) => requests.length)).toEqual([1, 1, 1]), 10_000);
    const [event] = (await server.api.post('/v1/gql/query', { token: setup.secretKey, body: { q: `from:alert_events rule_id:"${id}" | last:1h` } })).body.data.results;
    expect(event).toMatchObject({ rule_id: id, value: 3, threshold: 2 });

    // The webhook: the rule and its event, signed with the channel's secret over "<t>.<body>".
    const [hook] = mine('/hook');
    expect(hook!.body).toMatchObject({
      type: 'alert.triggered',
      rule: { id, name: `Errors ${marker}`, threshold: 2, comparator: 'gt', window_minutes: 10, severity: 'critical', url: link },
      event: { id: event.id, rule_id: id, value: 3, threshold: 2, severity: 'critical' },
      value: 3,
    });
    const signed = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(hook!.headers['x-tlm-signature']));
    expect(signed).not.toBeNull();
    expect(signed![2]).toBe(createHmac('sha256', secret).update(`${signed![1]}.${hook!.raw}`).digest('hex'));
    expect(signed![2]).not.toBe(createHmac('sha256', 'another secret').update(`${signed![1]}.${hook!.raw}`).digest('hex'));

    // Slack's incoming-webhook message: text, and blocks with the value, the threshold and a link to the rule.
    expect(mine('/slack')[0]!.body).toEqual({
      text: `Firing: Errors ${marker} (value 3, threshold > 2 over 10 min) ${link}`,
      blocks: [
        { type: 'header', text: { type: 'plain_text', text: `Firing: Errors ${marker}` } },
        {
          type: 'section',
          fields: [
            { type: 'mrkdwn', text: '*Value*\n3' },
            { type: 'mrkdwn', text: '*Threshold*\n&gt; 2' },
            { type: 'mrkdwn', text: '*Window*\n10 min' },
            { type: 'mrkdwn', text: '*Severity*\ncritical' },
          ],
        },
        { type: 'section', text: { type: 'mrkdwn', text: `*Metric*\n\`from:logs severity:error "${marker}" | count\`` } },
        { type: 'actions', elements: [{ type: 'button', text: { type: 'plain_text', text: 'Open the rule' }, url: link }] },
      ],
    });

    // PagerDuty Events API v2: a trigger with a dedup_key naming this firing.
    const trigger = mine('/pagerduty')[0]!.body;
    expect(trigger).toEqual({
      routing_key: ROUTING_KEY,
      event_action: 'trigger',
      dedup_key: expect.stringMatching(new RegExp(`^tlm-alert-${id}-[0-9a-f-]{36}$`)),
      payload: {
        summary: `Errors ${marker}: 3 > 2`,
        source: 'tlm',
        severity: 'critical',
        timestamp: firing.firing_since,
        component: `Errors ${marker}`,
        class: 'alert',
        custom_details: { metric: `from:logs severity:error "${marker}" | count`, value: 3, comparator: 'gt', threshold: 2, window_minutes: 10, rule_id: id, event_id: event.id },
      },
      client: 'tlm',
      client_url: link,
      links: [{ href: link, text: 'Open the rule' }],
    });

    const mail = await smtp.waitForMail(to);
    expect(mail.subject).toBe(`[critical] Firing: Errors ${marker}`);
    expect(mail.text).toContain('Value: 3');
    expect(mail.text).toContain('Threshold: > 2 over 10 min');
    expect(mail.text).toContain(`Open the rule: ${link}`);

    // Two more evaluations while the condition holds: no one is told again.
    await eventually(async () => {
      const current = (await server.api.get(`/v1/alerts/${id}`, { token: setup.secretKey })).body;
      expect(Date.parse(current.last_evaluated_at)).toBeGreaterThanOrEqual(Date.parse(firing.firing_since) + 2_000);
      expect(current.state).toBe('firing');
    }, 10_000);
    expect([mine('/hook'), mine('/slack'), mine('/pagerduty')].map((requests) => requests.length)).toEqual([1, 1, 1]);
    expect(smtp.mails.filter((candidate) => candidate.to.includes(to))).toHaveLength(1);

    // Recovery: the condition no longer holds (the threshold is raised above the value).
    expect((await server.api.put(`/v1/alerts/${id}`, { token: setup.secretKey, body: { threshold: 100 } })).status).toBe(200);
    await eventually(async () => expect((await server.api.get(`/v1/alerts/${id}`, { token: setup.secretKey })).body).toMatchObject({ state: 'ok', firing_since: null }), 10_000);
    await eventually(async () => expect([mine('/hook'), mine('/slack')].map((requests) => requests.length)).toEqual([2, 2]), 10_000);
    const resolves = await eventually(async () => {
      const sent = received.filter((request) => request.path === '/pagerduty' && request.body.dedup_key === trigger.dedup_key);
      expect(sent).toHaveLength(2);
      return sent;
    }, 10_000);
    expect(resolves[1]!.body).toEqual({ routing_key: ROUTING_KEY, event_action: 'resolve', dedup_key: trigger.dedup_key });
    expect(mine('/hook')[1]!.body).toMatchObject({ type: 'alert.resolved', event: { id: event.id }, value: 3 });
    await smtp.waitForMail(to, (candidate) => candidate.subject === `[critical] Resolved: Errors ${marker}`);

    // Every notification is a delivery of the firing's event, sent at the first attempt, with the receiver's answer.
    const deliveries = await eventually(async () => {
      const all = await deliveriesOf(id);
      expect(all.filter((delivery: { status: string }) => delivery.status === 'sent')).toHaveLength(8);
      return all;
    }, 10_000);
    const shape = (delivery: Record<string, unknown>) => [delivery['kind'], delivery['channel_type'], delivery['response_status'], delivery['attempts'], delivery['event_id']];
    expect(deliveries.map(shape).sort()).toEqual(
      [
        ['trigger', 'webhook', 200, 1, event.id],
        ['trigger', 'slack', 200, 1, event.id],
        ['trigger', 'pagerduty', 202, 1, event.id],
        ['trigger', 'email', null, 1, event.id],
        ['resolve', 'webhook', 200, 1, event.id],
        ['resolve', 'slack', 200, 1, event.id],
        ['resolve', 'pagerduty', 202, 1, event.id],
        ['resolve', 'email', null, 1, event.id],
      ].sort(),
    );
    const pagerDuty = deliveries.find((delivery: { channel_type: string }) => delivery.channel_type === 'pagerduty');
    expect(pagerDuty).toMatchObject({ target: 'PagerDuty routing key …CDEF', response_body: '{"status":"success","message":"Event processed"}', error: null });
    expect(deliveries.find((delivery: { channel_type: string }) => delivery.channel_type === 'email').response_body).toMatch(/^250 /);
    // The webhook names its delivery, so a receiver can drop a retry it already has.
    expect(deliveries.map((delivery: { id: string }) => delivery.id)).toContain(hook!.headers['x-tlm-delivery']);
    expect(await deliveriesOf(id, `?event_id=${event.id}`)).toHaveLength(8);
    expect(await deliveriesOf(id, '?event_id=00000000-0000-4000-8000-000000000000')).toEqual([]);
  });

  it('retries a receiver that answers 500 with backoff and records the delivery as failed with its answer', async () => {
    const marker = `failing-${Date.now()}`;
    const created = await server.api.post('/v1/alerts', {
      token: setup.secretKey,
      body: { name: `Down ${marker}`, metric: `from:logs severity:error "${marker}" | count`, threshold: 0, window_minutes: 10, channels: [{ type: 'webhook', url: `${base()}/fail` }] },
    });
    await logErrors(1, marker);
    const [delivery] = await eventually(async () => {
      const deliveries = await deliveriesOf(created.body.id);
      expect(deliveries).toHaveLength(1);
      expect(deliveries[0].status).toBe('failed');
      return deliveries;
    }, 15_000);
    expect(delivery).toMatchObject({ kind: 'trigger', channel_type: 'webhook', attempts: 3, response_status: 500, response_body: 'receiver down', error: null, target: `${base()}/…` });
    const attempts = received.filter((request) => request.path === '/fail' && request.body.rule.id === created.body.id);
    expect(attempts.map((request) => request.headers['x-tlm-delivery'])).toEqual([delivery.id, delivery.id, delivery.id]);
  });

  it('records a receiver that cannot be reached as a failed delivery with the error', async () => {
    const marker = `unreachable-${Date.now()}`;
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const created = await server.api.post('/v1/alerts', {
      token: setup.secretKey,
      body: { name: `Gone ${marker}`, metric: `from:logs severity:error "${marker}" | count`, threshold: 0, window_minutes: 10, channels: [{ type: 'slack', url: `http://127.0.0.1:${port}/x` }] },
    });
    await logErrors(1, marker);
    const [delivery] = await eventually(async () => {
      const deliveries = await deliveriesOf(created.body.id);
      expect(deliveries[0]?.status).toBe('failed');
      return deliveries;
    }, 15_000);
    expect(delivery).toMatchObject({ attempts: 3, response_status: null, error: expect.stringContaining('ECONNREFUSED') });
  });

  it('fails a delivery a stopped server left pending, at the next evaluation', async () => {
    const created = await server.api.post('/v1/alerts', { token: setup.secretKey, body: rule([{ type: 'webhook', url: `${base()}/hook` }]) });
    const stale = '00000000-0000-4000-8000-00000000a1e7';
    const fresh = '00000000-0000-4000-8000-00000000f7e5';
    for (const [id, age] of [[stale, '1 hour'], [fresh, '1 second']] as const) {
      await server.standalone.metadata.query(
        `insert into alert_deliveries (id, project_id, rule_id, kind, channel_index, channel_type, target, status, attempts, error, updated_at)
         values ($1, $2, $3, 'trigger', 0, 'webhook', 'http://127.0.0.1/…', 'pending', 1, 'connect ECONNREFUSED', now() - $4::interval)`,
        [id, setup.project.id, created.body.id, age],
      );
    }
    const deliveries = await eventually(async () => {
      const all = await deliveriesOf(created.body.id);
      expect(all.find((delivery: { id: string }) => delivery.id === stale).status).toBe('failed');
      return all;
    }, 10_000);
    expect(deliveries.find((delivery: { id: string }) => delivery.id === stale).error).toBe('connect ECONNREFUSED; not retried: the server stopped while retrying it');
    expect(deliveries.find((delivery: { id: string }) => delivery.id === fresh).status).toBe('pending');
  });
});

describe('sending a test', () => {
  it('delivers a test notification to the chosen channel and answers with its delivery', async () => {
    const created = await server.api.post('/v1/alerts', {
      token: setup.secretKey,
      body: rule([{ type: 'pagerduty', routing_key: ROUTING_KEY }, { type: 'webhook', url: `${base()}/fail` }, { type: 'webhook', url: `${base()}/hook` }]),
    });
    const id = created.body.id as string;
    const sent = await server.api.post(`/v1/alerts/${id}/test`, { token: setup.secretKey, body: { channel: 2 } });
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({ rule_id: id, event_id: null, kind: 'test', channel_index: 2, channel_type: 'webhook', status: 'sent', attempts: 1, response_status: 200, response_body: 'ok' });
    const hook = received.find((request) => request.headers['x-tlm-delivery'] === sent.body.id)!;
    expect(hook.body).toMatchObject({ type: 'alert.test', rule: { id }, event: null });

    // PagerDuty: the test's trigger is resolved at once, so no incident stays open.
    const paged = await server.api.post(`/v1/alerts/${id}/test`, { token: setup.secretKey, body: { channel: 0 } });
    expect(paged.body).toMatchObject({ status: 'sent', response_status: 202 });
    const testEvents = received.filter((request) => request.path === '/pagerduty' && String(request.body.dedup_key).startsWith('tlm-test-'));
    expect(testEvents.map((request) => request.body.event_action)).toEqual(['trigger', 'resolve']);
    expect(testEvents[0]!.body.payload).toMatchObject({ summary: 'Test notification: channels', severity: 'info' });

    const failed = await server.api.post(`/v1/alerts/${id}/test`, { token: setup.secretKey, body: { channel: 1 } });
    expect(failed.body).toMatchObject({ status: 'failed', attempts: 1, response_status: 500, response_body: 'receiver down' });
    expect((await deliveriesOf(id)).map((delivery: { kind: string; status: string }) => [delivery.kind, delivery.status])).toEqual([
      ['test', 'failed'],
      ['test', 'sent'],
      ['test', 'sent'],
    ]);
  });

  it('refuses a channel index the rule does not have with 400 VALIDATION_ERROR and records nothing', async () => {
    const created = await server.api.post('/v1/alerts', { token: setup.secretKey, body: rule([{ type: 'webhook', url: `${base()}/hook` }]) });
    for (const body of [{ channel: 1 }, { channel: -1 }, { channel: 'first' }, {}]) {
      const reply = await server.api.post(`/v1/alerts/${created.body.id}/test`, { token: setup.secretKey, body });
      expect(reply.status).toBe(400);
      expect(reply.body.error.code).toBe('VALIDATION_ERROR');
    }
    expect(await deliveriesOf(created.body.id)).toEqual([]);
  });

  it('sends tests with data:write or alerts:write only', async () => {
    const created = await server.api.post('/v1/alerts', { token: setup.secretKey, body: rule([{ type: 'webhook', url: `${base()}/hook` }]) });
    const reader = await createKey(server.api, setup.session, setup.project.id, { type: 'secret', scopes: ['alerts:read'] });
    const reply = await server.api.post(`/v1/alerts/${created.body.id}/test`, { token: reader.key, body: { channel: 0 } });
    expect(reply.status).toBe(403);
    expect(reply.body.error.code).toBe('FORBIDDEN');
    expect(await deliveriesOf(created.body.id)).toEqual([]);
    expect((await server.api.get(`/v1/alerts/${created.body.id}/deliveries`, { token: reader.key })).status).toBe(200);
  });
});

describe('the web app’s routes', () => {
  const memberPath = () => `/api/orgs/${setup.session.organization.id}/projects/${setup.project.id}`;

  it('lets members of the organization read and change rules and SLOs with their session', async () => {
    const created = await server.api.post(`${memberPath()}/alerts`, { token: setup.session.token, body: rule([{ type: 'webhook', url: `${base()}/hook` }], { name: 'from the web app' }) });
    expect(created.status).toBe(201);
    expect(created.body.channels[0].secret).toMatch(/^whsec_/);
    const listed = await server.api.get(`${memberPath()}/alerts`, { token: setup.session.token });
    expect(listed.body.alerts.map((candidate: { id: string }) => candidate.id)).toContain(created.body.id);
    // The same rule through /v1.
    expect((await server.api.get(`/v1/alerts/${created.body.id}`, { token: setup.secretKey })).body.name).toBe('from the web app');
    const muted = await server.api.post(`${memberPath()}/alerts/${created.body.id}/mute`, { token: setup.session.token, body: { minutes: 60 } });
    expect(muted.body.muted_until).not.toBeNull();
    expect((await server.api.get(`${memberPath()}/alerts/${created.body.id}/deliveries`, { token: setup.session.token })).body).toEqual({ deliveries: [] });
    const slo = await server.api.post(`${memberPath()}/slos`, { token: setup.session.token, body: { name: 'web', target_percent: 99, good: 'from:events | count', total: 'from:events | count' } });
    expect(slo.status).toBe(201);
    expect((await server.api.delete(`${memberPath()}/slos/${slo.body.id}`, { token: setup.session.token })).status).toBe(204);
    expect((await server.api.delete(`${memberPath()}/alerts/${created.body.id}`, { token: setup.session.token })).status).toBe(204);
  });

  it('answers 404 to someone outside the organization and 401 without a session, and stores nothing', async () => {
    const outsider = await signup(server.api);
    const before = (await server.api.get('/v1/alerts', { token: setup.secretKey })).body.alerts.length;
    const foreign = await server.api.post(`${memberPath()}/alerts`, { token: outsider.token, body: rule([]) });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('NOT_FOUND');
    expect((await server.api.get(`${memberPath()}/alerts`, { token: outsider.token })).status).toBe(404);
    expect((await server.api.get(`${memberPath()}/slos`)).status).toBe(401);
    expect((await server.api.get('/v1/alerts', { token: setup.secretKey })).body.alerts).toHaveLength(before);
  });
});

describe('previews and history', () => {
  it('answers the metric over the last day in buckets of the window, empty buckets counted as 0', async () => {
    const marker = `preview-${Date.now()}`;
    await logErrors(4, marker);
    const reply = await server.api.post('/v1/alerts/preview', { token: setup.secretKey, body: { metric: `from:logs "${marker}" | count`, window_minutes: 60 } });
    expect(reply.status).toBe(200);
    expect(reply.body.bucket_minutes).toBe(60);
    expect(reply.body.points).toHaveLength(25);
    expect(reply.body.points.at(-1).value).toBe(4);
    expect(reply.body.points.slice(0, -1).every((point: { value: number }) => point.value === 0)).toBe(true);
    const bad = await server.api.post('/v1/alerts/preview', { token: setup.secretKey, body: { metric: 'from:logs | count by route', window_minutes: 5 } });
    expect(bad.status).toBe(422);
    expect(bad.body.error.code).toBe('VALIDATION_ERROR');
  });

  it("answers an SLO's good and total per bucket and the burn rate of each", async () => {
    const marker = `burn${Date.now()}`;
    await server.api.post('/v1/events', { token: setup.secretKey, body: { batch: [...Array.from({ length: 8 }, () => ({ event: `${marker}_ok` })), { event: `${marker}_failed` }, { event: `${marker}_failed` }] } });
    const slo = await server.api.post('/v1/slos', {
      token: setup.secretKey,
      body: { name: 'burn', target_percent: 90, window_days: 1, good: `from:events event_name:${marker}_ok | count`, total: `from:events event_name:[${marker}_ok, ${marker}_failed] | count` },
    });
    const history = await server.api.get(`/v1/slos/${slo.body.id}/history`, { token: setup.secretKey });
    expect(history.status).toBe(200);
    expect(history.body.bucket_minutes).toBe(30);
    // 2 failed of 10 against the 10% the target allows: the budget burns twice as fast as it may.
    expect(history.body.points.at(-1)).toMatchObject({ good: 8, total: 10, burn_rate: 2 });
    expect(history.body.points.at(0)).toMatchObject({ good: 0, total: 0, burn_rate: null });
  });

  it("covers only the days the plan keeps in an SLO's history when its window is longer", async () => {
    const usage = await server.api.get(`/api/orgs/${setup.session.organization.id}/usage`, { token: setup.session.token });
    const kept: number = usage.body.limits.retention_days;
    expect(kept).toBeLessThan(30);
    const slo = await server.api.post('/v1/slos', { token: setup.secretKey, body: { name: 'long window', target_percent: 99, window_days: 30, good: 'from:events | count', total: 'from:events | count' } });
    expect(slo.status).toBe(201);
    const history = await server.api.get(`/v1/slos/${slo.body.id}/history`, { token: setup.secretKey });
    expect(history.status).toBe(200);
    expect(history.body.bucket_minutes).toBe(kept <= 7 ? 180 : 1_440);
    const first = Date.parse(history.body.points[0].time);
    expect(Date.now() - first).toBeLessThanOrEqual(kept * 86_400_000 + history.body.bucket_minutes * 60_000);
    expect(Date.now() - first).toBeGreaterThan((kept - 1) * 86_400_000);
  });
});
