import { isUuid } from '@tlm/core';
import type { IngestContext } from './context';
import { MAX_BREADCRUMBS, MAX_ERROR_FRAMES, eventIdAsUuid, toErrorRecord, type ErrorRecord } from './errors';

const RECEIVED_AT = Date.parse('2026-05-01T12:00:00.000Z');
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';

const context = (overrides: Partial<IngestContext> = {}): IngestContext => ({
  projectId: '0190d6a4-7c3e-7a51-9e4b-3f0c2a1b5d6e',
  retentionDays: 14,
  receivedAt: RECEIVED_AT,
  client: { $ip: '203.0.113.9' },
  ...overrides,
});

function accepted(input: unknown, ingest = context()): ErrorRecord {
  const result = toErrorRecord(input, ingest);
  if (!result.ok) throw new Error(`expected the event to be accepted, got: ${result.reason}`);
  return result.value;
}

function rejection(input: unknown): string {
  const result = toErrorRecord(input, context());
  if (result.ok) throw new Error('expected the event to be rejected');
  return result.reason;
}

const frame = (fn: string, file: string, inApp: boolean, lineno = 1) => ({ function: fn, filename: file, lineno, colno: 5, in_app: inApp });

describe('toErrorRecord: exceptions', () => {
  it('takes the last exception value as the one raised and the others as its chain, nearest first', () => {
    const record = accepted({
      event_id: 'A1B2C3D4E5F60718293A4B5C6D7E8F90',
      exception: {
        values: [
          { type: 'ConnectionError', value: 'socket closed', mechanism: { type: 'chained', source: '__cause__', exception_id: 2, parent_id: 1 } },
          { type: 'KeyError', value: "'user'", mechanism: { type: 'chained', source: '__context__', exception_id: 1, parent_id: 0 } },
          { type: 'RuntimeError', value: 'checkout failed', mechanism: { type: 'generic', exception_id: 0 }, stacktrace: { frames: [frame('charge', 'billing.py', true)] } },
        ],
      },
    });
    expect(record).toMatchObject({ type: 'RuntimeError', value: 'checkout failed', level: 'error', source: 'generic' });
    expect(record.id).toBe('a1b2c3d4-e5f6-0718-293a-4b5c6d7e8f90');
    expect(record.extra['chain']).toEqual([
      { type: 'KeyError', value: "'user'", relation: 'context', exception_id: 1, parent_id: 0 },
      { type: 'ConnectionError', value: 'socket closed', relation: 'cause', exception_id: 2, parent_id: 1 },
    ]);
    expect(record.frames).toEqual([
      { function: 'charge', filename: 'billing.py', module: null, lineno: 1, colno: 5, in_app: true, abs_path: null, context_line: null },
    ]);
  });

  it('accepts exception as a bare list and marks chained values without a mechanism as causes', () => {
    const record = accepted({ exception: [{ type: 'Error', value: 'inner' }, { type: 'TypeError', value: 'outer' }] });
    expect(record.type).toBe('TypeError');
    expect(record.extra['chain']).toEqual([{ type: 'Error', value: 'inner', relation: 'cause' }]);
    expect(isUuid(record.id)).toBe(true);
  });

  it('keeps the innermost 250 of 10,000 frames and says how many were left out', () => {
    const frames = Array.from({ length: 10_000 }, (_, index) => frame(`f${index}`, 'deep.js', false, index));
    const record = accepted({ exception: { values: [{ type: 'RangeError', value: 'Maximum call stack size exceeded', stacktrace: { frames } }] } });
    expect(record.frames).toHaveLength(MAX_ERROR_FRAMES);
    expect(record.frames[0]!.function).toBe('f9750');
    expect(record.frames[MAX_ERROR_FRAMES - 1]!.function).toBe('f9999');
    expect(record.extra['frames_omitted']).toBe(9_750);
  });

  it.each([
    ['onerror', 'window.onerror'],
    ['auto.browser.global_handlers.onerror', 'window.onerror'],
    ['onunhandledrejection', 'unhandledRejection'],
    ['auto.browser.global_handlers.onunhandledrejection', 'unhandledRejection'],
    ['auto.node.onuncaughtexception', 'uncaughtException'],
    ['auto.http.express', 'auto.http.express'],
  ])('names the source of mechanism %s %s', (mechanism, source) => {
    expect(accepted({ exception: { values: [{ type: 'Error', value: 'x', mechanism: { type: mechanism, handled: false } }] } }).source).toBe(source);
  });
});

describe('toErrorRecord: shared frames', () => {
  const stack = (lineno: number) => [frame('handle', 'node_modules/express/lib/router/layer.js', false), frame('charge', 'src/billing.ts', true, lineno)];

  it('gives events with equal frames one frames array, and events whose frames differ in any field their own', () => {
    const first = accepted({ exception: [{ type: 'SharedFramesError', value: 'a', stacktrace: { frames: stack(7) } }] });
    const same = accepted({ exception: [{ type: 'SharedFramesError', value: 'b', stacktrace: { frames: stack(7) } }] });
    const otherLine = accepted({ exception: [{ type: 'SharedFramesError', value: 'c', stacktrace: { frames: stack(8) } }] });
    const otherOuterFrame = accepted({
      exception: [{ type: 'SharedFramesError', value: 'd', stacktrace: { frames: [{ ...stack(7)[0]!, in_app: true }, stack(7)[1]!] } }],
    });
    expect(same.frames).toBe(first.frames);
    expect(otherLine.frames).not.toBe(first.frames);
    expect(otherOuterFrame.frames).not.toBe(first.frames);
    expect(otherOuterFrame.frames[0]!.in_app).toBe(true);
    expect(first.frames[0]!.in_app).toBe(false);
    // A second stack under the same type and innermost frame does not push out the first.
    expect(accepted({ exception: [{ type: 'SharedFramesError', value: 'e', stacktrace: { frames: stack(7) } }] }).frames).toBe(first.frames);
  });

  const full = { function: 'handle', filename: 'layer.js', module: 'express.layer', lineno: 95, colno: 5, in_app: false, abs_path: '/app/layer.js', context_line: 'next()' };
  it.each([
    ['function', 'dispatch'],
    ['filename', 'router.js'],
    ['module', 'express.router'],
    ['lineno', 96],
    ['colno', 6],
    ['in_app', true],
    ['abs_path', '/app/router.js'],
    ['context_line', 'next(err)'],
  ])('gives an event its own frames when an outer frame differs only in %s', (field, value) => {
    const frames = (outer: object) => [outer, frame('charge', 'src/billing.ts', true, 7)];
    const type = `OneFieldError_${field}`;
    const first = accepted({ exception: [{ type, value: 'a', stacktrace: { frames: frames(full) } }] });
    const other = accepted({ exception: [{ type, value: 'b', stacktrace: { frames: frames({ ...full, [field]: value }) } }] });
    expect(other.frames).not.toBe(first.frames);
    expect(other.frames[0]).toMatchObject({ [field]: value });
    expect(accepted({ exception: [{ type, value: 'c', stacktrace: { frames: frames(full) } }] }).frames).toBe(first.frames);
  });

  it('shares frames that are equal once absent fields read as null', () => {
    const withNulls = stack(9).map((given) => ({ ...given, module: null, abs_path: null, context_line: null }));
    const first = accepted({ exception: [{ type: 'NullFramesError', value: 'a', stacktrace: { frames: stack(9) } }] });
    expect(accepted({ exception: [{ type: 'NullFramesError', value: 'b', stacktrace: { frames: withNulls } }] }).frames).toBe(first.frames);
  });
});

describe('toErrorRecord: messages', () => {
  it.each([
    ['a string message', { message: 'disk almost full' }],
    ['a message object', { message: { formatted: 'disk almost full', message: 'disk %s full' } }],
    ['a logentry', { logentry: { message: 'disk almost full' } }],
  ])('takes the value of %s, with an empty type and level info by default', (_, event) => {
    expect(accepted(event)).toMatchObject({ type: '', value: 'disk almost full', level: 'info', frames: [] });
  });

  it.each([
    ['printf-style params', { logentry: { message: 'User %s failed to pay %d (%d%%)', params: ['bob', 42, 5] } }, 'User bob failed to pay 42 (5%)'],
    ['named params', { logentry: { message: 'User %(name)s failed', params: { name: 'bob' } } }, 'User bob failed'],
    ['more placeholders than params', { logentry: { message: '%s and %s', params: ['one'] } }, 'one and %s'],
    ['a formatted text, which wins', { logentry: { formatted: 'done', message: '%s', params: ['x'] } }, 'done'],
  ])('formats a log entry with %s as Sentry does', (_, event, value) => {
    expect(accepted(event).value).toBe(value);
  });

  it("takes the stack of the crashed (else current) thread when the exception has none, as for attach_stacktrace", () => {
    const threads = {
      values: [
        { id: 1, current: false, stacktrace: { frames: [frame('idle', 'pool.py', true)] } },
        { id: 2, crashed: true, stacktrace: { frames: [frame('main', 'app.py', true), frame('charge', 'billing.py', true)] } },
      ],
    };
    const record = accepted({ exception: { values: [{ type: 'ZeroDivisionError', value: 'division by zero' }] }, threads });
    expect(record.frames.map((entry) => entry.function)).toEqual(['main', 'charge']);
    expect(accepted({ message: 'slow request', threads: { values: [{ current: true, stacktrace: { frames: [frame('handler', 'views.py', true)] } }] } }).frames).toHaveLength(1);
  });

  it('keeps the message in extra when the event also has an exception', () => {
    const record = accepted({ message: 'while saving', exception: { values: [{ type: 'IOError', value: 'EIO' }] } });
    expect(record).toMatchObject({ type: 'IOError', value: 'EIO' });
    expect(record.extra['message']).toBe('while saving');
  });

  it.each([
    ['an empty event', {}],
    ['empty exception values and no message', { exception: { values: [] }, message: '' }],
    ['exception values without type or value', { exception: { values: [{ mechanism: { type: 'generic' } }] } }],
  ])('rejects %s with a reason', (_, event) => {
    expect(rejection(event)).toBe('the event has neither an exception nor a message');
  });

  it('rejects a payload whose fields have the wrong shape, naming the field', () => {
    expect(rejection({ message: 'x', exception: { values: [{ type: 42 }] } })).toMatch(/^exception/);
    expect(rejection({ message: 'x', release: 7 })).toBe('release must be string');
  });
});

describe('toErrorRecord: context fields', () => {
  it('reads tags as an object or as [key, value] pairs, and adds transaction, server_name and logger', () => {
    expect(accepted({ message: 'm', tags: { route: '/pay', retry: 2 }, transaction: 'POST /pay' }).tags).toEqual({
      route: '/pay',
      retry: '2',
      transaction: 'POST /pay',
    });
    expect(accepted({ message: 'm', tags: [['route', '/pay'], ['region', 'eu']], server_name: 'web-1', logger: 'app' }).tags).toEqual({
      route: '/pay',
      region: 'eu',
      server_name: 'web-1',
      logger: 'app',
    });
  });

  it('stores the user flat with ip_address as ip, {{auto}} meaning the connection address', () => {
    expect(accepted({ message: 'm', user: { id: 'u-1', email: 'a@example.com', ip_address: '{{auto}}', geo: { country: 'DE' } } }).user).toEqual({
      id: 'u-1',
      email: 'a@example.com',
      ip: '203.0.113.9',
      'geo.country': 'DE',
    });
  });

  it("takes the trace from contexts.trace, else from the request's traceparent", () => {
    const traced = accepted({ message: 'm', contexts: { trace: { trace_id: TRACE_ID.toUpperCase(), span_id: '00f067aa0ba902b7' }, os: { name: 'Linux' } } });
    expect(traced).toMatchObject({ traceId: TRACE_ID, spanId: '00f067aa0ba902b7' });
    expect(traced.extra['contexts.os.name']).toBe('Linux');
    expect(accepted({ message: 'm' }, context({ traceId: 'ab'.repeat(16) }))).toMatchObject({ traceId: 'ab'.repeat(16), spanId: null });
    expect(accepted({ message: 'm' })).toMatchObject({ traceId: null, spanId: null });
  });

  it('keeps the latest 50 breadcrumbs, given as {values} or as a list, with ISO times', () => {
    const crumbs = Array.from({ length: 60 }, (_, index) => ({ category: 'ui.click', message: `click ${index}`, timestamp: 1_777_000_000 + index }));
    for (const breadcrumbs of [{ values: crumbs }, crumbs]) {
      const record = accepted({ message: 'm', breadcrumbs });
      expect(record.breadcrumbs).toHaveLength(MAX_BREADCRUMBS);
      expect(record.breadcrumbs[0]).toEqual({
        category: 'ui.click',
        message: 'click 10',
        timestamp: new Date((1_777_000_000 + 10) * 1000).toISOString(),
      });
      expect(record.breadcrumbs[49]!.message).toBe('click 59');
    }
  });

  it('stores no time for a breadcrumb beyond what a Date holds, and keeps the event', () => {
    // 10^14 seconds is about the year 3,170,000: past the end of Date's range, where toISOString throws.
    const record = accepted({ message: 'm', breadcrumbs: [{ message: 'far', timestamp: 1e14 }, { message: 'near', timestamp: 1.5 }] });
    expect(record.breadcrumbs).toStrictEqual([{ message: 'far' }, { message: 'near', timestamp: '1970-01-01T00:00:01.500Z' }]);
  });

  it.each([
    ['fatal', 'fatal'],
    ['critical', 'fatal'],
    ['error', 'error'],
    ['warning', 'warning'],
    ['warn', 'warning'],
    ['info', 'info'],
    ['log', 'info'],
    ['debug', 'debug'],
    ['trace', 'debug'],
    ['nonsense', 'error'],
  ])('maps level %s to %s', (level, expected) => {
    expect(accepted({ level, exception: [{ type: 'E', value: 'v' }] }).level).toBe(expected);
  });

  it('reads the timestamp as float seconds or ISO 8601 and falls back to the receive time', () => {
    expect(accepted({ message: 'm', timestamp: 1_777_636_800.25 }).timestamp).toBe(1_777_636_800_250);
    expect(accepted({ message: 'm', timestamp: '2026-05-01T10:00:00.5Z' }).timestamp).toBe(Date.parse('2026-05-01T10:00:00.500Z'));
    expect(accepted({ message: 'm', timestamp: '2026-05-01T10:00:00' }).timestamp).toBe(Date.parse('2026-05-01T10:00:00Z'));
    expect(accepted({ message: 'm' }).timestamp).toBe(RECEIVED_AT);
    expect(accepted({ message: 'm', timestamp: 'not a time' }).timestamp).toBe(RECEIVED_AT);
    expect(accepted({ message: 'm', timestamp: RECEIVED_AT / 1000 + 3 * 86_400 }).timestamp).toBe(RECEIVED_AT);
  });

  it("settles the time as Relay does: sent_at's clock drift corrects it, and far ahead or out of retention is the receive time", () => {
    const atTime = (timestamp: number, sentAt?: unknown, retentionDays = 14) => {
      const result = toErrorRecord({ message: 'm', timestamp: timestamp / 1000 }, context({ retentionDays }), { sentAt });
      if (!result.ok) throw new Error(result.reason);
      return result.value;
    };
    const HOUR = 3_600_000;
    // A device 20 hours ahead: its sent_at says so, and its event time moves back by as much.
    expect(atTime(RECEIVED_AT + 20 * HOUR - 5_000, new Date(RECEIVED_AT + 20 * HOUR).toISOString()).timestamp).toBe(RECEIVED_AT - 5_000);
    // A device 2 days behind (a reset clock) likewise, with sent_at as float seconds.
    expect(atTime(RECEIVED_AT - 48 * HOUR - 7_000, (RECEIVED_AT - 48 * HOUR) / 1000).timestamp).toBe(RECEIVED_AT - 7_000);
    // Drift under 55 minutes is not corrected: a slow upload is not a wrong clock.
    expect(atTime(RECEIVED_AT - 30 * 60_000, new Date(RECEIVED_AT - 30 * 60_000).toISOString()).timestamp).toBe(RECEIVED_AT - 30 * 60_000);
    // Without sent_at: more than a minute ahead, or older than the retention (3 days here), is the receive time.
    expect(atTime(RECEIVED_AT + 30_000).timestamp).toBe(RECEIVED_AT + 30_000);
    const ahead = atTime(RECEIVED_AT + 2 * HOUR);
    expect(ahead.timestamp).toBe(RECEIVED_AT);
    expect(ahead.extra['original_timestamp']).toBe('2026-05-01T14:00:00.000Z');
    expect(atTime(RECEIVED_AT - 4 * 24 * HOUR, undefined, 3).timestamp).toBe(RECEIVED_AT);
    expect(atTime(RECEIVED_AT - 2 * 24 * HOUR, undefined, 3).timestamp).toBe(RECEIVED_AT - 2 * 24 * HOUR);
    expect(atTime(1_000).timestamp).toBe(RECEIVED_AT);
  });

  it("trims too many or too long tag, user and extra keys instead of losing the crash, never the service's own, and says how many went", () => {
    const extra = Object.fromEntries(Array.from({ length: 1_200 }, (_, n) => [`flag${n}`, n]));
    const record = accepted({
      message: 'while charging',
      exception: { values: [{ type: 'KeyError', value: 'k' }, { type: 'E', value: 'v' }] },
      extra,
      tags: { ['t'.repeat(300)]: 'v', kept: 'yes' },
      contexts: { os: { name: 'Linux' } },
      sdk: { name: 'sentry.python', version: '2.0.0' },
      timestamp: RECEIVED_AT / 1000 + 3_600,
    });
    expect(record.tags).toEqual({ kept: 'yes' });
    expect(Object.keys(record.extra)).toHaveLength(1_000);
    expect(record.extra).toMatchObject({
      flag0: 0,
      message: 'while charging',
      chain: [expect.objectContaining({ type: 'KeyError' })],
      'sdk.name': 'sentry.python',
      original_timestamp: expect.any(String),
    });
    // 1,200 flags and contexts.os.name, 1,201 of the SDK's keys, beside 5 of the service's and the note.
    expect(record.extra['properties_dropped']).toBe(1 + (1_201 + 5 + 1 - 1_000));
  });

  it('cuts a formatted log entry at 8 KB however many placeholders repeat a long param', () => {
    const record = accepted({ logentry: { message: '%(a)s'.repeat(1_000), params: { a: 'x'.repeat(500_000) } } });
    expect(record.value.length).toBe(8_192);
    expect(accepted({ logentry: { message: '%s!', params: ['y'.repeat(5_000)] } }).value).toBe(`${'y'.repeat(1_024)}!`);
  });

  it("keeps the log scanner's marks to its own errors: an SDK's extra.synthetic and extra.log_id are dropped", () => {
    const record = accepted({ message: 'spoof', extra: { synthetic: 'logs', log_id: '0190d6a4-7c3e-7a51-9e4b-3f0c2a1b5d6e', kept: 1 } });
    expect(record.extra).toEqual({ kept: 1 });
  });

  it('keeps release, environment, platform, the client fingerprint and the context stamps', () => {
    const record = accepted({
      message: 'm',
      release: 'web@1.4.0',
      environment: 'production',
      platform: 'node',
      fingerprint: ['{{ default }}', 'checkout', 3],
      extra: { order: { id: 42 } },
      sdk: { name: 'sentry.javascript.node', version: '10.0.0' },
      request: { url: 'https://shop.example/pay', method: 'POST', headers: { cookie: 'secret' } },
    });
    expect(record).toMatchObject({
      projectId: context().projectId,
      release: 'web@1.4.0',
      environment: 'production',
      platform: 'node',
      fingerprint: ['{{ default }}', 'checkout', '3'],
      retentionDays: 14,
      receivedAt: RECEIVED_AT,
    });
    expect(record.extra).toEqual({
      'order.id': 42,
      'sdk.name': 'sentry.javascript.node',
      'sdk.version': '10.0.0',
      'request.url': 'https://shop.example/pay',
      'request.method': 'POST',
    });
  });

  it('accepts nulls wherever a field may be absent', () => {
    const record = accepted({ message: 'm', user: null, tags: null, release: null, breadcrumbs: null, exception: null, contexts: null, fingerprint: null });
    expect(record).toMatchObject({ user: {}, tags: {}, release: null, breadcrumbs: [], fingerprint: null });
  });
});

describe('eventIdAsUuid', () => {
  it('writes 32 hex digits as a lowercase UUID, keeps a UUID and makes a fresh id otherwise', () => {
    expect(eventIdAsUuid('0123456789ABCDEF0123456789abcdef')).toBe('01234567-89ab-cdef-0123-456789abcdef');
    expect(eventIdAsUuid('01234567-89ab-cdef-0123-456789abcdef')).toBe('01234567-89ab-cdef-0123-456789abcdef');
    const fresh = eventIdAsUuid('not-an-id');
    expect(isUuid(fresh)).toBe(true);
    expect(eventIdAsUuid(undefined)).not.toBe(fresh);
  });
});
