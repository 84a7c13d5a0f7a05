import { localTime, rowName } from '../src/pages/explore/columns';

describe('localTime', () => {
  it("shows a row's UTC timestamp in the given time zone, to the millisecond", () => {
    // The day before in Los Angeles, at 19:15.
    expect(localTime('2026-12-01T03:15:08.123Z', 'America/Los_Angeles')).toMatch(/30.*19:15:08[.,]123/);
    expect(localTime('2026-12-01T03:15:08Z', 'UTC')).toMatch(/1.*03:15:08[.,]000/);
  });

  it('leaves every other value alone', () => {
    for (const value of ['2026-12-01', 'order 2026-12-01T03:15:08Z', '2026-12-01T03:15:08+01:00', 1796094908123, null, undefined, { at: '2026-12-01T03:15:08Z' }]) {
      expect(localTime(value)).toBeUndefined();
    }
  });
});

describe('rowName', () => {
  it("names a row by its time and what it says, so its controls tell rows apart", () => {
    expect(rowName({ timestamp: '2026-12-01T16:06:12.227Z', severity: 'error', message: 'checkout failed' }, 'UTC')).toBe('Dec 1, 2026, 16:06:12.227 checkout failed');
    expect(rowName({ event_name: 'signup', distinct_id: 'u1' })).toBe('signup');
    expect(rowName({ value: 3 })).toBe('a row');
    expect(rowName({ message: 'x'.repeat(200) })).toHaveLength(80);
  });
});
