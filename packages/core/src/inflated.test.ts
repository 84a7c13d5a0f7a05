import { gzipSync } from 'node:zlib';
import { inflatedJsonProblem, MAX_JSON_CONTAINERS_PER_RECEIVED_BYTE, MIN_JSON_CONTAINER_BUDGET } from './inflated';

/** JSON text of an array of `count` empty objects: `count + 1` objects and arrays in about 3 bytes each. */
const emptyObjects = (count: number) => Buffer.from(`[${Array(count).fill('{}').join(',')}]`);

const refusal = (budget: number) =>
  `the body inflates to more than ${budget.toLocaleString('en-US')} JSON objects and arrays (at most 32 per byte received, or 10,000)`;

describe('inflatedJsonProblem', () => {
  it('refuses inflated JSON that opens more than 32 objects and arrays per byte received', () => {
    expect(MAX_JSON_CONTAINERS_PER_RECEIVED_BYTE).toBe(32);
    const json = emptyObjects(40_000);
    expect(inflatedJsonProblem(json, 1_000)).toBe(refusal(32_000));
    // The gzip of that text is a few hundred bytes: what a client sends to make the server parse 40,001 objects.
    expect(inflatedJsonProblem(json, gzipSync(json).length)).toBe(refusal(10_000));
  });

  it('takes exactly the budget, and refuses one object or array more', () => {
    expect(inflatedJsonProblem(emptyObjects(31_999), 1_000)).toBeUndefined();
    expect(inflatedJsonProblem(emptyObjects(32_000), 1_000)).toBe(refusal(32_000));
  });

  it('lets any body open 10,000 objects and arrays, however few bytes it arrived in', () => {
    expect(MIN_JSON_CONTAINER_BUDGET).toBe(10_000);
    expect(inflatedJsonProblem(emptyObjects(9_999), 1)).toBeUndefined();
    expect(inflatedJsonProblem(emptyObjects(10_000), 1)).toBe(refusal(10_000));
  });

  it('takes a body sent as it is, whatever it holds: no byte opens more than one', () => {
    const json = emptyObjects(200_000);
    expect(inflatedJsonProblem(json, json.length)).toBeUndefined();
  });

  it('counts brackets inside strings too, as an upper bound found without parsing', () => {
    const json = Buffer.from(JSON.stringify({ message: '['.repeat(20_000) }));
    expect(inflatedJsonProblem(json, 100)).toBe(refusal(10_000));
  });

  it('takes what compressed telemetry opens, far below 32 per byte', () => {
    // A thousand Sentry error events that are all the same (the densest envelope of errors: it compresses best), and
    // OTLP spans whose twenty attributes repeat in every span (the densest telemetry measured, 8 to 11 per byte).
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
      expect(opened).toBeGreaterThan(MIN_JSON_CONTAINER_BUDGET);
      expect(inflatedJsonProblem(json, gzipSync(json).length)).toBeUndefined();
    }
  });
});
