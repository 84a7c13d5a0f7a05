import { ApiError, unprocessable } from '@tlm/core';
import { LIMITS, compileQuery, gqlApiError, metricProblem, type GqlQuery, type Plan } from '@tlm/gql';

export interface Metric {
  query: GqlQuery;
  plan: Plan;
}

/**
 * A GQL query usable as an alert metric or an SLO count: one aggregate value, no time range (the rule's window or
 * the SLO's days supply it), no grouping. Parse errors are 400, anything else that does not fit is 422; each names
 * the field (an SLO has two queries: `good: Expected a field name…`), the offset staying in the details.
 */
export function compileMetric(text: string, field: string): Metric {
  let compiled: Metric;
  try {
    compiled = compileQuery(text);
  } catch (error) {
    const refusal = gqlApiError(error);
    if (!refusal) throw error;
    throw new ApiError(refusal.status, refusal.code, `${field}: ${refusal.message}`, refusal.details);
  }
  const problem = metricProblem(compiled.plan);
  if (problem) throw unprocessable(`${field} ${problem}`);
  return compiled;
}

/** What an SLO's `good` and `total` may count with (DECISIONS.md: they are GQL count queries). */
const COUNTING = new Set(['count', 'count_distinct']);

/** An SLO's `good` or `total`: a metric (compileMetric) that counts, with `count` or `count_distinct`. */
export function compileCount(text: string, field: string): Metric {
  const metric = compileMetric(text, field);
  if (!COUNTING.has(metric.plan.aggregate!.func)) {
    throw unprocessable(`${field} must be a count query such as "from:events event_name:checkout | count"`);
  }
  return metric;
}

/**
 * The plan of a metric over the last `windowMs`, up to the evaluation's now: a row dated in the future (a client
 * clock ahead; ingest takes times up to a day ahead) is not in "the last minute", or it would fire a rule at every
 * pass until its time came.
 */
export function overWindow(metric: Metric, windowMs: number): Plan {
  return { ...metric.plan, since: { ago: windowMs }, until: { ago: 0 } };
}

/**
 * The single value an aggregate answered, or null when it has none: an average or percentile over no rows has no
 * value (a count over no rows is 0, which the store answers itself).
 */
export function singleValue(results: Record<string, unknown>[]): number | null {
  const value = results[0]?.['value'];
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/**
 * The plan of a metric over the last `rangeMs` in buckets of `bucketMinutes`, oldest first: the alert form's preview
 * and an SLO's history, each bucket the value the metric has over that bucket.
 */
export function seriesOver(metric: Metric, rangeMs: number, bucketMinutes: number): Plan {
  const bucket = { amount: bucketMinutes, unit: 'm' as const, text: `${bucketMinutes}m`, pos: { offset: 0, line: 1, column: 1 } };
  return {
    ...overWindow(metric, rangeMs),
    aggregate: { ...metric.plan.aggregate!, groups: [{ key: 'time', field: null, interval: bucket }] },
    sort: [{ target: { group: 0 }, direction: 'asc' }],
    limit: LIMITS.maxBuckets,
  };
}

/** A series answer as points, by the bucket's start time (ISO). */
export function seriesPoints(results: Record<string, unknown>[]): Map<string, number | null> {
  return new Map(
    results.map((row) => {
      const value = row['value'];
      return [new Date(row['time'] as string | number).toISOString(), typeof value === 'number' && Number.isFinite(value) ? value : null];
    }),
  );
}

/** The starts of the buckets of `bucketMinutes` covering the last `rangeMs` before `now`, oldest first, aligned to the epoch. */
export function bucketStarts(now: Date, rangeMs: number, bucketMinutes: number): string[] {
  const bucketMs = bucketMinutes * 60_000;
  const first = Math.floor((now.getTime() - rangeMs) / bucketMs) * bucketMs;
  const starts: string[] = [];
  for (let start = first; start <= now.getTime(); start += bucketMs) starts.push(new Date(start).toISOString());
  return starts;
}
