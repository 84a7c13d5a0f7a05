import { unprocessable, validationError, type ApiError } from '@tlm/core';
import { GqlQueryError, GqlSyntaxError } from './errors';

/** GQL errors in the spec's codes: a parse error is 400 with its position, a query that cannot run is 422. */
export function gqlApiError(error: unknown): ApiError | undefined {
  if (error instanceof GqlSyntaxError) {
    const { offset, line, column } = error.position;
    return validationError(error.message, { offset, line, column, expected: error.expected });
  }
  if (error instanceof GqlQueryError) return unprocessable(error.message, error.position ? { ...error.position } : undefined);
  return undefined;
}
