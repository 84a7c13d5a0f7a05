import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createKey, eventually, setupProject, startTestServer, type TestServer } from '@tlm/testkit';

let server: TestServer;
let setup: Awaited<ReturnType<typeof setupProject>>;
let webhook: http.Server;
const delivered: unknown[] = [];
/** Requests to /hang are held open until released, as a receiver that does not answer. */
const held: { body: unknown; open: boolean; release: () => void }[] = [];

beforeAll(async () => {
  webhook = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      if (req.url === '/hang') {
        const request = { body: JSON.parse(body) as unknown, open: true, release: () => res.end('late') };
        res.on('close', () => (request.open = false));
        held.push(request);
        return;
      }
      delivered.push(JSON.parse(body));
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => webhook.listen(0, '127.0.0.1', resolve));
  server = await startTestServer({ ALERT_EVALUATION_INTERVAL_MS: '1000', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
  setup = await setupProject(server.api);
});
afterAll(async () => {
  for (const request of held) request.release();
  await server.close();
  await new Promise((resolve) => webhook.close(resolve));
});

const webhookUrl = () => `http://127.0.0.1:${(webhook.address() as AddressInfo).port}/hook`;
const gql = async (q: string) => (await server.api.post('/v1/gql/query', { token: setup.secretKey, body: { q } })).body;
const logErrors = (count: number, marker: string) =>
  server.api.post('/v1/logs', {
    token: setup.secretKey,
    body: { batch: Array.from({ length: count }, () => ({ severity: 'error', message: `${marker} failure` })) },
  });

describe('alert rules', () => {
  it('creates a rule with defaults, reads, updates and deletes it, and mirrors it to from:alerts', async () => {
    const created = await server.api.post('/v1/alerts', {
      token: setup.secretKey,
      body: { name: 'Error burst', metric: 'from:logs severity:error | count', threshold: 100, window_minutes: 5 },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'Error burst', comparator: 'gt', severity: 'warning', enabled: true, muted_until: null, channels: [] });
    const id = created.body.id as string;

    expect((await server.api.get(`/v1/alerts/${id}`, { token: setup.secretKey })).body.name).toBe('Error burst');
    const updated = await server.api.put(`/v1/alerts/${id}`, { token: setup.secretKey, body: { severity: 'critical', enabled: false } });
    expect(updated.body).toMatchObject({ severity: 'critical', enabled: false, threshold: 100 });
    const listed = await gql('from:alerts');
    expect(listed.data.results.map((rule: { id: string; severity: string }) => [rule.id, rule.severity])).toContainEqual([id, 'critical']);

    expect((await server.api.delete(`/v1/alerts/${id}`, { token: setup.secretKey })).status).toBe(204);
    expect((await server.api.get(`/v1/alerts/${id}`, { token: setup.secretKey })).status).toBe(404);
    expect((await gql('from:alerts')).data.results.map((rule: { id: string }) => rule.id)).not.toContain(id);
  });

  it.each([
    [{ name: 'x', metric: 'from:logs | count by', threshold: 1, window_minutes: 5 }, 400],
    [{ name: 'x', metric: 'from:logs | count | last:1h', threshold: 1, window_minutes: 5 }, 422],
    [{ name: 'x', metric: 'from:logs | count by route', threshold: 1, window_minutes: 5 }, 422],
    [{ name: 'x', metric: 'from:logs severity:error', threshold: 1, window_minutes: 5 }, 422],
    [{ name: 'x', metric: 'from:nowhere | count', threshold: 1, window_minutes: 5 }, 422],
    [{ name: 'x', metric: 'from:logs | count', threshold: 1, window_minutes: 0 }, 400],
    [{ name: 'x', metric: 'from:logs | count', threshold: 1, window_minutes: 5, severity: 'urgent' }, 400],
    [{ name: 'x', metric: 'from:logs | count', threshold: 1, window_minutes: 5, channels: [{ type: 'webhook', url: 'ftp://x' }] }, 400],
    [{ name: 'x', metric: 'from:logs | count', threshold: 1, window_minutes: 5, channels: [{ type: 'webhook', url: 'http://' }] }, 400],
    [{ name: 'x', metric: 'from:logs | count', threshold: 1, window_minutes: 5, channels: [{ type: 'webhook', url: 'http://:80/hook' }] }, 400],
  ])('refuses %j with %i VALIDATION_ERROR', async (body, status) => {
    const reply = await server.api.post('/v1/alerts', { token: setup.secretKey, body });
    expect(reply.status).toBe(status);
    expect(reply.body.error.code).toBe('VALIDATION_ERROR');
  });

  it('refuses a threshold of 1e400 (Infinity once parsed) with 400 VALIDATION_ERROR, on creation and on change', async () => {
    const text = '{"name":"x","metric":"from:logs | count","threshold":1e400,"window_minutes":5}';
    const created = await server.api.post('/v1/alerts', { token: setup.secretKey, body: text, headers: { 'content-type': 'application/json' } });
    expect(created.status).toBe(400);
    expect(created.body.error.code).toBe('VALIDATION_ERROR');
    const rule = await server.api.post('/v1/alerts', { token: setup.secretKey, body: { name: 'finite', metric: 'from:logs | count', threshold: 1, window_minutes: 5 } });
    const changed = await server.api.put(`/v1/alerts/${rule.body.id}`, { token: setup.secretKey, body: '{"threshold":-1e400}', headers: { 'content-type': 'application/json' } });
    expect(changed.status).toBe(400);
    expect(changed.body.error.code).toBe('VALIDATION_ERROR');
  });

  it('reads with data:read or alerts:read and writes with data:write or alerts:write; public keys get 403', async () => {
    const reader = await createKey(server.api, setup.session, setup.project.id, { type: 'secret', scopes: ['data:read'] });
    const alertWriter = await createKey(server.api, setup.session, setup.project.id, { type: 'secret', scopes: ['alerts:write'] });
    const rule = { name: 'scoped', metric: 'from:logs | count', threshold: 1, window_minutes: 5 };
    expect((await server.api.get('/v1/alerts', { token: reader.key })).status).toBe(200);
    expect((await server.api.post('/v1/alerts', { token: reader.key, body: rule })).body.error.code).toBe('FORBIDDEN');
    expect((await server.api.post('/v1/alerts', { token: alertWriter.key, body: rule })).status).toBe(201);
    expect((await server.api.get('/v1/alerts', { token: alertWriter.key })).status).toBe(403);
    expect((await server.api.get('/v1/alerts', { token: setup.publicKey })).status).toBe(403);
  });

  it('shows webhook URLs and secrets only to keys that may change rules; a read-only key sees scheme and host', async () => {
    const url = 'https://hooks.example.com/services/T000/B000/secret-token';
    const created = await server.api.post('/v1/alerts', {
      token: setup.secretKey,
      body: { name: 'hooked', metric: 'from:logs | count', threshold: 1e9, window_minutes: 5, channels: [{ type: 'webhook', url }] },
    });
    const secret = created.body.channels[0].secret as string;
    expect(created.body.channels).toEqual([{ type: 'webhook', url, secret: expect.stringMatching(/^whsec_[\w-]{32}$/) }]);
    const reader = await createKey(server.api, setup.session, setup.project.id, { type: 'secret', scopes: ['alerts:read'] });
    const one = await server.api.get(`/v1/alerts/${created.body.id}`, { token: reader.key });
    expect(one.body.channels).toEqual([{ type: 'webhook', url: 'https://hooks.example.com/…' }]);
    const listed = await server.api.get('/v1/alerts', { token: reader.key });
    expect(JSON.stringify(listed.body)).not.toContain('secret-token');
    expect(JSON.stringify(listed.body)).not.toContain(secret);
    expect((await server.api.get(`/v1/alerts/${created.body.id}`, { token: setup.secretKey })).body.channels).toEqual([{ type: 'webhook', url, secret }]);
    // A URL stored before URLs were checked ('http://') shows as nothing to a reader, not as a 500.
    await server.standalone.metadata.query(`update alert_rules set channels = $2::jsonb where id = $1`, [created.body.id, JSON.stringify([{ type: 'webhook', url: 'http://' }])]);
    const old = await server.api.get(`/v1/alerts/${created.body.id}`, { token: reader.key });
    expect(old.status).toBe(200);
    expect(old.body.channels).toEqual([{ type: 'webhook', url: '…' }]);
  });

  it('mutes for a number of minutes and unmutes with 0', async () => {
    const rule = (
      await server.api.post('/v1/alerts', { token: setup.secretKey, body: { name: 'mutable', metric: 'from:logs | count', threshold: 1, window_minutes: 5 } })
    ).body;
    const muted = await server.api.post(`/v1/alerts/${rule.id}/mute`, { token: setup.secretKey, body: { minutes: 30 } });
    expect(Date.parse(muted.body.muted_until) - Date.now()).toBeGreaterThan(29 * 60_000);
    const unmuted = await server.api.post(`/v1/alerts/${rule.id}/mute`, { token: setup.secretKey, body: { minutes: 0 } });
    expect(unmuted.body.muted_until).toBeNull();
    expect((await server.api.post(`/v1/alerts/${rule.id}/mute`, { token: setup.secretKey, body: { minutes: -1 } })).status).toBe(400);
  });
});

describe('the evaluator', () => {
  it('writes one alert event per window while the condition holds, calls the webhook, and skips muted and disabled rules', async () => {
    const marker = `eval-${Date.now()}`;
    const metric = `from:logs severity:error "${marker}" | count`;
    const firing = await server.api.post('/v1/alerts', {
      token: setup.secretKey,
      body: { name: `fires ${marker}`, metric, threshold: 2, window_minutes: 10, severity: 'critical', channels: [{ type: 'webhook', url: webhookUrl() }] },
    });
    const muted = await server.api.post('/v1/alerts', { token: setup.secretKey, body: { name: `muted ${marker}`, metric, threshold: 2, window_minutes: 10 } });
    await server.api.post(`/v1/alerts/${muted.body.id}/mute`, { token: setup.secretKey, body: { minutes: 60 } });
    await server.api.post('/v1/alerts', { token: setup.secretKey, body: { name: `disabled ${marker}`, metric, threshold: 2, window_minutes: 10, enabled: false } });
    await logErrors(3, marker);

    const events = await eventually(async () => {
      const answer = await gql('from:alert_events | last:1h');
      const mine = answer.data.results.filter((event: { rule_name: string }) => event.rule_name.endsWith(marker));
      expect(mine).toHaveLength(1);
      return mine;
    }, 10_000);
    expect(events[0]).toMatchObject({ rule_id: firing.body.id, rule_name: `fires ${marker}`, value: 3, threshold: 2, severity: 'critical' });
    await eventually(async () => expect(delivered).toContainEqual(expect.objectContaining({ type: 'alert.triggered', event: expect.objectContaining({ rule_id: firing.body.id, value: 3 }) })), 5_000);

    // Two more passes inside the window: still one event.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    const later = await gql('from:alert_events | last:1h');
    expect(later.data.results.filter((event: { rule_name: string }) => event.rule_name.endsWith(marker))).toHaveLength(1);
    const rule = (await server.api.get(`/v1/alerts/${firing.body.id}`, { token: setup.secretKey })).body;
    expect(rule.last_value).toBe(3);
    expect(rule.last_triggered_at).not.toBeNull();
  });

  it("calls each rule's webhook beside the others: one that does not answer holds back no other rule", async () => {
    const marker = `slow-${Date.now()}`;
    const metric = `from:logs severity:error "${marker}" | count`;
    const hangUrl = webhookUrl().replace('/hook', '/hang');
    const slow = await server.api.post('/v1/alerts', { token: setup.secretKey, body: { name: `slow ${marker}`, metric, threshold: 0, window_minutes: 10, channels: [{ type: 'webhook', url: hangUrl }] } });
    const fast = await server.api.post('/v1/alerts', { token: setup.secretKey, body: { name: `fast ${marker}`, metric, threshold: 0, window_minutes: 10, channels: [{ type: 'webhook', url: webhookUrl() }] } });
    await logErrors(1, marker);
    await eventually(async () => expect(held.map((request) => (request.body as { rule: { id: string } }).rule.id)).toContain(slow.body.id), 10_000);
    // The other rule's webhook is called while the slow receiver still holds its request (the caller gives up after
    // its 5-second timeout; waiting for that first is what this rules out).
    await eventually(async () => expect(delivered).toContainEqual(expect.objectContaining({ rule: expect.objectContaining({ id: fast.body.id }) })), 10_000);
    expect(held.find((request) => (request.body as { rule: { id: string } }).rule.id === slow.body.id)!.open).toBe(true);
  });

  async function evaluatedRule(body: Record<string, unknown>) {
    const created = await server.api.post('/v1/alerts', { token: setup.secretKey, body });
    expect(created.status).toBe(201);
    return eventually(async () => {
      const rule = (await server.api.get(`/v1/alerts/${created.body.id}`, { token: setup.secretKey })).body;
      expect(rule.last_evaluated_at).not.toBeNull();
      return rule;
    }, 10_000);
  }

  it('leaves rows dated in the future out of the window, so they fire nothing', async () => {
    const marker = `future-${Date.now()}`;
    const ahead = new Date(Date.now() + 2 * 3_600_000).toISOString();
    const sent = await server.api.post('/v1/logs', { token: setup.secretKey, body: { batch: [{ severity: 'error', message: `${marker} failure`, timestamp: ahead }] } });
    expect(sent.body).toMatchObject({ accepted: 1 });
    const rule = await evaluatedRule({ name: `ahead ${marker}`, metric: `from:logs "${marker}" | count`, threshold: 0, window_minutes: 1 });
    expect(rule).toMatchObject({ last_value: 0, last_triggered_at: null });
  });

  it('does not fire a below-threshold rule on an average over no rows: there is no value', async () => {
    const marker = `idle-${Date.now()}`;
    const rule = await evaluatedRule({ name: `idle ${marker}`, metric: `from:logs "${marker}" | avg(duration_ms)`, comparator: 'lt', threshold: 100, window_minutes: 5 });
    expect(rule).toMatchObject({ last_value: null, last_triggered_at: null });
    const events = await gql('from:alert_events | last:1h');
    expect(events.data.results.filter((event: { rule_name: string }) => event.rule_name.endsWith(marker))).toEqual([]);
  });
});

describe('SLOs', () => {
  it('computes current_percent and the error budget left from the good and total counts over the window', async () => {
    const marker = `slo${Date.now()}`;
    await server.api.post('/v1/events', {
      token: setup.secretKey,
      body: { batch: [...Array.from({ length: 9 }, () => ({ event: `${marker}_ok` })), { event: `${marker}_failed` }] },
    });
    const created = await server.api.post('/v1/slos', {
      token: setup.secretKey,
      body: { name: 'Checkout succeeds', target_percent: 80, good: `from:events event_name:${marker}_ok | count`, total: `from:events event_name:[${marker}_ok, ${marker}_failed] | count` },
    });
    expect(created.status).toBe(201);
    // 90% against a target of 80%: half of the 20% budget is spent.
    expect(created.body).toMatchObject({ window_days: 30, current_percent: 90, error_budget_remaining: 50, good_count: 9, total_count: 10 });
    const listed = await server.api.get('/v1/slos', { token: setup.secretKey });
    expect(listed.body.slos.map((slo: { id: string }) => slo.id)).toContain(created.body.id);
    const updated = await server.api.put(`/v1/slos/${created.body.id}`, { token: setup.secretKey, body: { target_percent: 95 } });
    expect(updated.body.error_budget_remaining).toBe(-100);
    expect((await server.api.delete(`/v1/slos/${created.body.id}`, { token: setup.secretKey })).status).toBe(204);
    expect((await server.api.get(`/v1/slos/${created.body.id}`, { token: setup.secretKey })).status).toBe(404);
  });

  it('refuses a target outside (0, 100] and a count query with a time range', async () => {
    const base = { name: 'x', good: 'from:events | count', total: 'from:events | count' };
    expect((await server.api.post('/v1/slos', { token: setup.secretKey, body: { ...base, target_percent: 101 } })).status).toBe(400);
    const ranged = await server.api.post('/v1/slos', { token: setup.secretKey, body: { ...base, target_percent: 99, good: 'from:events | count | last:1d' } });
    expect(ranged.status).toBe(422);
    expect(ranged.body.error.code).toBe('VALIDATION_ERROR');
  });

  it('refuses good and total that are not count queries, on creation and on change', async () => {
    const base = { name: 'x', target_percent: 99, good: 'from:events | count', total: 'from:events | count_distinct(distinct_id)' };
    const averaged = await server.api.post('/v1/slos', { token: setup.secretKey, body: { ...base, good: 'from:logs | avg(properties.ms)' } });
    expect(averaged.status).toBe(422);
    expect(averaged.body.error).toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringContaining('good must be a count query') });
    // A query that does not parse is named, so the form can say which of the two it is; its offset stays.
    const unparsed = await server.api.post('/v1/slos', { token: setup.secretKey, body: { ...base, total: 'from:events | count by' } });
    expect(unparsed.status).toBe(400);
    expect(unparsed.body.error).toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringMatching(/^total: /), details: { offset: expect.any(Number) } });
    expect((await server.api.get('/v1/slos', { token: setup.secretKey })).body.slos.filter((slo: { name: string }) => slo.name === 'x')).toEqual([]);
    const summed = await server.api.post('/v1/slos', { token: setup.secretKey, body: { ...base, total: 'from:sessions | sum(quantity)' } });
    expect(summed.status).toBe(422);
    expect(summed.body.error.code).toBe('VALIDATION_ERROR');
    const created = await server.api.post('/v1/slos', { token: setup.secretKey, body: base });
    expect(created.status).toBe(201);
    const changed = await server.api.put(`/v1/slos/${created.body.id}`, { token: setup.secretKey, body: { total: 'from:logs | max(properties.ms)' } });
    expect(changed.status).toBe(422);
    expect(changed.body.error.code).toBe('VALIDATION_ERROR');
    expect((await server.api.get(`/v1/slos/${created.body.id}`, { token: setup.secretKey })).body.total).toBe(base.total);
  });
});
