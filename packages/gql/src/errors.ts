import type { Position } from './ast';

/** The query text is not GQL (HTTP 400 VALIDATION_ERROR): says where and what was expected. */
export class GqlSyntaxError extends Error {
  override readonly name = 'GqlSyntaxError';

  constructor(
    message: string,
    readonly position: Position,
    readonly expected: string[] = [],
  ) {
    super(message);
  }
}

/** Well-formed GQL that cannot run (HTTP 422 VALIDATION_ERROR): unknown source or field, a limit exceeded. */
export class GqlQueryError extends Error {
  override readonly name = 'GqlQueryError';

  constructor(
    message: string,
    readonly position?: Position,
  ) {
    super(message);
  }
}

/** `message at column N` (with the line when the query spans several). */
export function at(position: Position, multiline: boolean): string {
  return multiline ? `at line ${position.line}, column ${position.column}` : `at column ${position.column}`;
}
