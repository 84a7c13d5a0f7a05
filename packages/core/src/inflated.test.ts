import { deflateSync, gzipSync } from 'node:zlib';
import { InflatingBytes, JsonBudget, MAX_JSON_CONTAINERS_PER_RECEIVED_BYTE, MIN_JSON_CONTAINER_BUDGET, readInflated } from './inflated';

/** JSON text of an array of `count` empty objects: `count + 1` objects and arrays in about 3 bytes each. */
const emptyObjects = (count: number) => Buffer.from(`[${Array(count).fill('{}').join(',')}]`);

const refusal = (limit: number) =>
  `the body inflates to more than ${limit.toLocaleString('en-US')} JSON objects and arrays (at most 32 per byte received, or 10,000)`;

describe('JsonBudget', () => {
  it('takes exactly its limit of objects and arrays, and refuses one more', () => {
    expect(new JsonBudget(32_000, true).charge(emptyObjects(31_999))).toBeUndefined();
    expect(new JsonBudget(32_000, true).charge(emptyObjects(32_000))).toBe(refusal(32_000));
  });

  it('is one budget for every decoder of a request: a second layer buys nothing of its own', () => {
    const budget = new JsonBudget(32_000, true);
    expect(budget.charge(emptyObjects(19_999))).toBeUndefined();
    expect(budget.charge(emptyObjects(11_999))).toBeUndefined();
    expect(budget.charge(Buffer.from('[]'))).toBe(refusal(32_000));
  });

  it('counts brackets inside strings too, as an upper bound found without parsing', () => {
    expect(new JsonBudget(10_000, true).charge(Buffer.from(JSON.stringify({ message: '['.repeat(20_000) })))).toBe(refusal(10_000));
  });

  it('charges nothing for bytes without brackets, whatever their size', () => {
    expect(new JsonBudget(10_000, true).charge(Buffer.alloc(5 * 1024 * 1024, 'a'))).toBeUndefined();
  });

  it('leaves room for what compressed telemetry opens, far below 32 per byte received', () => {
    expect([MAX_JSON_CONTAINERS_PER_RECEIVED_BYTE, MIN_JSON_CONTAINER_BUDGET]).toEqual([32, 10_000]);
    // A thousand Sentry error events that are all the same (the densest envelope of errors: it compresses best), and
    // OTLP spans that all carry the same twenty attributes (the densest telemetry measured, 8 to 13 per byte).
    const event = {
      exception: { values: [{ type: 'TypeError', value: 'boom', stacktrace: { frames: Array.from({ length: 8 }, (_, i) => ({ function: `f${i}`, lineno: i })) } }] },
      tags: { route: '/' },
      breadcrumbs: { values: [{ category: 'http', message: 'GET /' }] },
    };
    const events = Buffer.from(Array.from({ length: 1_000 }, () => `{"type":"event"}\n${JSON.stringify(event)}`).join('\n'));
    const attributes = Array.from({ length: 20 }, (_, i) => ({ key: `k${i}`, value: { intValue: String(i) } }));
    const spans = Buffer.from(JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: Array.from({ length: 500 }, () => ({ name: 'GET /', attributes })) }] }] }));
    for (const json of [events, spans]) {
      const opened = json.toString('latin1').split(/[{[]/).length - 1;
      const limit = Math.max(MIN_JSON_CONTAINER_BUDGET, MAX_JSON_CONTAINERS_PER_RECEIVED_BYTE * gzipSync(json).length);
      expect(opened).toBeGreaterThan(MIN_JSON_CONTAINER_BUDGET);
      expect(opened).toBeLessThan(limit / 3);
      expect(new JsonBudget(limit, true).charge(json)).toBeUndefined();
    }
  });
});

describe('readInflated', () => {
  const MiB = 1024 * 1024;
  const spaces = (bytes: number) => gzipSync(Buffer.alloc(bytes, ' '));
  const roomy = () => new JsonBudget(1_000_000, true);

  it('inflates gzip and zlib whole, holding the bytes on the process count until read has finished, then giving them back', async () => {
    const inflating = new InflatingBytes(8 * MiB);
    for (const [format, body] of [['gzip', gzipSync('[1,2,3]')], ['zlib', deflateSync('[1,2,3]')]] as const) {
      const result = await readInflated(body, format, { maxBytes: MiB, json: roomy(), inflating }, (json) => [json.toString(), inflating.inUse]);
      expect(result).toEqual({ ok: true, value: ['[1,2,3]', 7], bytes: 7 });
      expect(inflating.inUse).toBe(0);
    }
  });

  it('stops at the first chunk past maxBytes, never holding more than them', async () => {
    const inflating = new (class extends InflatingBytes {
      peak = 0;
      override take(bytes: number): boolean {
        const taken = super.take(bytes);
        this.peak = Math.max(this.peak, this.inUse);
        return taken;
      }
    })(64 * MiB);
    const result = await readInflated(spaces(40 * MiB), 'gzip', { maxBytes: 2 * MiB, json: roomy(), inflating }, () => 'read');
    expect(result).toEqual({ ok: false, refusal: 'too large' });
    expect(inflating.peak).toBeLessThanOrEqual(2 * MiB);
    expect(inflating.inUse).toBe(0);
  });

  it("stops at the first chunk past the request's JSON budget", async () => {
    const result = await readInflated(gzipSync(`[${Array(20_000).fill('{}').join(',')}]`), 'gzip', { maxBytes: MiB, json: new JsonBudget(10_000, true) }, () => 'read');
    expect(result).toEqual({ ok: false, refusal: 'too dense', reason: refusal(10_000) });
  });

  it('answers 429 RATE_LIMITED with Retry-After: 1 when the process holds all it may, and takes nothing', async () => {
    const inflating = new InflatingBytes(MiB);
    expect(inflating.take(MiB - 1)).toBe(true);
    await expect(readInflated(spaces(MiB), 'gzip', { maxBytes: 2 * MiB, json: roomy(), inflating }, () => 'read')).rejects.toMatchObject({
      status: 429,
      code: 'RATE_LIMITED',
      headers: { 'Retry-After': '1' },
    });
    expect(inflating.inUse).toBe(MiB - 1);
  });

  it('refuses a body that is not the format it claims', async () => {
    expect(await readInflated(Buffer.from('not gzip'), 'gzip', { maxBytes: MiB, json: roomy() }, () => 'read')).toEqual({ ok: false, refusal: 'corrupt' });
    expect(await readInflated(gzipSync('[1]').subarray(0, 12), 'gzip', { maxBytes: MiB, json: roomy() }, () => 'read')).toEqual({ ok: false, refusal: 'corrupt' });
  });
});
