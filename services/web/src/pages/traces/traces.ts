/**
 * Traces as GQL reads them (docs/gql.md "Spans and vitals"): the queries the trace pages run, and a trace's spans
 * laid out as a waterfall. Pure functions, so the pages and their tests share them.
 */

import { REPLAY_ID_FIELDS } from '../replays/replays';

/** A row of `from:spans`, as a search without `fields` returns it. */
export interface SpanRow {
  trace_id: string;
  span_id: string;
  parent_span_id: string | null;
  name: string;
  op: string | null;
  kind: string | null;
  status: string;
  duration_ms: number;
  timestamp: string;
  end_timestamp?: string | null;
  service: string | null;
  release: string | null;
  environment: string | null;
  attributes?: Record<string, unknown> | null;
  events?: { name: string; timestamp: string; attributes?: Record<string, unknown> | null }[] | null;
}

/** The ranges the pages offer, kept in the URL as `?range=`. */
export const RANGES = [
  { value: '15m', label: 'Last 15 minutes', bucket: '30s' },
  { value: '1h', label: 'Last hour', bucket: '1m' },
  { value: '24h', label: 'Last 24 hours', bucket: '30m' },
  { value: '7d', label: 'Last 7 days', bucket: '6h' },
] as const;
export type Range = (typeof RANGES)[number]['value'];

export function readRange(value: string | null, fallback: Range): Range {
  return RANGES.some((range) => range.value === value) ? (value as Range) : fallback;
}

export const bucketOf = (range: Range) => RANGES.find((candidate) => candidate.value === range)!.bucket;

/** A GQL string literal: single-quoted, with `\` and `'` escaped. */
export function quote(value: string): string {
  return `'${value.replace(/[\\']/g, '\\$&')}'`;
}

/** What the traces list filters by; every part is optional. */
export interface TraceFilters {
  service?: string;
  op?: string;
  /** Text the root span's name contains. */
  name?: string;
  status?: 'ok' | 'error';
  minMs?: number;
  maxMs?: number;
  range: Range;
}

/**
 * The conditions of the filters, as GQL: on root spans only (`-parent_span_id:*`) unless `anySpan`, then each filter
 * that is set.
 */
export function rootConditions(filters: TraceFilters, anySpan = false): string {
  const parts = anySpan ? ['from:spans'] : ['from:spans', '-parent_span_id:*'];
  if (filters.service) parts.push(`service:${quote(filters.service)}`);
  if (filters.op) parts.push(`op:${quote(filters.op)}`);
  if (filters.name?.trim()) parts.push(freeText(filters.name.trim()));
  if (filters.status) parts.push(`status:${filters.status}`);
  if (filters.minMs !== undefined) parts.push(`duration_ms >= ${filters.minMs}`);
  if (filters.maxMs !== undefined) parts.push(`duration_ms <= ${filters.maxMs}`);
  parts.push(`last:${filters.range}`);
  return parts.join(' ');
}

/** A free-text condition (the span's name contains it, case-insensitively), double-quoted. */
function freeText(text: string): string {
  return `"${text.replace(/[\\"]/g, '\\$&')}"`;
}

export const ROOT_FIELDS = 'timestamp, trace_id, span_id, name, service, op, status, duration_ms';
export const LIST_LIMIT = 100;

/** The newest root spans matching the filters: one row per trace. */
export function rootsQuery(filters: TraceFilters): string {
  return `${rootConditions(filters)} | sort timestamp desc | limit ${LIST_LIMIT} | fields ${ROOT_FIELDS}`;
}

/**
 * Traces whose ids go into one query of their root spans: GQL takes queries of up to 16,384 characters, and an id in
 * the list takes 36. Twice the list's length, so the newest roots of the list come from them.
 */
export const MATCHING_TRACES = 2 * LIST_LIMIT;

/** The newest spans that match the filters, any span of a trace, for the traces they belong to (matchingTraceIds). */
export function matchingTracesQuery(filters: TraceFilters): string {
  return `${rootConditions(filters, true)} | sort timestamp desc | limit 1000 | fields trace_id`;
}

/** The traces of the newest matching spans, newest first, each once, at most MATCHING_TRACES of them. */
export function matchingTraceIds(rows: readonly Record<string, unknown>[]): string[] {
  const ids = new Set<string>();
  for (const row of rows) {
    if (ids.size === MATCHING_TRACES) break;
    ids.add(String(row['trace_id']));
  }
  return [...ids];
}

/** The newest root spans of the given traces. */
export function rootsOfTracesQuery(traceIds: string[], range: Range): string {
  return `from:spans -parent_span_id:* trace_id in [${traceIds.map(quote).join(', ')}] last:${range} | sort timestamp desc | limit ${LIST_LIMIT} | fields ${ROOT_FIELDS}`;
}

/** Spans per trace (or error spans per trace) of the listed traces, over the same range. */
export function spanCountQuery(traceIds: string[], range: Range, errorsOnly = false): string {
  return `from:spans trace_id in [${traceIds.map(quote).join(', ')}]${errorsOnly ? ' status:error' : ''} last:${range} | count by trace_id | limit 1000`;
}

export const traceSpansQuery = (traceId: string) => `from:spans trace_id:${quote(traceId)} | sort timestamp asc | limit 10000`;
export const traceErrorsQuery = (traceId: string) =>
  `from:errors trace_id:${quote(traceId)} | sort timestamp asc | limit 100 | fields timestamp, id, issue_id, type, value, level, span_id, ${REPLAY_ID_FIELDS.join(', ')}`;
/** Span attributes that name the session's replay (Sentry's span streaming and its dynamic sampling context). */
const SPAN_REPLAY_ATTRIBUTES = ['sentry.replay_id', 'replay_id'];

/** The replay recorded during a trace: named by one of its spans or one of its errors, else null. */
export function traceReplayId(spans: Pick<SpanRow, 'attributes'>[], errors: Record<string, unknown>[]): string | null {
  for (const span of spans) {
    for (const name of SPAN_REPLAY_ATTRIBUTES) {
      const value = span.attributes?.[name];
      if (typeof value === 'string' && value) return value;
    }
  }
  for (const error of errors) {
    for (const field of REPLAY_ID_FIELDS) {
      const value = error[field];
      if (typeof value === 'string' && value) return value;
    }
  }
  return null;
}
export const traceLogsQuery = (traceId: string) =>
  `from:logs trace_id:${quote(traceId)} | sort timestamp asc | limit 1000 | fields timestamp, id, severity, message, span_id`;

/** How the services overview groups spans: by their name or by their op (`http.server`, `db`…). */
export type OperationField = 'name' | 'op';

/** The services overview's five aggregates, each by service and operation. */
export function serviceQueries(range: Range, by: OperationField, service?: string) {
  const where = `from:spans${service ? ` service:${quote(service)}` : ''} last:${range}`;
  return {
    requests: `${where} | count by service, ${by}`,
    errors: `${where} status:error | count by service, ${by}`,
    p50: `${where} | p50(duration_ms) by service, ${by}`,
    p95: `${where} | p95(duration_ms) by service, ${by}`,
    p99: `${where} | p99(duration_ms) by service, ${by}`,
  };
}

/** The chart of the overview: requests or p95 per bucket, one line per service (or per operation of one service). */
export function serviceChartQuery(range: Range, metric: 'requests' | 'p95', by: OperationField, service?: string): string {
  const where = `from:spans${service ? ` service:${quote(service)}` : ''} last:${range}`;
  const value = metric === 'requests' ? 'count' : 'p95(duration_ms)';
  return `${where} | ${value} by time(${bucketOf(range)}), ${service ? by : 'service'}`;
}

export interface OperationStats {
  service: string | null;
  operation: string | null;
  requests: number;
  errors: number;
  p50: number | null;
  p95: number | null;
  p99: number | null;
}

type Row = Record<string, unknown>;
const keyOf = (service: unknown, operation: unknown) => JSON.stringify([service ?? null, operation ?? null]);
const numberOrNull = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : null);

/** The five answers joined per service and operation, busiest first within each service; services by name. */
export function joinOperationStats(by: OperationField, answers: Record<'requests' | 'errors' | 'p50' | 'p95' | 'p99', Row[]>): OperationStats[] {
  const stats = new Map<string, OperationStats>();
  for (const row of answers.requests) {
    stats.set(keyOf(row['service'], row[by]), {
      service: (row['service'] as string | null) ?? null,
      operation: (row[by] as string | null) ?? null,
      requests: numberOrNull(row['value']) ?? 0,
      errors: 0,
      p50: null,
      p95: null,
      p99: null,
    });
  }
  for (const name of ['errors', 'p50', 'p95', 'p99'] as const) {
    for (const row of answers[name]) {
      const entry = stats.get(keyOf(row['service'], row[by]));
      if (!entry) continue;
      if (name === 'errors') entry.errors = numberOrNull(row['value']) ?? 0;
      else entry[name] = numberOrNull(row['value']);
    }
  }
  return [...stats.values()].sort(
    (a, b) => (a.service ?? '\uffff').localeCompare(b.service ?? '\uffff') || b.requests - a.requests || (a.operation ?? '').localeCompare(b.operation ?? ''),
  );
}

/** One span placed on the waterfall. */
export interface WaterfallRow {
  span: SpanRow;
  /** 0 for a root (or a span whose parent is not in the trace), 1 for its children… */
  depth: number;
  /** Where the bar starts and how wide it is, in percent of the trace's duration. */
  offsetPct: number;
  widthPct: number;
  /** Milliseconds from the trace's start to the span's start. */
  startMs: number;
  childCount: number;
  /** The span names a parent that is not among the trace's spans (not sent, or not arrived yet). */
  parentMissing: boolean;
  /** Span ids of the ancestors, root first. */
  ancestors: string[];
}

export interface Waterfall {
  rows: WaterfallRow[];
  /** The trace's start (epoch milliseconds) and its duration from the first start to the last end. */
  startMs: number;
  durationMs: number;
  /**
   * The duration of the trace's root span (its one span without a parent), which the traces list shows; null unless
   * there is exactly one. Spans that end after their root (work done after the answer) make the trace longer than it.
   */
  rootDurationMs: number | null;
  serviceCount: number;
  errorCount: number;
}

const startOf = (span: SpanRow) => Date.parse(span.timestamp);
function endOf(span: SpanRow): number {
  const end = span.end_timestamp ? Date.parse(span.end_timestamp) : Number.NaN;
  const computed = startOf(span) + (Number(span.duration_ms) || 0);
  return Number.isNaN(end) ? computed : Math.max(end, computed);
}

/**
 * The spans of a trace as a tree in depth-first order: children under their parent, each level by start time.
 * Spans whose parent is missing start trees of their own, so every span is shown exactly once.
 */
export function buildWaterfall(spans: readonly SpanRow[]): Waterfall {
  const valid = spans.filter((span) => !Number.isNaN(startOf(span)));
  if (valid.length === 0) return { rows: [], startMs: 0, durationMs: 0, rootDurationMs: null, serviceCount: 0, errorCount: 0 };
  const startMs = Math.min(...valid.map(startOf));
  const endMs = Math.max(...valid.map(endOf));
  const durationMs = Math.max(endMs - startMs, 0);
  const scale = durationMs > 0 ? durationMs : 1;

  const ids = new Set(valid.map((span) => span.span_id));
  const children = new Map<string, SpanRow[]>();
  const roots: SpanRow[] = [];
  for (const span of valid) {
    const parent = span.parent_span_id;
    if (parent && ids.has(parent) && parent !== span.span_id) {
      const list = children.get(parent) ?? [];
      list.push(span);
      children.set(parent, list);
    } else roots.push(span);
  }
  const byStart = (a: SpanRow, b: SpanRow) => startOf(a) - startOf(b) || a.name.localeCompare(b.name);
  roots.sort(byStart);
  for (const list of children.values()) list.sort(byStart);

  const rows: WaterfallRow[] = [];
  const placed = new Set<string>();
  const visit = (span: SpanRow, depth: number, ancestors: string[]) => {
    if (placed.has(span.span_id)) return;
    placed.add(span.span_id);
    const offset = startOf(span) - startMs;
    const offsetPct = Math.min(100, (offset / scale) * 100);
    const widthPct = Math.min(100 - offsetPct, Math.max(((Number(span.duration_ms) || 0) / scale) * 100, 0));
    const kids = children.get(span.span_id) ?? [];
    rows.push({
      span,
      depth,
      offsetPct,
      widthPct,
      startMs: offset,
      childCount: kids.length,
      parentMissing: Boolean(span.parent_span_id) && !ids.has(span.parent_span_id!),
      ancestors,
    });
    for (const child of kids) visit(child, depth + 1, [...ancestors, span.span_id]);
  };
  for (const root of roots) visit(root, 0, []);
  // Spans caught in a cycle of parents (malformed input) have no root above them: show them at the top level.
  for (const span of [...valid].sort(byStart)) visit(span, 0, []);

  const parentless = roots.filter((span) => !span.parent_span_id);
  return {
    rows,
    startMs,
    durationMs,
    rootDurationMs: parentless.length === 1 ? Number(parentless[0]!.duration_ms) || 0 : null,
    serviceCount: new Set(valid.map((span) => span.service ?? '')).size,
    errorCount: valid.filter((span) => span.status === 'error').length,
  };
}

/** The rows left when the spans in `collapsed` hide their descendants. */
export function visibleRows(rows: readonly WaterfallRow[], collapsed: ReadonlySet<string>): WaterfallRow[] {
  if (collapsed.size === 0) return [...rows];
  return rows.filter((row) => !row.ancestors.some((ancestor) => collapsed.has(ancestor)));
}

/** An error rate as a percentage: `0%`, `2.5%`, `100%`. */
export function formatRate(errors: number, requests: number): string {
  if (requests <= 0) return '–';
  const rate = (errors / requests) * 100;
  return `${rate === 0 || rate === 100 || rate >= 10 ? Math.round(rate) : Number(rate.toFixed(1))}%`;
}
