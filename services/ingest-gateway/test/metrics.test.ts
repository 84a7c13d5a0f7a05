import { serverWithProject } from '@tlm/testkit';

// The ingest gateway's own Prometheus metrics, read over GET /metrics as a scraper reads them.
const context = serverWithProject();

function envelope(items: [Record<string, unknown>, unknown][]): string {
  const lines = ['{}'];
  for (const [header, payload] of items) lines.push(JSON.stringify(header), JSON.stringify(payload));
  return `${lines.join('\n')}\n`;
}

const sendEnvelope = (body: string) =>
  context.server.api.post('/v1/envelope', {
    token: context.setup.secretKey,
    body,
    headers: { 'content-type': 'application/x-sentry-envelope' },
  });

const scrape = async (): Promise<string> => (await context.server.api.get('/metrics')).text;

/** The value of one series (`name{labels}` exactly as exposed), 0 when it is not exposed yet. */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

describe('tlm_sdk_discarded_events_total', () => {
  it('counts a client report under its Sentry reason and category', async () => {
    const series = 'tlm_sdk_discarded_events_total{reason="sample_rate",category="transaction"}';
    const before = sample(await scrape(), series);
    const reply = await sendEnvelope(
      envelope([[{ type: 'client_report' }, { timestamp: Date.now() / 1000, discarded_events: [{ reason: 'sample_rate', category: 'transaction', quantity: 3 }] }]]),
    );
    expect(reply.status).toBe(200);
    expect(sample(await scrape(), series)).toBe(before + 3);
  });

  it('counts reasons and categories no SDK sends as other, so a sender cannot add a series per string', async () => {
    const chosen = `reason-${Date.now()}`;
    const email = `someone-${Date.now()}@example.com`;
    const series = 'tlm_sdk_discarded_events_total{reason="other",category="other"}';
    const before = sample(await scrape(), series);
    const reply = await sendEnvelope(
      envelope([[{ type: 'client_report' }, { discarded_events: [{ reason: chosen, category: email, quantity: 2 }, { reason: 7, category: null, quantity: 1 }] }]]),
    );
    expect(reply.status).toBe(200);
    const text = await scrape();
    expect(sample(text, series)).toBe(before + 3);
    expect(text).not.toContain(chosen);
    expect(text).not.toContain(email);
    expect(text).not.toContain('reason="7"');
    expect(text).not.toContain('category="null"');
  });
});

describe('tlm_ingest_items_total', () => {
  const series = (signal: string, outcome: 'accepted' | 'rejected') => `tlm_ingest_items_total{signal="${signal}",outcome="${outcome}"}`;
  const counts = async (signal: string) => {
    const text = await scrape();
    return { accepted: sample(text, series(signal, 'accepted')), rejected: sample(text, series(signal, 'rejected')) };
  };

  it('counts each log of POST /v1/logs as accepted or rejected', async () => {
    const before = await counts('logs');
    const reply = await context.server.api.post('/v1/logs', {
      token: context.setup.secretKey,
      body: { batch: [{ severity: 'info', message: 'one' }, { severity: 'info', message: 'two' }, { severity: 'loud', message: 'three' }] },
    });
    expect(reply.status).toBe(202);
    expect(await counts('logs')).toEqual({ accepted: before.accepted + 2, rejected: before.rejected + 1 });
  });

  it('counts the logs, events, vitals and errors of an envelope under their signals', async () => {
    const before = { logs: await counts('logs'), events: await counts('events'), vitals: await counts('vitals'), errors: await counts('errors') };
    const reply = await sendEnvelope(
      envelope([
        [{ type: 'log' }, { items: [{ level: 'info', body: 'a' }, { level: 'warning', body: 'b' }, { level: 'loud', body: 'c' }] }],
        [{ type: 'analytics_event' }, { items: [{ event: 'signup' }, { event: 'login' }] }],
        [{ type: 'web_vital' }, { name: 'lcp', value: 1200, route: '/' }],
        [{ type: 'event' }, { exception: { values: [{ type: 'Error', value: 'counted in the metrics' }] } }],
        [{ type: 'event' }, 'not an event'],
      ]),
    );
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ accepted: 4, rejected: 1 });
    expect(await counts('logs')).toEqual({ accepted: before.logs.accepted + 2, rejected: before.logs.rejected + 1 });
    expect(await counts('events')).toEqual({ accepted: before.events.accepted + 2, rejected: before.events.rejected });
    expect(await counts('vitals')).toEqual({ accepted: before.vitals.accepted + 1, rejected: before.vitals.rejected });
    expect(await counts('errors')).toEqual({ accepted: before.errors.accepted + 1, rejected: before.errors.rejected + 1 });
  });
});
