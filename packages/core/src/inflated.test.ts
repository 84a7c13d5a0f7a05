import { gzipSync } from 'node:zlib';
import { JsonBudget, MAX_JSON_CONTAINERS_PER_RECEIVED_BYTE, MIN_JSON_CONTAINER_BUDGET } from './inflated';

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
