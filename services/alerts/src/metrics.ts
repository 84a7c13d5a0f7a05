import { unprocessable } from '@tlm/core';
import { compileQuery, gqlApiError, metricProblem, type GqlQuery, type Plan } from '@tlm/gql';

export interface Metric {
  query: GqlQuery;
  plan: Plan;
}

/**
 * A GQL query usable as an alert metric or an SLO count: one aggregate value, no time range (the rule's window or
 * the SLO's days supply it), no grouping. Parse errors are 400, anything else that does not fit is 422.
 */
export function compileMetric(text: string, field: string): Metric {
  let compiled: Metric;
  try {
    compiled = compileQuery(text);
  } catch (error) {
    throw gqlApiError(error) ?? error;
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
