/**
 * What the replay pages read and compute: the session list and chunk routes (docs/api.md "Session replay", the
 * `/api/orgs/:org/projects/:project/replay/…` reads), the GQL of a replay's errors, and the player's timeline marks
 * from rrweb events. Pure functions over rows and events, tested without a browser (test/replays-data.test.ts).
 */
import { gqlString } from '../../api/gql';

/** A replay session as `GET …/replay/sessions` lists it. */
export interface ReplaySession {
  session_id: string;
  distinct_id: string | null;
  started_at: string | null;
  url: string | null;
  user_agent: string | null;
  properties: Record<string, unknown> | null;
  updated_at: string | null;
  chunk_count: number;
  ended_at: string | null;
}

export interface ReplayChunk {
  seq: number;
  start_ts: string;
  end_ts: string;
  event_count: number;
  size_bytes: number;
}

/** One replay with its chunks in `seq` order, as `GET …/replay/sessions/:id` answers. */
export type ReplayDetail = Omit<ReplaySession, 'chunk_count' | 'ended_at'> & { chunks: ReplayChunk[] };

/** An rrweb event: its kind, its time in epoch milliseconds and its data (read only where marks need it). */
export interface RecordedEvent {
  type: number;
  timestamp: number;
  data?: unknown;
}

/** rrweb's event and source numbers (`EventType`, `IncrementalSource`, `MouseInteractions` in @rrweb/types). */
const INCREMENTAL_SNAPSHOT = 3;
const MOUSE_INTERACTION = 2;
const CLICK = 2;

/** The sessions the list shows at most. */
export const REPLAY_LIST_LIMIT = 100;

/**
 * Where errors name their replay: Sentry's browser SDK tags them `replayId`; its other SDKs set `contexts.replay`, kept
 * flat in `extra`. The project's own client sets both.
 */
export const REPLAY_ID_FIELDS = ['tags.replayId', 'extra.contexts.replay.replay_id'] as const;

/** A replay's length from its start to the end of its last chunk; null while either is unknown. */
export function replayDurationMs(session: Pick<ReplaySession, 'started_at' | 'ended_at'>): number | null {
  if (!session.started_at || !session.ended_at) return null;
  const ms = Date.parse(session.ended_at) - Date.parse(session.started_at);
  return Number.isFinite(ms) && ms >= 0 ? ms : null;
}

/** `1:05`, `12:00`, `1:02:03`: a replay's clock. */
export function formatClock(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = String(total % 60).padStart(2, '0');
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, '0')}:${seconds}` : `${minutes}:${seconds}`;
}

/** The errors linked to any of `ids` by one of the replay fields, counted per replay, from `since` on. */
export function errorCountsQueries(ids: string[], since: string): string[] {
  return REPLAY_ID_FIELDS.map((field) => `from:errors ${field} in [${ids.map(gqlString).join(', ')}] since:${gqlString(since)} | count by ${field} | limit ${ids.length}`);
}

/**
 * Errors per replay id from the answers of `errorCountsQueries`, in their order. An SDK names a replay one way or
 * both ways, so the larger count of the two is the replay's.
 */
export function errorCountsOf(answers: Record<string, unknown>[][]): Map<string, number> {
  const counts = new Map<string, number>();
  answers.forEach((rows, index) => {
    const field = REPLAY_ID_FIELDS[index]!;
    for (const row of rows) {
      const id = row[field];
      if (typeof id !== 'string' || id === '') continue;
      counts.set(id, Math.max(counts.get(id) ?? 0, Number(row['value'] ?? 0)));
    }
  });
  return counts;
}

/** The errors of one replay in time order, from a minute before its start (the first error may precede the first chunk). */
export function replayErrorsQuery(id: string, startedAt: string | null): string {
  const since = startedAt ? new Date(Date.parse(startedAt) - 60_000).toISOString() : undefined;
  const named = REPLAY_ID_FIELDS.map((field) => `${field}:${gqlString(id)}`).join(' or ');
  return `from:errors (${named})${since ? ` since:${gqlString(since)}` : ''} | sort timestamp asc | fields timestamp, id, issue_id, type, value, level | limit 100`;
}

/** An error of a replay as `replayErrorsQuery` answers it. */
export interface ReplayError {
  timestamp: string;
  id: string;
  issue_id: string;
  type: string;
  value: string;
  level: string;
}

/** A point on the player's timeline: its offset from the replay's start and what happened. */
export interface TimelineMark {
  kind: 'click' | 'error';
  offsetMs: number;
  label: string;
  /** For errors: the issue the error belongs to. */
  issueId?: string;
}

/** Clicks recorded by rrweb (mouse interactions of type click), as offsets from `startTime`. */
export function clickMarks(events: RecordedEvent[], startTime: number): TimelineMark[] {
  const marks: TimelineMark[] = [];
  for (const event of events) {
    if (event.type !== INCREMENTAL_SNAPSHOT) continue;
    const data = event.data as { source?: unknown; type?: unknown } | undefined;
    if (data?.source === MOUSE_INTERACTION && data.type === CLICK) marks.push({ kind: 'click', offsetMs: event.timestamp - startTime, label: 'Click' });
  }
  return marks;
}

/** The replay's errors as offsets from `startTime`, kept within the replay's length. */
export function errorMarks(errors: ReplayError[], startTime: number, totalMs: number, ended = true): TimelineMark[] {
  return errors.map((error) => {
    const clock = errorClock(error.timestamp, startTime, totalMs, ended);
    return {
      kind: 'error',
      offsetMs: clock.offsetMs,
      label: `${clock.after ? `at ${clock.text}: ` : ''}${error.type}: ${error.value}`,
      issueId: error.issue_id,
    };
  });
}

/**
 * An error's time in the replay: its offset from the start, kept within the replay's length, and whether the
 * recording had ended by then, said only once every chunk is read (`ended`): the recording grows while they load.
 */
export function errorClock(timestamp: string, startTime: number, totalMs: number, ended = true): { offsetMs: number; text: string; after: boolean } {
  const offsetMs = Math.max(0, Date.parse(timestamp) - startTime);
  if (offsetMs <= totalMs) return { offsetMs, text: formatClock(offsetMs), after: false };
  return { offsetMs: totalMs, text: ended ? `${formatClock(offsetMs)}, after the recording ends` : formatClock(offsetMs), after: ended };
}

/** Below this an event's `timestamp` is seconds, as Sentry writes its custom events; rrweb's own are milliseconds. */
const SECONDS_BELOW = 1e11;

/**
 * The rrweb events of a parsed chunk, every timestamp in milliseconds: the Replayer measures the replay from its
 * earliest event, so one event in seconds would stretch it over decades. Entries without a numeric time are dropped.
 */
export function recordedEvents(parsed: unknown): RecordedEvent[] {
  if (!Array.isArray(parsed)) throw new Error('the chunk is not a JSON array of rrweb events');
  const events: RecordedEvent[] = [];
  for (const event of parsed) {
    if (typeof event !== 'object' || event === null) continue;
    const { timestamp } = event as { timestamp?: unknown };
    if (typeof timestamp !== 'number' || !Number.isFinite(timestamp)) continue;
    events.push(timestamp < SECONDS_BELOW ? { ...(event as RecordedEvent), timestamp: Math.round(timestamp * 1000) } : (event as RecordedEvent));
  }
  return events;
}

/** The events of a chunk: its gzip inflated by the browser, then the JSON array (`recordedEvents`). */
export async function chunkEvents(gzipped: ArrayBuffer): Promise<RecordedEvent[]> {
  const stream = new Blob([gzipped]).stream().pipeThrough(new DecompressionStream('gzip'));
  return recordedEvents(JSON.parse(await new Response(stream).text()));
}

/** The browser and system a session's properties name (`$browser`, `$os`), or its user agent. */
export function deviceOf(session: Pick<ReplaySession, 'properties' | 'user_agent'>): string | null {
  const properties = session.properties ?? {};
  const parts = [properties['$browser'], properties['$os']].filter((part): part is string => typeof part === 'string' && part !== '');
  return parts.length > 0 ? parts.join(' · ') : session.user_agent;
}
