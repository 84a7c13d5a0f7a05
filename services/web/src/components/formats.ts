/**
 * How the web app writes moments and durations, the same on every page: a moment in the browser's time zone on a
 * 24-hour clock (`Dec 1, 2026, 17:06:12`, with `.227` where milliseconds matter), a duration in at most two units.
 */

/** A moment as every page writes it; `milliseconds` for rows and spans, `timeZone` to read it in another zone. */
export function formatDateTime(time: Date | string | number, options: { milliseconds?: boolean; timeZone?: string } = {}): string {
  return new Date(time).toLocaleString(undefined, {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    ...(options.milliseconds ? { fractionalSecondDigits: 3 as const } : {}),
    hour12: false,
    timeZone: options.timeZone,
  });
}

/** A duration for people: `0.42 ms`, `12.3 ms`, `1.24 s`, `2 min 5 s`, `17 h 21 min`, `3 d 4 h`; a negative one with a minus. */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '–';
  if (ms < 0) return `−${formatDuration(-ms)}`;
  if (ms === 0) return '0 ms';
  if (ms < 1) return `${ms.toFixed(2)} ms`;
  if (ms < 100) return `${Number(ms.toFixed(1))} ms`;
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${Number((ms / 1_000).toFixed(2))} s`;
  const seconds = Math.round(ms / 1_000);
  // Two units at most, the larger first: seconds beside minutes, minutes beside hours, hours beside days.
  const [large, small] =
    seconds < 3_600
      ? [`${Math.floor(seconds / 60)} min`, `${seconds % 60} s`]
      : seconds < 86_400
        ? [`${Math.floor(seconds / 3_600)} h`, `${Math.floor((seconds % 3_600) / 60)} min`]
        : [`${Math.floor(seconds / 86_400)} d`, `${Math.floor((seconds % 86_400) / 3_600)} h`];
  return small.startsWith('0 ') ? large : `${large} ${small}`;
}

/** How long after (`+1 h 12 min`) or before (`−1.25 s`) a moment another one is, `0 s` when they are the same. */
export function formatOffset(ms: number): string {
  return ms > 0 ? `+${formatDuration(ms)}` : ms === 0 ? '0 s' : formatDuration(ms);
}
