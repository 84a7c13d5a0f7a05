export { GqlQueryError, GqlSyntaxError } from './errors';
export type { Position } from './ast';
export {
  DEFAULT_SOURCE,
  FULL_TEXT_FIELD,
  MAX_NESTING,
  MAX_QUERY_LENGTH,
  MAX_TOKENS,
  parse,
  parseAst,
  toQuery,
  type FieldFilter,
  type Filter,
  type FilterGroup,
  type FilterOp,
  type GqlQuery,
  type PipelineStage,
  type QueryAst,
} from './parse';
export { LIMITS, compileQuery, metricProblem, planQuery, type CompiledText, type FieldRef, type Plan, type Predicate } from './plan';
export { decodeResults, emit, type CompiledQuery, type EmitOptions, type Guard, type OutputColumn, type PercentileForm, type TimeSlice } from './emit';
export { SOURCES, defineSource, findSource, type SourceDefinition, type SourceOptions } from './sources';
export { ATTACHMENT_FIELDS, CHUNK_FIELDS, PROFILE_FIELDS, SESSION_FIELDS, attachments, profileChunks, replayChunks, replaySessions } from './chunkSources';
export { aggregateBy, findRows, type Equals } from './lookup';
export { complete, type Completion, type SchemaDocument, type Suggestion, type SuggestionKind } from './complete';
export { emitFor, percentilesFor, readsNewestFirst, runPlan, runQuery, type QueryAnswer } from './run';
export { gqlApiError } from './apiErrors';
