/**
 * Reading and editing GQL text as people wrote it (docs/gql.md): the `from:` source, the time range
 * (`last:` or `since:`/`until:`) and the query kept in the page's URL. Pure functions over strings, so the
 * pickers edit exactly the part of the text they show and leave the rest as it was typed.
 */

/** Every source GQL reads (docs/gql.md "Sources and fields"), with what its rows are. */
export const SOURCES = [
  { name: 'logs', rows: 'log entries' },
  { name: 'events', rows: 'analytics events' },
  { name: 'errors', rows: 'error occurrences' },
  { name: 'issues', rows: 'errors grouped by fingerprint' },
  { name: 'spans', rows: 'trace spans' },
  { name: 'vitals', rows: 'web vitals' },
  { name: 'sessions', rows: 'release-health sessions' },
  { name: 'alerts', rows: 'alert rules' },
  { name: 'alert_events', rows: 'firings of alert rules' },
] as const;

/** Sources without a time field: a time range there is a 422. */
export const TIMELESS_SOURCES = new Set(['alerts']);

export const DEFAULT_QUERY = 'from:logs last:1h';

/** One token of GQL text, lexed as the server's lexer (packages/gql/src/lexer.ts) lexes it. */
export interface GqlToken {
  type: 'string' | 'unterminated' | 'punct' | 'datetime' | 'duration' | 'number' | 'minus' | 'word' | 'error';
  text: string;
  from: number;
  to: number;
}

const BOUNDARY = String.raw`(?![^\s"'()\[\],|:=!<>])`;
const RULES: [GqlToken['type'] | 'ws', RegExp][] = [
  ['ws', /\s+/y],
  ['string', /"(?:[^"\\]|\\[\s\S])*"|'(?:[^'\\]|\\[\s\S])*'/y],
  ['unterminated', /["'][\s\S]*/y],
  ['punct', /!=|>=|<=|[|()[\],:=><]/y],
  ['datetime', new RegExp(String.raw`\d{4}-\d{2}-\d{2}(?:[Tt]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:[Zz]|[+-]\d{2}:?\d{2})?)?` + BOUNDARY, 'y')],
  ['duration', new RegExp(String.raw`\d+[smhdwSMHDW]` + BOUNDARY, 'y')],
  ['number', new RegExp(String.raw`-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?` + BOUNDARY, 'y')],
  ['minus', /-/y],
  ['word', /[^\s"'()[\],|:=!<>-][^\s"'()[\],|:=!<>]*/y],
  ['error', /[\s\S]/y],
];

/** Splits GQL text into tokens, whitespace dropped; never throws. */
export function lexGql(text: string): GqlToken[] {
  const tokens: GqlToken[] = [];
  let at = 0;
  while (at < text.length) {
    for (const [type, pattern] of RULES) {
      pattern.lastIndex = at;
      const match = pattern.exec(text);
      if (!match) continue;
      if (type !== 'ws') tokens.push({ type, text: match[0], from: at, to: at + match[0].length });
      at += match[0].length;
      break;
    }
  }
  return tokens;
}

const isWord = (token: GqlToken | undefined, word: string) => token?.type === 'word' && token.text.toLowerCase() === word;
const unquote = (token: GqlToken) => (token.type === 'string' ? token.text.slice(1, -1).replace(/\\([\s\S])/g, '$1') : token.text);
const VALUE_TYPES = new Set<GqlToken['type']>(['string', 'datetime', 'duration', 'number', 'word']);

export type TimeRange =
  | { kind: 'none' }
  | { kind: 'last'; duration: string }
  | { kind: 'between'; since?: string; until?: string };

interface RangeClause {
  keyword: 'last' | 'since' | 'until';
  value: string;
  from: number;
  to: number;
}

/** The `last 1h`, `last:1h`, `since:…` and `until:…` clauses of the text, in order. */
function rangeClauses(text: string): RangeClause[] {
  const tokens = lexGql(text);
  const clauses: RangeClause[] = [];
  for (let index = 0; index < tokens.length; index += 1) {
    const token = tokens[index]!;
    const keyword = (['last', 'since', 'until'] as const).find((candidate) => isWord(token, candidate));
    if (!keyword) continue;
    // `since:` and `until:` take a colon; `last` takes a colon or a space.
    const hasColon = tokens[index + 1]?.type === 'punct' && tokens[index + 1]!.text === ':';
    if (!hasColon && keyword !== 'last') continue;
    const value = tokens[index + (hasColon ? 2 : 1)];
    if (!value || !VALUE_TYPES.has(value.type)) continue;
    clauses.push({ keyword, value: unquote(value), from: token.from, to: value.to });
    index += hasColon ? 2 : 1;
  }
  return clauses;
}

/** The time range the text asks for, as the time-range picker shows it. */
export function readTimeRange(text: string): TimeRange {
  const clauses = rangeClauses(text);
  const last = clauses.find((clause) => clause.keyword === 'last');
  if (last) return { kind: 'last', duration: last.value };
  const since = clauses.find((clause) => clause.keyword === 'since')?.value;
  const until = clauses.find((clause) => clause.keyword === 'until')?.value;
  if (since === undefined && until === undefined) return { kind: 'none' };
  return { kind: 'between', ...(since === undefined ? {} : { since }), ...(until === undefined ? {} : { until }) };
}

/** A value as GQL reads it back: quoted unless it lexes as one datetime, duration, number or word. */
function valueText(value: string): string {
  const tokens = lexGql(value);
  const plain = tokens.length === 1 && tokens[0]!.text === value && tokens[0]!.type !== 'minus' && tokens[0]!.type !== 'error';
  return plain && VALUE_TYPES.has(tokens[0]!.type) && tokens[0]!.type !== 'string' ? value : `'${value.replace(/[\\']/g, '\\$&')}'`;
}

function rangeText(range: TimeRange): string {
  if (range.kind === 'none') return '';
  if (range.kind === 'last') return `last:${valueText(range.duration)}`;
  return [range.since ? `since:${valueText(range.since)}` : '', range.until ? `until:${valueText(range.until)}` : ''].filter(Boolean).join(' ');
}

/** The text without `|` segments left empty by an edit, and without the blanks an edit left behind. */
function dropEmptySegments(text: string): string {
  const tokens = lexGql(text);
  const pipes = tokens.filter((token, index) => {
    if (token.type !== 'punct' || token.text !== '|') return false;
    const next = tokens[index + 1];
    return index === 0 || !next || (next.type === 'punct' && next.text === '|');
  });
  let result = text;
  for (const pipe of pipes.reverse()) {
    let to = pipe.to;
    while (result[to] === ' ' || result[to] === '\t') to += 1;
    result = result.slice(0, pipe.from) + result.slice(to);
  }
  return result.replace(/[ \t]+$/gm, '').replace(/^[ \t]+/, '').trim();
}

/**
 * The text with its time range replaced: the first range clause is rewritten where it stands (so `| last 1h`
 * stays in its segment), any other is removed; a text without one gets the range among its conditions, before its
 * first `|` (`from:logs last:1h | count`), or at its end when it has no pipeline.
 */
export function setTimeRange(text: string, range: TimeRange): string {
  const clauses = rangeClauses(text);
  const replacement = rangeText(range);
  if (clauses.length === 0) {
    if (!replacement) return text;
    const pipe = lexGql(text).find((token) => token.type === 'punct' && token.text === '|');
    if (!pipe) return `${text.trimEnd()}${text.trim() ? ' ' : ''}${replacement}`;
    const conditions = text.slice(0, pipe.from).trimEnd();
    return `${conditions}${conditions ? ' ' : ''}${replacement} ${text.slice(pipe.from)}`;
  }
  let result = text;
  for (let index = clauses.length - 1; index >= 0; index -= 1) {
    const clause = clauses[index]!;
    const put = index === 0 ? replacement : '';
    // A removed clause takes one neighbouring space with it, so `a last:1h b` becomes `a b`.
    const to = !put && result[clause.to] === ' ' ? clause.to + 1 : clause.to;
    const from = !put && to === clause.to && result[clause.from - 1] === ' ' ? clause.from - 1 : clause.from;
    result = result.slice(0, from) + put + result.slice(to);
  }
  return dropEmptySegments(result);
}

/** The source named by `from:` (or `from x`), or undefined when the text names none (GQL then reads logs). */
export function readSource(text: string): string | undefined {
  return sourceToken(text)?.text.toLowerCase();
}

function sourceToken(text: string): GqlToken | undefined {
  const tokens = lexGql(text);
  for (let index = 0; index < tokens.length; index += 1) {
    if (!isWord(tokens[index], 'from')) continue;
    const next = tokens[index + 1]?.type === 'punct' && tokens[index + 1]!.text === ':' ? tokens[index + 2] : tokens[index + 1];
    if (next?.type === 'word') return next;
  }
  return undefined;
}

/** The text reading another source: its `from:` rewritten, or `from:<source>` put first. Alerts have no time range. */
export function setSource(text: string, source: string): string {
  const token = sourceToken(text);
  const next = token ? text.slice(0, token.from) + source + text.slice(token.to) : `from:${source}${text.trim() ? ` ${text.trim()}` : ''}`;
  return TIMELESS_SOURCES.has(source) ? setTimeRange(next, { kind: 'none' }) : next;
}

/** A field name as GQL reads it back: `properties.route`, or `"properties.order id"` when it is not one word. */
export function fieldText(name: string): string {
  const tokens = lexGql(name);
  const plain = tokens.length === 1 && tokens[0]!.type === 'word' && tokens[0]!.text === name;
  return plain ? name : JSON.stringify(name);
}

/** What clicking a property in the schema sidebar inserts: the bag key and a colon, ready for a value. */
export function propertyCondition(bag: string, key: string): string {
  return `${fieldText(`${bag}.${key}`)}:`;
}

/** A condition on one value: `event_name:signup`, `trace_id:'4bf9…'` (quoted so a hex id never reads as a number). */
export function equalsCondition(field: string, value: string, quote = false): string {
  return `${fieldText(field)}:${quote ? `'${value.replace(/[\\']/g, '\\$&')}'` : valueText(value)}`;
}

/**
 * Text to insert at a cursor between `before` and `after`, with the spaces that keep it one term, and where the cursor
 * goes in it: after the term, or right after the colon of a field that waits for its value (`properties.route:`), the
 * space that parts it from the text after kept for when the value is typed.
 */
export function spacedInsertion(before: string, insertion: string, after: string): { text: string; cursor: number } {
  const leading = before && !/\s$/.test(before) ? ' ' : '';
  const trailing = after && !/^\s/.test(after) ? ' ' : '';
  const cursor = leading.length + insertion.length + (insertion.endsWith(':') ? 0 : trailing.length);
  return { text: leading + insertion + trailing, cursor };
}

/**
 * Where a term goes when nobody placed the cursor: after the query's filters, which is the end of its first segment
 * (before the first `|`), or the end of the text.
 */
export function filtersEnd(text: string): number {
  const pipe = lexGql(text).find((token) => token.type === 'punct' && token.text === '|');
  return pipe ? text.slice(0, pipe.from).trimEnd().length : text.length;
}

/** The rows a search answers when it names no limit, and the most it answers (GQL's own, docs/gql.md). */
export const DEFAULT_SEARCH_LIMIT = 100;
export const MAX_SEARCH_ROWS = 10_000;

/**
 * The limit a search's answer stopped at, or undefined when it holds every row that matched: a search answers at most
 * its `limit` rows, so an answer that long may have left rows out.
 */
export function searchLimitReached(mode: 'search' | 'aggregate', rows: number, limit: number | null | undefined): number | undefined {
  const effective = limit ?? DEFAULT_SEARCH_LIMIT;
  return mode === 'search' && rows >= effective ? effective : undefined;
}

/**
 * The query a term of the schema starts when the query reads another source: that source, the query's time range and
 * the term last, so a field that waits for its value has the cursor at the end; undefined when the query reads the
 * term's source (the term goes into it).
 */
export function schemaTermQuery(query: string, term: string, source: string): string | undefined {
  if ((readSource(query) ?? 'logs') === source) return undefined;
  return `${setTimeRange(`from:${source}`, readTimeRange(query))} ${term}`;
}

/** The explorer's URL search string for a query: the query is the page's state, so views can be shared. */
export function searchForQuery(query: string): string {
  return `?${new URLSearchParams({ q: query }).toString()}`;
}

/** The query a URL asks for; a URL without one opens the last hour of logs. */
export function queryFromSearch(search: string | URLSearchParams): string {
  const params = typeof search === 'string' ? new URLSearchParams(search) : search;
  return params.get('q') ?? DEFAULT_QUERY;
}

/** The explorer's path for a query in a project. */
export function explorePath(org: string, project: string, query: string): string {
  return `/orgs/${encodeURIComponent(org)}/projects/${encodeURIComponent(project)}/explore${searchForQuery(query)}`;
}

/** The place to underline for an error at `offset`: the token starting there, or the last character. */
export function errorSpan(text: string, offset: number): { from: number; to: number } {
  if (text.length === 0) return { from: 0, to: 0 };
  const at = Math.max(0, Math.min(offset, text.length));
  const token = lexGql(text).find((candidate) => candidate.from <= at && at < candidate.to);
  if (token) return { from: token.from, to: token.to };
  return at >= text.length ? { from: text.length - 1, to: text.length } : { from: at, to: at + 1 };
}

/** A `datetime-local` input value (local time, no zone) as an ISO 8601 UTC time GQL reads: `2024-05-01T10:00:00Z`. */
export function localInputToIso(local: string): string | undefined {
  const time = new Date(local);
  return Number.isNaN(time.getTime()) ? undefined : time.toISOString().replace(/\.000Z$/, 'Z');
}

/** An ISO time of the query as a `datetime-local` input value; durations and unreadable text give ''. */
export function isoToLocalInput(iso: string | undefined): string {
  if (!iso || !/^\d{4}-\d{2}-\d{2}/.test(iso)) return '';
  const zoned = /[Zz]|[+-]\d{2}:?\d{2}$/.test(iso) ? iso : `${iso.replace(' ', 'T')}${iso.length <= 10 ? 'T00:00:00' : ''}Z`;
  const time = new Date(zoned);
  if (Number.isNaN(time.getTime())) return '';
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${time.getFullYear()}-${pad(time.getMonth() + 1)}-${pad(time.getDate())}T${pad(time.getHours())}:${pad(time.getMinutes())}`;
}
