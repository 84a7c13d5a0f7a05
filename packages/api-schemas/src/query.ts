import { Type, type Static } from '@sinclair/typebox';

/**
 * Reading with GQL, natural language to GQL and the AI chat (docs/api.md "Reading", "AI"): the query and AI services
 * validate with these.
 */

const Enum = <const T extends readonly string[]>(values: T) => Type.Unsafe<T[number]>({ type: 'string', enum: [...values] });

/** SPEC.md Limits: "GQL batch: 10 queries per request". */
export const MAX_BATCH_QUERIES = 10;

/** POST /v1/gql/query. */
export const SingleQueryBody = Type.Object({ q: Type.String({ description: 'One GQL query.' }) });
export type SingleQueryBody = Static<typeof SingleQueryBody>;

/** POST /v1/gql: each entry is answered on its own, so a non-string entry fails only its own answer. */
export const BatchQueryBody = Type.Object({
  queries: Type.Array(Type.Unknown(), { description: `At most ${MAX_BATCH_QUERIES} GQL queries, answered in order.` }),
});
export type BatchQueryBody = Static<typeof BatchQueryBody>;

export const NL_MODES = ['explorer', 'alert'] as const;

/** The asker's time zone, an IANA name (Europe/Berlin): the days "today" and "this week" mean; UTC when absent. */
const TimeZone = Type.String({ minLength: 1, maxLength: 64, description: 'IANA time zone of the asker, e.g. Europe/Berlin; UTC by default' });

/** POST /v1/gql/nl and the dashboard form; SPEC.md Limits: natural-language prompts of at most 500 characters. */
export const NlBody = Type.Object({
  prompt: Type.String({ minLength: 1, maxLength: 500 }),
  mode: Type.Optional(Enum(NL_MODES)),
  time_zone: Type.Optional(TimeZone),
});
export type NlBody = Static<typeof NlBody>;

/** POST /v1/ai/chat and /v1/ai/chat/stream; `session_id` continues a conversation. */
export const ChatBody = Type.Object({
  message: Type.String({ minLength: 1, maxLength: 4_000 }),
  session_id: Type.Optional(Type.String()),
  time_zone: Type.Optional(TimeZone),
});
export type ChatBody = Static<typeof ChatBody>;
