/**
 * The calendar a question's "today", "yesterday", "this week" and "this month" are read in: the days of the asker's
 * time zone (an IANA name the web app sends), so that "errors today" asked at 5 pm in California starts at its
 * midnight there, not at the UTC midnight a few hours before.
 */
export interface Calendar {
  /** Today's date in the zone: year, month (0 to 11), day of the month and weekday (0 is Sunday). */
  readonly year: number;
  readonly month: number;
  readonly date: number;
  readonly weekday: number;
  /** The GQL bound of the start of the day `daysBefore` days before today in the zone. */
  dayStart(daysBefore: number): string;
}

const MINUTE_MS = 60_000;
const formats = new Map<string, Intl.DateTimeFormat>();

/** A time zone the platform can read days in: an IANA name (Europe/Berlin) or UTC. */
export function isTimeZone(name: string): boolean {
  try {
    wallClock(name);
    return true;
  } catch {
    return false;
  }
}

function wallClock(timeZone: string): Intl.DateTimeFormat {
  let format = formats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
    });
    formats.set(timeZone, format);
  }
  return format;
}

/** The zone's wall-clock time at `instant`, as the epoch milliseconds of the same wall-clock time in UTC. */
function wallTime(timeZone: string, instant: number): number {
  const parts: Record<string, number> = {};
  for (const part of wallClock(timeZone).formatToParts(instant)) if (part.type !== 'literal') parts[part.type] = Number(part.value);
  return Date.UTC(parts['year']!, parts['month']! - 1, parts['day']!, parts['hour']!, parts['minute']!);
}

const pad = (value: number) => String(value).padStart(2, '0');

/** `2024-05-10` of a UTC date's fields. */
const isoDate = (utc: Date) => utc.toISOString().slice(0, 10);

/**
 * The calendar of `timeZone` at `now`. In UTC a day's start is its date, as GQL reads `since:2024-05-10`; elsewhere it
 * is the zone's midnight with its offset that day (`since:2024-05-10T00:00-07:00`), which daylight saving moves. A
 * day whose midnight the clocks skip starts at the first minute it has.
 */
export function calendarOf(now: Date, timeZone = 'UTC'): Calendar {
  const today = new Date(wallTime(timeZone, now.getTime()));
  const year = today.getUTCFullYear();
  const month = today.getUTCMonth();
  const date = today.getUTCDate();
  return {
    year,
    month,
    date,
    weekday: today.getUTCDay(),
    dayStart(daysBefore) {
      const midnight = Date.UTC(year, month, date - daysBefore);
      // The instant whose wall-clock time is that midnight: the offset at a first guess, then at the instant it gives
      // (they differ when the offset changes between the two).
      const first = midnight - (wallTime(timeZone, midnight) - midnight);
      const instants = [first, midnight - (wallTime(timeZone, first) - first)];
      const after = instants.filter((instant) => wallTime(timeZone, instant) >= midnight);
      const start = after.length > 0 ? Math.min(...after) : first;
      const wall = wallTime(timeZone, start);
      const offset = Math.round((wall - start) / MINUTE_MS);
      if (offset === 0 && wall === midnight) return isoDate(new Date(midnight));
      const sign = offset < 0 ? '-' : '+';
      const local = new Date(wall);
      return `${isoDate(local)}T${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}${sign}${pad(Math.floor(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`;
    },
  };
}
