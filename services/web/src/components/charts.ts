/**
 * Aggregate answers (docs/gql.md "Aggregate mode") as chart data: groups as bars, time buckets as lines with one
 * series per group. Buckets without rows are absent from the answer, so counts are filled with zero and other
 * aggregates (an average of nothing) are left as gaps.
 */
import type { GqlAnswer } from '../api/types';
import { browserTimeZone } from './timeZone';

type Row = Record<string, unknown>;

export interface AggregateShape {
  func: string;
  field: string | null;
  /** Groups other than the time bucket, named as written in the query. */
  groupBy: string[];
  /** The bucket of `by time(…)`, e.g. `5m`, or null. */
  interval: string | null;
}

export function aggregateShape(query: GqlAnswer['query']): AggregateShape {
  const step = query.pipeline.find((candidate) => candidate.type === 'aggregate');
  return { func: step?.func ?? 'count', field: step?.field ?? null, groupBy: step?.group_by ?? [], interval: query.interval ?? null };
}

/** The aggregate as the query wrote it: `count by severity`, `p95(duration_ms) by time(1m), route`. */
export function aggregateLabel(shape: AggregateShape): string {
  const value = shape.field ? `${shape.func}(${shape.field})` : shape.func;
  const groups = [...(shape.interval ? [`time(${shape.interval})`] : []), ...shape.groupBy];
  return groups.length ? `${value} by ${groups.join(', ')}` : value;
}

const UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** A GQL duration (`5m`, `24h`, `2w`) in milliseconds. */
export function durationMs(duration: string): number | undefined {
  const match = /^(\d+)([smhdw])$/i.exec(duration.trim());
  return match ? Number(match[1]) * UNIT_MS[match[2]!.toLowerCase()]! : undefined;
}

const MONDAY_OFFSET_MS = 4 * UNIT_MS['d']!;

/** The start of the bucket holding `time`: buckets count from the Unix epoch, weeks start on Monday. */
export function bucketStart(time: number, intervalMs: number): number {
  const offset = intervalMs % UNIT_MS['w']! === 0 ? MONDAY_OFFSET_MS : 0;
  return Math.floor((time - offset) / intervalMs) * intervalMs + offset;
}

/** Where a query's time range starts and ends, when the answer says (`{last}` or `{since, until}`). */
export function rangeBounds(timeRange: GqlAnswer['query']['time_range'], now: number): { from?: number; to?: number } {
  if (!timeRange) return {};
  const at = (value: string | undefined) => {
    if (!value) return undefined;
    const ago = durationMs(value);
    if (ago !== undefined) return now - ago;
    const time = Date.parse(value);
    return Number.isNaN(time) ? undefined : time;
  };
  if ('last' in timeRange && timeRange.last) return { from: at(timeRange.last), to: now };
  const since = 'since' in timeRange ? at(timeRange.since) : undefined;
  const until = 'until' in timeRange ? at(timeRange.until) : undefined;
  return { ...(since === undefined ? {} : { from: since }), to: until ?? now };
}

/** How a chart names a group whose row lacks the field. */
export const NO_VALUE = '(none)';

/** A group's name on a chart: its values joined, NO_VALUE for rows without the field. */
export function groupLabel(row: Row, fields: string[]): string {
  if (fields.length === 0) return 'value';
  return fields.map((field) => (row[field] === null || row[field] === undefined ? NO_VALUE : String(row[field]))).join(' / ');
}

/** A group field as the answer names it: a group called `value` comes back as `group_value`. */
const answerField = (field: string) => (field === 'value' ? 'group_value' : field);

const numberOf = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);

export interface BarData {
  labels: string[];
  values: (number | null)[];
}

export function barData(results: Row[], groupBy: string[]): BarData {
  const fields = groupBy.map(answerField);
  return { labels: results.map((row) => groupLabel(row, fields)), values: results.map((row) => numberOf(row['value'])) };
}

export interface SeriesData {
  /** Bucket starts in seconds (uPlot's time scale). */
  xs: number[];
  series: { label: string; values: (number | null)[] }[];
}

const COUNTS = new Set(['count', 'count_distinct', 'sum']);
export const MAX_SERIES = 12;
const MAX_POINTS = 10_000;

/**
 * One series per group (the biggest `maxSeries` by total), on every bucket from the range's start to its end when
 * the range is known, else from the first bucket to the last.
 */
export function timeSeriesData(
  results: Row[],
  shape: AggregateShape,
  bounds: { from?: number; to?: number } = {},
  maxSeries = MAX_SERIES,
): SeriesData {
  const intervalMs = durationMs(shape.interval ?? '') ?? 60_000;
  const fields = shape.groupBy.map(answerField);
  const times = results.map((row) => Date.parse(String(row['time']))).filter((time) => !Number.isNaN(time));
  if (times.length === 0) return { xs: [], series: [] };
  let first = Math.min(...times);
  let last = Math.max(...times);
  if (bounds.from !== undefined) first = Math.min(first, bucketStart(bounds.from, intervalMs));
  if (bounds.to !== undefined) last = Math.max(last, bucketStart(bounds.to - 1, intervalMs));
  if ((last - first) / intervalMs >= MAX_POINTS) first = last - (MAX_POINTS - 1) * intervalMs;
  const xs: number[] = [];
  for (let time = first; time <= last; time += intervalMs) xs.push(time);
  const index = new Map(xs.map((time, position) => [time, position]));

  const groups = new Map<string, { values: (number | null)[]; total: number }>();
  const empty = COUNTS.has(shape.func) ? 0 : null;
  for (const row of results) {
    const position = index.get(Date.parse(String(row['time'])));
    if (position === undefined) continue;
    const label = groupLabel(row, fields);
    let group = groups.get(label);
    if (!group) {
      group = { values: xs.map(() => empty), total: 0 };
      groups.set(label, group);
    }
    const value = numberOf(row['value']);
    group.values[position] = value;
    group.total += value ?? 0;
  }
  const series = [...groups.entries()]
    .sort((a, b) => b[1].total - a[1].total)
    .slice(0, maxSeries)
    .map(([label, group]) => ({ label, values: group.values }));
  return { xs: xs.map((time) => time / 1_000), series };
}

const zoneFormats = new Map<string, Intl.DateTimeFormat>();

/** The calendar date and wall-clock time of an instant in a time zone. */
function wallClock(time: number, timeZone: string): { year: number; month: number; day: number; utcOfWall: number } {
  let format = zoneFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
    zoneFormats.set(timeZone, format);
  }
  const part = Object.fromEntries(format.formatToParts(time).map(({ type, value }) => [type, Number(value)]));
  const [year, month, day] = [part['year']!, part['month']!, part['day']!];
  return { year, month, day, utcOfWall: Date.UTC(year, month - 1, day, part['hour']!, part['minute']!, part['second']!) };
}

/** The instant a calendar day starts in a time zone: its midnight (or the first instant after one a clock change skips). */
function dayStart(year: number, month: number, day: number, timeZone: string): number {
  const wall = Date.UTC(year, month - 1, day);
  // The zone's offset at the guess, then at the corrected instant (they differ when a clock change falls between).
  let instant = wall - (wallClock(wall, timeZone).utcOfWall - wall);
  instant = wall - (wallClock(instant, timeZone).utcOfWall - instant);
  return instant;
}


/**
 * Counts of finer buckets (`time` and `value` rows, e.g. `count by time(30m)`) summed into the days of a time zone
 * (the browser's by default): the `days` days up to the one holding `now`, each day present (0 without events). GQL's
 * `time(1d)` buckets are UTC days, which a chart read in California or Tokyo would show starting at 4 p.m. or 9 a.m.;
 * buckets of 15 minutes fall whole into a local day in every time zone (some are 45 minutes off the hour).
 */
export function localDaySeries(results: Row[], now: number, days: number, label: string, timeZone = browserTimeZone() ?? 'UTC'): SeriesData {
  const today = wallClock(now, timeZone);
  const starts: number[] = [];
  for (let back = days - 1; back >= 0; back -= 1) {
    // Calendar steps, not 24-hour ones: a day of a clock change is 23 or 25 hours long.
    const date = new Date(Date.UTC(today.year, today.month - 1, today.day - back));
    starts.push(dayStart(date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate(), timeZone));
  }
  const index = new Map(starts.map((start, position) => [start, position]));
  const values = starts.map(() => 0);
  for (const row of results) {
    const time = Date.parse(String(row['time']));
    if (Number.isNaN(time)) continue;
    const wall = wallClock(time, timeZone);
    const position = index.get(dayStart(wall.year, wall.month, wall.day, timeZone));
    if (position !== undefined) values[position]! += numberOf(row['value']) ?? 0;
  }
  return { xs: starts.map((start) => start / 1_000), series: [{ label, values }] };
}

const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;

export function barSummary(shape: AggregateShape, bars: number): string {
  return `Bar chart: ${aggregateLabel(shape)}, ${plural(bars, 'bar')}`;
}

export function lineSummary(shape: AggregateShape, data: SeriesData): string {
  return `Line chart: ${aggregateLabel(shape)}, ${plural(data.series.length, 'series', 'series')}, ${plural(data.xs.length, 'point')}`;
}

/** Characters a bar's label keeps before it is cut with an ellipsis. */
export const BAR_LABEL_CHARS = 18;
/** Width of a label's character on the axis (12px sans-serif) and the room kept between two labels, in CSS pixels. */
const LABEL_CHAR_PX = 7;
const LABEL_GAP_PX = 10;

/**
 * Indices of values with no value on either side (a bucket between empty ones): a line cannot draw them, so a chart
 * too dense for a point at every value draws these as points. Null when there are none.
 */
export function isolatedPoints(values: readonly (number | null | undefined)[]): number[] | null {
  const found: number[] = [];
  for (let index = 0; index < values.length; index++) {
    if (values[index] == null) continue;
    if (values[index - 1] == null && values[index + 1] == null) found.push(index);
  }
  return found.length > 0 ? found : null;
}

/** A slanted label's footprint along the axis: about a line's height over the sine of its slant, and a gap. */
const SLANTED_SLOT_PX = 18;
const SLANT_DEGREES = 40;

/**
 * How a bar chart writes its labels: level when every one fits, else slanted, where a label needs only about a line's
 * height along the axis, so a narrow panel or a phone still names every bar (of a few dozen); `every` is every how
 * many bars a label is written, and `size` the axis's height for them.
 */
export function barLabelLayout(labels: readonly string[], plotWidthPx: number): { rotate: number; every: number; size: number } {
  const flat = barLabelEvery(labels, plotWidthPx);
  if (flat === 1) return { rotate: 0, every: 1, size: 48 };
  const chars = Math.min(BAR_LABEL_CHARS, Math.max(...labels.map((label) => label.length)));
  const every = Math.max(1, Math.ceil(SLANTED_SLOT_PX / (plotWidthPx / labels.length)));
  return { rotate: SLANT_DEGREES, every, size: Math.ceil(chars * LABEL_CHAR_PX * Math.sin((SLANT_DEGREES * Math.PI) / 180)) + 28 };
}

/**
 * Every how many bars a level label is written, so labels never run into each other: the widest (cut) label against
 * the width each bar has on the axis.
 */
export function barLabelEvery(labels: readonly string[], plotWidthPx: number): number {
  if (labels.length === 0 || plotWidthPx <= 0) return 1;
  const widest = Math.min(BAR_LABEL_CHARS, Math.max(...labels.map((label) => label.length))) * LABEL_CHAR_PX + LABEL_GAP_PX;
  return Math.max(1, Math.ceil(widest / (plotWidthPx / labels.length)));
}

/** Series colours in turn. */
export const PALETTE = ['#4f46e5', '#0e9f6e', '#e3a008', '#e02424', '#0891b2', '#9061f9', '#ff5a1f', '#057a55', '#d61f69', '#6b7280', '#1c64f2', '#8e4b10'];

/**
 * Series named by a severity or level take its colour, as its badge does (errors red, warnings amber, debug grey);
 * fatal is a purple two lines apart from error's red can be told from, not a darker red beside it.
 */
const SEVERITY_COLOURS: Record<string, string> = {
  fatal: '#7e22ce',
  critical: '#7e22ce',
  error: '#e02424',
  warn: '#e3a008',
  warning: '#e3a008',
  info: '#1c64f2',
  debug: '#6b7280',
  trace: '#9ca3af',
};

/** The colour of a chart's `index`th series: its severity's when its label is one, else the palette's in turn. */
export function seriesColour(label: string, index: number): string {
  return SEVERITY_COLOURS[label.toLowerCase()] ?? PALETTE[index % PALETTE.length]!;
}

/**
 * The colours of a chart's series, by the labels' order by name rather than by size: two charts of the same groups
 * (a service's spans and its p95, whose biggest differ) give each group the same colour.
 */
export function seriesColours(labels: readonly string[]): string[] {
  const rank = new Map([...labels].sort().map((label, index) => [label, index]));
  return labels.map((label) => seriesColour(label, rank.get(label)!));
}
