import { itemTimestamp } from './time';

const RECEIVED_AT = Date.parse('2026-05-01T12:00:00.000Z');
const DAY_MS = 24 * 60 * 60 * 1000;

describe('itemTimestamp', () => {
  it('defaults to the server receive time', () => {
    expect(itemTimestamp(undefined, RECEIVED_AT)).toEqual({ ok: true, value: RECEIVED_AT });
  });

  it('reads UTC (Z) times with milliseconds', () => {
    expect(itemTimestamp('2026-05-01T08:15:30.123Z', RECEIVED_AT)).toEqual({ ok: true, value: Date.parse('2026-05-01T08:15:30.123Z') });
  });

  it('applies an explicit offset, with or without a colon', () => {
    const expected = { ok: true, value: Date.parse('2026-05-01T08:15:30.000Z') };
    expect(itemTimestamp('2026-05-01T10:15:30+02:00', RECEIVED_AT)).toEqual(expected);
    expect(itemTimestamp('2026-05-01T10:15:30+0200', RECEIVED_AT)).toEqual(expected);
    expect(itemTimestamp('2026-05-01T03:15:30-05:00', RECEIVED_AT)).toEqual(expected);
  });

  it('reads a time without a zone as UTC, not as the server local time', () => {
    expect(itemTimestamp('2026-05-01T08:15:30', RECEIVED_AT)).toEqual({ ok: true, value: Date.parse('2026-05-01T08:15:30Z') });
    expect(itemTimestamp('2026-05-01T08:15:30.5', RECEIVED_AT)).toEqual({ ok: true, value: Date.parse('2026-05-01T08:15:30.500Z') });
  });

  it('accepts a time exactly 24 hours ahead of the server and rejects one a millisecond later', () => {
    expect(itemTimestamp(new Date(RECEIVED_AT + DAY_MS).toISOString(), RECEIVED_AT)).toEqual({ ok: true, value: RECEIVED_AT + DAY_MS });
    expect(itemTimestamp(new Date(RECEIVED_AT + DAY_MS + 1).toISOString(), RECEIVED_AT)).toEqual({
      ok: false,
      reason: 'timestamp is more than 24 hours in the future',
    });
  });

  it('accepts times far in the past (retention decides what is kept)', () => {
    expect(itemTimestamp('2001-01-01T00:00:00Z', RECEIVED_AT)).toEqual({ ok: true, value: Date.parse('2001-01-01T00:00:00Z') });
  });

  it('rejects text that is not a date-time', () => {
    expect(itemTimestamp('not a time', RECEIVED_AT)).toEqual({ ok: false, reason: 'timestamp must be an ISO 8601 date-time' });
  });
});
