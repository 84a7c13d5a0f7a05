import { formatDateTime, formatDuration, formatOffset } from '../src/components/formats';
import { wordSegments } from '../src/components/wordBreaks';

/** Moments and durations as every page writes them. */
describe('formats', () => {
  it('writes a moment on a 24-hour clock in the zone asked for, with milliseconds where they matter', () => {
    const time = '2026-12-01T16:06:12.227Z';
    expect(formatDateTime(time, { timeZone: 'Europe/Berlin' })).toBe('Dec 1, 2026, 17:06:12');
    expect(formatDateTime(time, { timeZone: 'America/New_York', milliseconds: true })).toBe('Dec 1, 2026, 11:06:12.227');
    expect(formatDateTime(Date.parse('2026-12-01T23:30:00Z'), { timeZone: 'UTC' })).toBe('Dec 1, 2026, 23:30:00');
  });

  it('writes a breadcrumb\'s distance from its event in at most two units, signed', () => {
    expect(formatOffset(-1_250)).toBe('−1.25 s');
    expect(formatOffset(-850)).toBe('−850 ms');
    expect(formatOffset(4_305_800)).toBe('+1 h 11 min');
    expect(formatOffset(-72_000)).toBe('−1 min 12 s');
    expect(formatOffset(0)).toBe('0 s');
    expect(formatDuration(3 * 86_400_000 + 4 * 3_600_000)).toBe('3 d 4 h');
  });
});

describe('wordSegments', () => {
  it('leaves words up to the longest whole', () => {
    expect(wordSegments('ValidationError:', 20)).toEqual(['ValidationError:']);
  });

  it('breaks a long identifier where its parts meet, and a run without such places every longest characters', () => {
    expect(wordSegments('renderTreeRecursivelyWithAVeryLongName', 20)).toEqual(['render', 'Tree', 'Recursively', 'With', 'AVery', 'Long', 'Name']);
    expect(wordSegments('src/ui/tree/renderTree.tsx', 20)).toEqual(['src/', 'ui/', 'tree/', 'render', 'Tree.', 'tsx']);
    expect(wordSegments('a'.repeat(45), 20)).toEqual(['a'.repeat(20), 'a'.repeat(20), 'a'.repeat(5)]);
    expect(wordSegments('renderTreeRecursivelyWithAVeryLongName', 20).join('')).toBe('renderTreeRecursivelyWithAVeryLongName');
  });
});
