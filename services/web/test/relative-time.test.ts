import { relativeTime } from '../src/components/timeAgo';

const now = Date.parse('2026-12-01T12:00:00Z');
const ago = (seconds: number) => new Date(now - seconds * 1000).toISOString();

describe('relativeTime', () => {
  it('tells hours apart by their minutes under ten hours, and counts whole hours after', () => {
    expect(relativeTime(ago(110 * 60), now)).toBe('1 h 50 min ago');
    expect(relativeTime(ago(65 * 60), now)).toBe('1 h 5 min ago');
    expect(relativeTime(ago(2 * 3_600), now)).toBe('2 h ago');
    expect(relativeTime(ago(10 * 3_600 + 59 * 60), now)).toBe('10 h ago');
    expect(relativeTime(ago(59 * 60), now)).toBe('59 min ago');
  });

  it('says the future as such, and the same second as just now', () => {
    expect(relativeTime(ago(-90 * 60), now)).toBe('in 1 h 30 min');
    expect(relativeTime(ago(0), now)).toBe('just now');
    expect(relativeTime(ago(3 * 86_400), now)).toBe('3 d ago');
    expect(relativeTime(ago(3 * 86_400 - 60), now)).toBe('2 d ago');
    // To come, days are the nearest: an invitation of seven days, seconds after it was sent.
    expect(relativeTime(ago(-(7 * 86_400 - 5)), now)).toBe('in 7 d');
    expect(relativeTime(ago(-(6 * 86_400 + 3_600)), now)).toBe('in 6 d');
  });
});
