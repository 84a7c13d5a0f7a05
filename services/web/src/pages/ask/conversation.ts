import type { GqlAnswer } from '../../api/types';

/** A query the assistant ran for an answer, with the rows it read (`data` of a GQL answer). */
export interface AskedQuery {
  gql: string;
  data: GqlAnswer['data'] | null;
}

/** An answer the server refused, kept as plain data so the conversation can be stored. */
export interface TurnError {
  status: number;
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

export type Turn =
  | { role: 'user'; text: string }
  | { role: 'assistant'; text: string; queries: AskedQuery[]; done: boolean; error?: TurnError };

/** One conversation with the project's assistant: the server's session (null before the first answer) and its turns. */
export interface Conversation {
  sessionId: string | null;
  turns: Turn[];
}

export const EMPTY: Conversation = { sessionId: null, turns: [] };

/** The turns a tab keeps per project: enough to read back, little enough for session storage. */
export const MAX_KEPT_TURNS = 40;

/** A question sent: the user's turn and the assistant's, empty until the stream fills it. */
export function asked(conversation: Conversation, text: string): Conversation {
  return { ...conversation, turns: [...conversation.turns, { role: 'user', text }, { role: 'assistant', text: '', queries: [], done: false }] };
}

/** Applies one event of the chat's stream (`query` {gql, data}, `delta` {text}, `done` {session_id}) to the last turn. */
export function streamed(conversation: Conversation, event: string, data: unknown): Conversation {
  const last = conversation.turns.at(-1);
  if (!last || last.role !== 'assistant') return conversation;
  const payload = (data ?? {}) as { gql?: unknown; data?: unknown; text?: unknown; session_id?: unknown };
  let next: Turn = last;
  let sessionId = conversation.sessionId;
  if (event === 'query' && typeof payload.gql === 'string') {
    next = { ...last, queries: [...last.queries, { gql: payload.gql, data: (payload.data as AskedQuery['data']) ?? null }] };
  } else if (event === 'delta' && typeof payload.text === 'string') {
    next = { ...last, text: last.text + payload.text };
  } else if (event === 'done') {
    next = { ...last, done: true };
    if (typeof payload.session_id === 'string') sessionId = payload.session_id;
  } else {
    return conversation;
  }
  return { sessionId, turns: [...conversation.turns.slice(0, -1), next] };
}

/** The last answer ends: with the error the server gave, or cut short (a stream that stopped before `done`). */
export function ended(conversation: Conversation, error?: TurnError): Conversation {
  const last = conversation.turns.at(-1);
  if (!last || last.role !== 'assistant' || (last.done && !error)) return conversation;
  return { ...conversation, turns: [...conversation.turns.slice(0, -1), { ...last, done: true, ...(error ? { error } : {}) }] };
}

/**
 * A reply as the page shows it: the server ends it with the queries it ran, in parentheses, for clients that show
 * only the text; the page shows each query above the reply, so it leaves them out there.
 */
export function shownReply(text: string, queries: readonly string[]): string {
  if (queries.length === 0) return text;
  const ran = ` (${queries.join('; ')})`;
  if (text.endsWith(`${ran}.`)) return `${text.slice(0, -ran.length - 1)}.`;
  return text.endsWith(ran) ? text.slice(0, -ran.length) : text;
}

/** Rows of a query's answer shown under it, and kept with the conversation; the explorer has them all. */
export const SHOWN_ROWS = 10;

/** How many groups or rows an answer had, when only the first SHOWN_ROWS of them are kept. */
export const answerSize = (data: NonNullable<AskedQuery['data']>) => Math.max(data.results.length, data.total_groups);

/**
 * What a tab keeps: questions with their finished answers, the newest MAX_KEPT_TURNS, starting at a question, each
 * query with the rows shown of it (an answer can hold 10,000).
 */
export function kept(conversation: Conversation): Conversation {
  const finished = (turn: Turn | undefined) => turn?.role === 'assistant' && turn.done;
  let turns = conversation.turns.filter((turn, index, all) => (turn.role === 'user' ? finished(all[index + 1]) : turn.done));
  if (turns.length > MAX_KEPT_TURNS) turns = turns.slice(-MAX_KEPT_TURNS);
  while (turns[0] && turns[0].role !== 'user') turns = turns.slice(1);
  const shown = (query: AskedQuery): AskedQuery =>
    query.data ? { ...query, data: { ...query.data, results: query.data.results.slice(0, SHOWN_ROWS), total_groups: answerSize(query.data) } } : query;
  return { sessionId: conversation.sessionId, turns: turns.map((turn) => (turn.role === 'user' ? turn : { ...turn, queries: turn.queries.map(shown) })) };
}

/** Whether every answer has finished: the moment to store the conversation, rather than at each word streamed. */
export const settled = (conversation: Conversation) => conversation.turns.every((turn) => turn.role === 'user' || turn.done);

/** Where a tab keeps a project's conversation. */
export const STORAGE_PREFIX = 'tlm.ask.';

/** Forgets every conversation this tab keeps: at log-out, and when the session has ended, so the next person does not read them. */
export function forgetConversations(storage: Storage = window.sessionStorage): void {
  try {
    for (const key of Object.keys(storage)) if (key.startsWith(STORAGE_PREFIX)) storage.removeItem(key);
  } catch {
    // Storage switched off: nothing was kept.
  }
}

/** Reads a stored conversation; anything that is not one reads as none. */
export function parseConversation(text: string | null): Conversation {
  if (!text) return EMPTY;
  try {
    const parsed = JSON.parse(text) as Partial<Conversation>;
    if (!Array.isArray(parsed.turns)) return EMPTY;
    const turns = parsed.turns.filter(
      (turn): turn is Turn => typeof turn === 'object' && turn !== null && (turn.role === 'user' || (turn.role === 'assistant' && Array.isArray(turn.queries))) && typeof turn.text === 'string',
    );
    return { sessionId: typeof parsed.sessionId === 'string' ? parsed.sessionId : null, turns };
  } catch {
    return EMPTY;
  }
}

/** A single number answer (`count`, `avg(…)` without grouping): shown on its own rather than as a table. */
export function singleValue(data: AskedQuery['data']): unknown {
  if (!data || data.mode !== 'aggregate' || data.results.length !== 1) return undefined;
  const row = data.results[0]!;
  const keys = Object.keys(row);
  return keys.length === 1 && keys[0] === 'value' ? row['value'] : undefined;
}
