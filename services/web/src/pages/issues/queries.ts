/**
 * The GQL the issue pages run (docs/gql.md, sources `issues` and `errors`) and the rows they read back. Pure
 * functions over strings and rows, so they are tested without a browser (test/issues-queries.test.ts).
 */
import { gqlString } from '../../api/gql';
import { lexGql, MAX_SEARCH_ROWS } from '../explore/queryText';

export const ISSUE_STATUSES = ['unresolved', 'regressed', 'resolved', 'ignored'] as const;
export type IssueStatus = (typeof ISSUE_STATUSES)[number];

export const ISSUE_SORTS = [
  { field: 'last_seen', label: 'Last seen' },
  { field: 'event_count', label: 'Events' },
  { field: 'user_count', label: 'Users' },
] as const;
export type IssueSort = (typeof ISSUE_SORTS)[number]['field'];

/** The issues the list shows at most per tab. */
export const ISSUE_LIST_LIMIT = 100;

/** An issue as `from:issues` answers it. */
export interface Issue {
  id: string;
  short_id: number;
  title: string;
  culprit: string;
  fingerprint: string;
  status: IssueStatus;
  level: string;
  event_count: number;
  user_count: number;
  first_seen: string;
  last_seen: string;
  release_first: string | null;
  release_last: string | null;
  resolved_in_release: string | null;
}

/** A stack frame of an error row (innermost last); `minified` is the position before source maps mapped it. */
export interface Frame {
  function?: string | null;
  filename?: string | null;
  module?: string | null;
  lineno?: number | null;
  colno?: number | null;
  in_app?: boolean;
  abs_path?: string | null;
  context_line?: string | null;
  /** Source lines before and after `context_line`, nearest last and first. */
  pre_context?: string[] | null;
  post_context?: string[] | null;
  minified?: { filename?: string | null; function?: string | null; lineno?: number | null; colno?: number | null };
}

export interface Breadcrumb {
  category?: string | null;
  message?: string | null;
  timestamp?: string | null;
  level?: string | null;
  type?: string | null;
  data?: Record<string, unknown> | null;
}

/** An exception chained to the raised one (`extra.chain`, nearest first). */
export interface ChainedException {
  type: string;
  value: string;
  relation: 'cause' | 'context' | string;
}

/** One error row of `from:errors`: an event of an issue. */
export interface ErrorEvent {
  id: string;
  timestamp: string;
  issue_id: string;
  fingerprint_hash: string;
  type: string;
  value: string;
  level: string;
  release: string | null;
  environment: string | null;
  platform: string | null;
  source: string | null;
  trace_id: string | null;
  span_id: string | null;
  user: Record<string, unknown>;
  tags: Record<string, unknown>;
  extra: Record<string, unknown>;
  frames: Frame[];
  breadcrumbs: Breadcrumb[];
}

/** A value for a GQL condition, quoted so that any text (spaces, `:`, quotes) reads back as itself. */
export const gqlValue = gqlString;

/**
 * People's own conditions, added to the query's first segment: in parentheses, so `a OR b` cannot widen the status
 * condition, unless they wrote segments of their own (`| last 7d`), which are appended as written.
 */
function withConditions(base: string, filter: string): string {
  const conditions = filter.trim();
  if (!conditions) return base;
  return conditions.includes('|') ? `${base} ${conditions}` : `${base} (${conditions})`;
}

/**
 * A parse error of a tab's query as the filter's own: parentheses of the filter that do not pair up, said as such;
 * otherwise each `at column N` counted in the filter as typed (the query puts the tab's conditions before it), or
 * said to lie in what the page puts before or after it.
 */
export function filterErrorMessage(message: string, status: IssueStatus, filter: string): string {
  // Parentheses that do not pair up meet the page's own around the filter: the message would point past the filter.
  let depth = 0;
  for (const token of lexGql(filter)) {
    if (token.type !== 'punct' || (token.text !== '(' && token.text !== ')')) continue;
    depth += token.text === '(' ? 1 : -1;
    if (depth < 0) return `the filter closes a ')' at column ${token.from + 1} that it never opened`;
  }
  if (depth > 0) return `the filter opens ${depth === 1 ? "a '('" : `${depth} '('`} that it never closes`;
  const conditions = filter.trim();
  const base = `from:issues status:${status}`;
  const start = withConditions(base, filter).length - conditions.length - (conditions.includes('|') ? 0 : 1);
  const leading = filter.length - filter.trimStart().length;
  return message.replace(/ at column (\d+)/g, (_, column: string) => {
    const inFilter = Number(column) - start + leading;
    if (inFilter < 1) return " in the tab's own conditions, before the filter";
    return inFilter <= filter.length + 1 ? ` at column ${inFilter} of the filter` : ' in the sort and limit the page puts after the filter';
  });
}

/** The last page of a list: a search reads at most MAX_SEARCH_ROWS rows, and a page needs one row past its own. */
export const ISSUE_LIST_MAX_PAGE = Math.floor((MAX_SEARCH_ROWS - 1) / ISSUE_LIST_LIMIT);

/**
 * The issues of one tab, newest (or most events, or most users) first, through page `page`: every row up to that
 * page's end and one more, which says whether a next page exists. Ties are ordered by id, so pages never overlap.
 */
export function issuesQuery(status: IssueStatus, sort: IssueSort, filter = '', page = 1): string {
  return `${withConditions(`from:issues status:${status}`, filter)} | sort ${sort} desc, id asc | limit ${page * ISSUE_LIST_LIMIT + 1}`;
}

/** Page `page` (from 1) of the rows `issuesQuery` answered, and whether another page follows it. */
export function issuesPage<T>(rows: T[], page: number): { rows: T[]; hasNext: boolean } {
  const start = (page - 1) * ISSUE_LIST_LIMIT;
  return { rows: rows.slice(start, start + ISSUE_LIST_LIMIT), hasNext: rows.length > page * ISSUE_LIST_LIMIT && page < ISSUE_LIST_MAX_PAGE };
}

/** One issue, whatever its status (ignored issues show only when the query names a status). */
export function issueQuery(id: string): string {
  return `from:issues id:${gqlValue(id)} status:[${ISSUE_STATUSES.join(', ')}] | limit 1`;
}

/** Hourly event counts of the last 24 hours for each of the issues, in one query. */
export function sparklineQuery(issueIds: string[]): string {
  return `from:errors issue_id in [${issueIds.map(gqlValue).join(', ')}] | count by time(1h), issue_id | last:24h`;
}

/**
 * The issue chart's ranges and the buckets each asks for: 30 days are drawn as the browser's local days, summed from
 * quarter hours (GQL's `time(1d)` buckets are UTC days; a quarter hour falls whole into a local day in every zone,
 * Nepal's and the Chatham Islands' too).
 */
export const CHART_RANGES = [
  { range: '24h', interval: '1h', label: 'Last 24 hours', localDays: 0 },
  { range: '30d', interval: '15m', label: 'Last 30 days', localDays: 30 },
] as const;
export type ChartRange = (typeof CHART_RANGES)[number]['range'];

/** An issue's events over time. */
export function issueChartQuery(id: string, range: ChartRange): string {
  const { interval } = CHART_RANGES.find((candidate) => candidate.range === range) ?? CHART_RANGES[0];
  return `from:errors issue_id:${gqlValue(id)} | count by time(${interval}) | last:${range}`;
}

/** The ids and times of an issue's events, newest first: what "newer" and "older" step through. */
export const EVENT_LIST_LIMIT = 1000;
export function issueEventsQuery(id: string): string {
  return `from:errors issue_id:${gqlValue(id)} | sort timestamp desc | fields id, timestamp | limit ${EVENT_LIST_LIMIT}`;
}

const EVENT_FIELDS = [
  'timestamp', 'id', 'issue_id', 'fingerprint_hash', 'type', 'value', 'level', 'release', 'environment', 'platform', 'source',
  'trace_id', 'span_id', 'user', 'tags', 'extra', 'frames', 'breadcrumbs',
];

/** One event of an issue with its stack, breadcrumbs and property bags; the latest when no event is named. */
export function eventQuery(issueId: string, eventId: string | null): string {
  const event = eventId ? ` id:${gqlValue(eventId)}` : '';
  return `from:errors issue_id:${gqlValue(issueId)}${event} | sort timestamp desc | fields ${EVENT_FIELDS.join(', ')} | limit 1`;
}

/** The project's releases, the busiest first: where an issue can be resolved. */
export const RELEASES_QUERY = 'from:errors release:* | count by release | top 50';

/** The explorer's path for a query: the explorer's own URL state. */
export { explorePath } from '../explore/queryText';

/** The spans of a trace in the explorer. */
export const traceSpansQuery = (traceId: string) => `from:spans trace_id:${gqlValue(traceId)} | sort timestamp asc`;

/** The log an error row was made from by the log scanner (`extra.synthetic: logs`). */
export const logQuery = (logId: string) => `from:logs id:${gqlValue(logId)}`;

/** JSON columns come back as values (DuckDB) or as their JSON text (ClickHouse bags): either way, the value. */
function parsed(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

const objectOf = (value: unknown): Record<string, unknown> => {
  const read = parsed(value);
  return read && typeof read === 'object' && !Array.isArray(read) ? (read as Record<string, unknown>) : {};
};

const listOf = <T>(value: unknown): T[] => {
  const read = parsed(value);
  return Array.isArray(read) ? (read as T[]) : [];
};

/** An error row as the issue page reads it: bags as objects, frames and breadcrumbs as lists. */
export function toErrorEvent(row: Record<string, unknown>): ErrorEvent {
  return {
    ...(row as unknown as ErrorEvent),
    user: objectOf(row['user']),
    tags: objectOf(row['tags']),
    extra: objectOf(row['extra']),
    frames: listOf<Frame>(row['frames']),
    breadcrumbs: listOf<Breadcrumb>(row['breadcrumbs']),
  };
}

/** The exceptions chained to the raised one, nearest first. */
export function chainOf(event: ErrorEvent): ChainedException[] {
  return listOf<Record<string, unknown>>(event.extra['chain']).map((link) => ({
    type: String(link['type'] ?? ''),
    value: String(link['value'] ?? ''),
    relation: String(link['relation'] ?? 'cause'),
  }));
}

/** The replay recorded with an event, when the SDK linked one (Sentry's `contexts.replay` or the `replayId` tag). */
export function replayIdOf(event: ErrorEvent): string | null {
  const id = event.extra['contexts.replay.replay_id'] ?? event.tags['replayId'] ?? event.tags['replay_id'];
  return typeof id === 'string' && id !== '' ? id : null;
}

/** The log an error row was made from, when the log scanner made it. */
export function logIdOf(event: ErrorEvent): string | null {
  const id = event.extra['log_id'];
  return event.extra['synthetic'] === 'logs' && typeof id === 'string' && id !== '' ? id : null;
}

/** Whether any frame was mapped by a source map, so the minified positions can be shown instead. */
export const hasMinified = (frames: Frame[]) => frames.some((frame) => frame.minified !== undefined && frame.minified !== null);

/** A frame as shown: the original position, or with `minified` the one before symbolication. */
export function shownFrame(frame: Frame, minified: boolean): Frame {
  if (!minified || !frame.minified) return frame;
  return { ...frame, ...frame.minified, abs_path: null, context_line: null, pre_context: null, post_context: null };
}

export interface FrameGroup {
  inApp: boolean;
  /** Positions in the innermost-first list. */
  frames: { frame: Frame; index: number }[];
}

/**
 * Frames innermost first (the order people read a crash in), with consecutive frames outside the app gathered so
 * they can be folded. A stack without any in-app frame is one group shown open: there is nothing else to read.
 */
export function frameGroups(frames: Frame[]): FrameGroup[] {
  const innermostFirst = frames.map((frame, index) => ({ frame, index })).reverse();
  const anyInApp = frames.some((frame) => frame.in_app === true);
  const groups: FrameGroup[] = [];
  for (const entry of innermostFirst) {
    const inApp = !anyInApp || entry.frame.in_app === true;
    const last = groups[groups.length - 1];
    if (last && last.inApp === inApp && !inApp) last.frames.push(entry);
    else groups.push({ inApp, frames: [entry] });
  }
  return groups;
}

/** "src/cart.js in computeTotal at line 3:14". */
export function frameLocation(frame: Frame): string {
  const file = frame.filename ?? frame.abs_path ?? frame.module ?? '(unknown file)';
  const line = frame.lineno !== null && frame.lineno !== undefined ? `:${frame.lineno}${frame.colno ? `:${frame.colno}` : ''}` : '';
  return `${file}${line}`;
}

export interface Sparkline {
  /** Bucket starts in seconds. */
  xs: number[];
  counts: Map<string, number[]>;
}

/** Per issue, its hourly counts over the 24 buckets ending with the current hour; absent hours count 0. */
export function sparklines(results: Record<string, unknown>[], now: number): Sparkline {
  const hour = 3_600_000;
  const last = Math.floor(now / hour) * hour;
  const xs = Array.from({ length: 24 }, (_, index) => last - (23 - index) * hour);
  const position = new Map(xs.map((time, index) => [time, index]));
  const counts = new Map<string, number[]>();
  for (const row of results) {
    const at = position.get(Date.parse(String(row['time'])));
    const issue = row['issue_id'];
    if (at === undefined || typeof issue !== 'string') continue;
    let values = counts.get(issue);
    if (!values) counts.set(issue, (values = xs.map(() => 0)));
    values[at] = Number(row['value'] ?? 0);
  }
  return { xs: xs.map((time) => time / 1_000), counts };
}

/** The release names of `count by release`, busiest first, without the rows that named none. */
export function releaseNames(results: Record<string, unknown>[]): string[] {
  return results.map((row) => row['release']).filter((release): release is string => typeof release === 'string' && release !== '');
}
