import { compileQuery, gqlApiError, metricProblem } from '@tlm/gql';
import type { NlMode } from './translator';

/**
 * Why a proposed query cannot be used, or undefined when it parses and plans (DECISIONS.md "AI"); in alert mode it must
 * also be a metric an alert rule takes: one aggregate, no `by`, no time range.
 */
export function queryProblem(gql: string, mode: NlMode): string | undefined {
  try {
    const { plan } = compileQuery(gql);
    const metric = mode === 'alert' ? metricProblem(plan) : undefined;
    return metric ? `an alert metric ${metric}` : undefined;
  } catch (error) {
    const problem = gqlApiError(error);
    if (!problem) throw error;
    return problem.message;
  }
}
