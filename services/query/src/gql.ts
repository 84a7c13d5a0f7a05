import { MAX_BATCH_QUERIES } from '@tlm/api-schemas';
import type { AnalyticsStore } from '@tlm/analytics-store';
import { validationError, type Logger } from '@tlm/core';
import { gqlApiError, runQuery, type Guard, type QueryAnswer } from '@tlm/gql';


/** Runs one query; GQL errors become the spec's 400 and 422 answers, anything else is not ours. */
export async function answerOrThrow(analytics: AnalyticsStore, text: string, guard: Guard): Promise<QueryAnswer> {
  try {
    return await runQuery(analytics, text, guard);
  } catch (error) {
    throw gqlApiError(error) ?? error;
  }
}

export type BatchEntry =
  | ({ status: 'ok' } & QueryAnswer)
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
        return { status: 'ok', ...(await runQuery(analytics, text, guard)) };
      } catch (error) {
        const apiError = gqlApiError(error);
        if (apiError) return { status: 'error', error: apiError.message, ...(apiError.details ? { details: apiError.details } : {}) };
        logger.error({ err: error, index }, 'a GQL query of a batch failed');
        return { status: 'error', error: 'internal error' };
      }
    }),
  );
}
