import type { IngestContext } from './context';
import { sessionOutcome, toSessionAggregateRecords, toSessionRecord } from './sessions';

const RECEIVED_AT = Date.parse('2026-05-01T12:00:00.000Z');
const context: IngestContext = {
  projectId: '0190d6a4-7c3e-7a51-9e4b-3f0c2a1b5d6e',
  retentionDays: 14,
  receivedAt: RECEIVED_AT,
  client: { $ip: '203.0.113.9' },
};
const attrs = { release: 'shop@1.0.0', environment: 'production' };

describe('sessionOutcome', () => {
  it.each([
    ['ok', 0, 'healthy'],
    ['exited', 0, 'healthy'],
    ['exited', 2, 'errored'],
    ['ok', 1, 'errored'],
    ['errored', 0, 'errored'],
    ['abnormal', 3, 'abnormal'],
    ['crashed', 1, 'crashed'],
    ['unhandled', 1, 'errored'],
    ['unhandled', 0, 'errored'],
  ] as const)('%s with %d errors is %s', (status, errors, outcome) => {
    expect(sessionOutcome(status, errors)).toBe(outcome);
  });
});

describe('toSessionRecord', () => {
  it('keys the row by the lowercased session id and takes epoch seconds, a numeric did and the server $ip', () => {
    const result = toSessionRecord({ sid: 'ABC-1', did: 42, started: RECEIVED_AT / 1000 - 60, timestamp: RECEIVED_AT / 1000 - 15, status: 'exited', attrs }, context);
    expect(result).toEqual({
      ok: true,
      value: expect.objectContaining({
        id: 'abc-1',
        sessionId: 'abc-1',
        distinctId: '42',
        status: 'exited',
        outcome: 'healthy',
        errors: 0,
        quantity: 1,
        started: RECEIVED_AT - 60_000,
        timestamp: RECEIVED_AT - 15_000,
        durationMs: 45_000,
        release: 'shop@1.0.0',
        environment: 'production',
        properties: { $ip: '203.0.113.9' },
      }),
    });
  });

  it('defaults the status to ok and the update time to the receive time; the SDK duration wins', () => {
    const result = toSessionRecord({ sid: 's', started: '2026-05-01T11:00:00Z', duration: 2.5, attrs: { release: 'r' } }, context);
    expect(result.ok && [result.value.status, result.value.timestamp, result.value.durationMs, result.value.environment]).toEqual(['ok', RECEIVED_AT, 2_500, null]);
  });

  it('keeps @sentry/browser\'s unhandled status as sent: errored, not crashed, with at least the one error that ended it', () => {
    const update = { sid: 'page-1', started: '2026-05-01T11:59:00Z', timestamp: '2026-05-01T11:59:02Z', attrs };
    const sent = toSessionRecord({ ...update, status: 'unhandled', errors: 1 }, context);
    expect(sent.ok && [sent.value.status, sent.value.outcome, sent.value.errors]).toEqual(['unhandled', 'errored', 1]);
    const uncounted = toSessionRecord({ ...update, status: 'unhandled', errors: 0 }, context);
    expect(uncounted.ok && [uncounted.value.status, uncounted.value.outcome, uncounted.value.errors]).toEqual(['unhandled', 'errored', 1]);
  });

  it('still refuses a status no SDK sends, naming the ones it takes', () => {
    expect(toSessionRecord({ sid: 's', started: '2026-05-01T11:00:00Z', status: 'fine', attrs }, context)).toEqual({
      ok: false,
      reason: 'status must be one of ok, exited, crashed, abnormal, errored, unhandled',
    });
  });

  it('refuses a start more than a day ahead', () => {
    expect(toSessionRecord({ sid: 's', started: '2026-05-03T12:00:00Z', attrs }, context)).toEqual({ ok: false, reason: 'started is more than 24 hours in the future' });
  });
});

describe('toSessionAggregateRecords', () => {
  it('makes one record per bucket and non-zero status, each with its own id', () => {
    const result = toSessionAggregateRecords({ aggregates: [{ started: '2026-05-01T11:59:00Z', did: 'u1', exited: 4, crashed: 1, errored: 0 }], attrs }, context);
    if (!result.ok) throw new Error(result.reason);
    expect(result.value.map((record) => [record.status, record.outcome, record.quantity, record.distinctId, record.sessionId])).toEqual([
      ['exited', 'healthy', 4, 'u1', null],
      ['crashed', 'crashed', 1, 'u1', null],
    ]);
    expect(new Set(result.value.map((record) => record.id)).size).toBe(2);
  });

  it('counts an aggregate\'s unhandled sessions as errored, not crashed', () => {
    const result = toSessionAggregateRecords({ aggregates: [{ started: '2026-05-01T11:59:00Z', unhandled: 3, crashed: 1 }], attrs }, context);
    if (!result.ok) throw new Error(result.reason);
    expect(result.value.map((record) => [record.status, record.outcome, record.quantity])).toEqual([
      ['unhandled', 'errored', 3],
      ['crashed', 'crashed', 1],
    ]);
  });

  it('names the bucket whose start is unreadable', () => {
    expect(toSessionAggregateRecords({ aggregates: [{ started: '2026-05-01T11:59:00Z', exited: 1 }, { started: 'soon', exited: 1 }], attrs }, context)).toEqual({
      ok: false,
      reason: 'aggregates.1.started must be an RFC 3339 date-time or epoch seconds',
    });
  });
});
