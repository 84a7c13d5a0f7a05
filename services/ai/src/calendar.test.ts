import { compileQuery } from '@tlm/gql';
import { calendarOf, isTimeZone } from './calendar';

describe("the asker's calendar", () => {
  it('reads UTC days as dates, the way GQL reads since:2024-05-10', () => {
    const calendar = calendarOf(new Date('2024-05-10T12:00:00Z'));
    expect([calendar.year, calendar.month, calendar.date, calendar.weekday]).toEqual([2024, 4, 10, 5]);
    expect([calendar.dayStart(0), calendar.dayStart(1), calendar.dayStart(10)]).toEqual(['2024-05-10', '2024-05-09', '2024-04-30']);
  });

  it("starts a zone's day at its midnight there, with that day's offset", () => {
    // 01:30 UTC on the 11th is still the 10th in California (UTC-7 in May) and already the 11th in Tokyo.
    const now = new Date('2024-05-11T01:30:00Z');
    const california = calendarOf(now, 'America/Los_Angeles');
    expect([california.date, california.weekday]).toEqual([10, 5]);
    expect(california.dayStart(0)).toBe('2024-05-10T00:00-07:00');
    const tokyo = calendarOf(now, 'Asia/Tokyo');
    expect([tokyo.date, tokyo.weekday]).toEqual([11, 6]);
    expect(tokyo.dayStart(0)).toBe('2024-05-11T00:00+09:00');
    // Half-hour offsets keep their minutes.
    expect(calendarOf(now, 'Asia/Kolkata').dayStart(0)).toBe('2024-05-11T00:00+05:30');
  });

  it('gives each day the offset it had: days before a change of daylight saving keep theirs', () => {
    // Europe/Berlin moved from UTC+1 to UTC+2 on 2024-03-31 at 02:00.
    const berlin = calendarOf(new Date('2024-04-02T10:00:00Z'), 'Europe/Berlin');
    expect(berlin.dayStart(0)).toBe('2024-04-02T00:00+02:00');
    expect(berlin.dayStart(1)).toBe('2024-04-01T00:00+02:00');
    expect(berlin.dayStart(2)).toBe('2024-03-31T00:00+01:00');
    expect(berlin.dayStart(3)).toBe('2024-03-30T00:00+01:00');
  });

  it('starts a day whose midnight the clocks skip at its first minute', () => {
    // Chile's clocks went from 00:00 to 01:00 on 2024-09-08 (UTC-4 to UTC-3).
    const santiago = calendarOf(new Date('2024-09-08T15:00:00Z'), 'America/Santiago');
    expect(santiago.dayStart(0)).toBe('2024-09-08T01:00-03:00');
    expect(santiago.dayStart(1)).toBe('2024-09-07T00:00-04:00');
  });

  it('writes bounds GQL reads as the same instants', () => {
    const now = new Date('2024-05-11T01:30:00Z');
    for (const [zone, instant] of [
      ['America/Los_Angeles', '2024-05-10T07:00:00.000Z'],
      ['Asia/Kolkata', '2024-05-10T18:30:00.000Z'],
      ['UTC', '2024-05-11T00:00:00.000Z'],
    ] as const) {
      const { plan } = compileQuery(`from:logs | count | since:${calendarOf(now, zone).dayStart(0)}`);
      expect(plan.since && 'at' in plan.since ? plan.since.at.toISOString() : plan.since).toBe(instant);
    }
  });

  it('knows IANA names and UTC, and nothing else', () => {
    expect(['UTC', 'Europe/Berlin', 'America/Argentina/Buenos_Aires', 'Etc/GMT+5'].every(isTimeZone)).toBe(true);
    expect(['Mars/Olympus', 'Europe/Berlin/x', '', 'not a zone', '+02:00 '].some(isTimeZone)).toBe(false);
  });
});
