import { isoTime, itemTimestamp } from './time';

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

  it.each(['May 5 2026', 'x 2026', '-5', '2026-02-30T00:00:00Z', '2026-13-01', '2026-05-01T25:00:00Z', '5'])(
    'rejects %j, which Date.parse would read (or roll over) but is no ISO 8601 time',
    (text) => {
      expect(itemTimestamp(text, RECEIVED_AT)).toEqual({ ok: false, reason: 'timestamp must be an ISO 8601 date-time' });
    },
  );

  it('reads an ISO 8601 date alone as its midnight UTC, and a space for the T', () => {
    expect(itemTimestamp('2026-04-30', RECEIVED_AT)).toEqual({ ok: true, value: Date.parse('2026-04-30T00:00:00Z') });
    expect(itemTimestamp('2026-04-30 08:15:30Z', RECEIVED_AT)).toEqual({ ok: true, value: Date.parse('2026-04-30T08:15:30Z') });
  });

  it('rejects text that is not a date-time', () => {
    expect(itemTimestamp('not a time', RECEIVED_AT)).toEqual({ ok: false, reason: 'timestamp must be an ISO 8601 date-time' });
  });
});

describe('isoTime', () => {
  it('writes what toISOString writes, for times across and within seconds', () => {
    const base = Date.parse('2026-11-25T01:22:57.000Z');
    const times = [0, 1, 999, 1000, 1001, -1, -1500, base, base + 7, base + 42, base + 999, base + 1000, Date.parse('0100-02-03T04:05:06.789Z'), 253_402_300_799_999];
    for (let step = 0; step < 500; step++) times.push(base + step * 7_919);
    for (const time of times) expect([time, isoTime(time)]).toEqual([time, new Date(time).toISOString()]);
    // Years beyond 9999 take toISOString's six-digit form.
    expect(isoTime(8.64e15)).toBe('+275760-09-13T00:00:00.000Z');
  });

  it('truncates fractional milliseconds toward zero, as a Date does', () => {
    expect(isoTime(1500.9)).toBe('1970-01-01T00:00:01.500Z');
    expect(isoTime(-1500.9)).toBe(new Date(-1500.9).toISOString());
  });

  it('answers undefined for a time no Date holds', () => {
    for (const time of [8.64e15 + 1, -8.64e15 - 1, 1e17, Number.NaN, Number.POSITIVE_INFINITY]) expect(isoTime(time)).toBeUndefined();
  });
});
