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
