import { Type } from '@sinclair/typebox';
import type { AnalyticsStore } from '@tlm/analytics-store';
import { validationError, unprocessable, type ApiError, type Logger } from '@tlm/core';
import { GqlQueryError, GqlSyntaxError, compileQuery, decodeResults, emit, type GqlQuery, type Guard } from '@tlm/gql';

/** SPEC.md Limits: "GQL batch: 10 queries per request". */
export const MAX_BATCH_QUERIES = 10;
/** Ten queries of the longest allowed length fit with room to spare. */
export const GQL_BODY_LIMIT_BYTES = 256 * 1024;

export const SingleQueryBody = Type.Object({ q: Type.String({ description: 'One GQL query.' }) });
export const BatchQueryBody = Type.Object({
  queries: Type.Array(Type.Unknown(), { description: `At most ${MAX_BATCH_QUERIES} GQL queries, answered in order.` }),
});

export interface GqlAnswer {
  query: GqlQuery;
  data: { mode: 'search' | 'aggregate'; table: string; results: Record<string, unknown>[]; total_groups: number };
}

/** Parses, plans, emits for the store's dialect with the guard, runs and shapes one query (SPEC.md Dashboard API). */
export async function answerQuery(analytics: AnalyticsStore, text: string, guard: Guard): Promise<GqlAnswer> {
  const { query, plan } = compileQuery(text);
  const compiled = emit(plan, analytics.dialect, guard);
  const { results, total_groups } = decodeResults(compiled, await analytics.query(compiled.sql, compiled.params));
  return { query, data: { mode: compiled.mode, table: compiled.table, results, total_groups } };
}

/** GQL errors in the spec's codes: a parse error is 400, a query that cannot run is 422; anything else is not ours. */
export function gqlApiError(error: unknown): ApiError | undefined {
  if (error instanceof GqlSyntaxError) {
    const { offset, line, column } = error.position;
    return validationError(error.message, { offset, line, column, expected: error.expected });
  }
  if (error instanceof GqlQueryError) return unprocessable(error.message, error.position ? { ...error.position } : undefined);
  return undefined;
}

export async function answerOrThrow(analytics: AnalyticsStore, text: string, guard: Guard): Promise<GqlAnswer> {
  try {
    return await answerQuery(analytics, text, guard);
  } catch (error) {
    throw gqlApiError(error) ?? error;
  }
}

export type BatchEntry =
  | ({ status: 'ok' } & GqlAnswer)
  | { status: 'error'; error: string; details?: Record<string, unknown> };

/** Answers each query on its own: one failing query never fails the others (SPEC.md Errors). */
export async function answerBatch(analytics: AnalyticsStore, queries: unknown[], guard: Guard, logger: Logger): Promise<BatchEntry[]> {
  if (queries.length > MAX_BATCH_QUERIES) {
    throw validationError(`a batch holds at most ${MAX_BATCH_QUERIES} queries; this one has ${queries.length}`);
  }
  return Promise.all(
    queries.map(async (text, index): Promise<BatchEntry> => {
      if (typeof text !== 'string') return { status: 'error', error: `query ${index} is not a string` };
      try {
        return { status: 'ok', ...(await answerQuery(analytics, text, guard)) };
      } catch (error) {
        const apiError = gqlApiError(error);
        if (apiError) return { status: 'error', error: apiError.message, ...(apiError.details ? { details: apiError.details } : {}) };
        logger.error({ err: error, index }, 'a GQL query of a batch failed');
        return { status: 'error', error: 'internal error' };
      }
    }),
  );
}
