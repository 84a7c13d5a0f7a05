import { Type } from '@sinclair/typebox';
import { CHUNK_ID_PATTERN } from '@tlm/api-schemas';
import { accept, reject, type ItemResult } from './result';
import { epochTimestamp, itemTimestamp } from './time';

/**
 * What replay and profile chunks share: their query parameters, their ids (which become part of blob keys) and
 * their size limits (docs/decisions.md "Replay and profiles").
 */

/** Session, chunk and profiler ids: 1 to 128 of letters, digits, `.`, `_`, `-` (UUIDs, Sentry's 32 hex digits). */
const CHUNK_ID = new RegExp(CHUNK_ID_PATTERN);
export const isChunkId = (value: unknown): value is string => typeof value === 'string' && CHUNK_ID.test(value);

/** A replay chunk travels gzipped; 10 MiB compressed and 100 MiB inflated, as Sentry's relay allows. */
export const MAX_REPLAY_CHUNK_BYTES = 10 * 1024 * 1024;
export const MAX_REPLAY_INFLATED_BYTES = 100 * 1024 * 1024;
/**
 * Objects and arrays one recording may hold. JSON.parse blocks the event loop for a time that grows faster than their
 * number: 100 MiB of `{},` (about 100 KB gzipped) held the server for a minute and took 3 GB, while a 100 MiB
 * recording of real rrweb events (about one object or array per 27 bytes) holds about 4 million.
 */
export const MAX_REPLAY_JSON_CONTAINERS = 5_000_000;
/** SPEC.md Limits: "Profile chunk body: up to 10 MiB". */
export const MAX_PROFILE_CHUNK_BYTES = 10 * 1024 * 1024;

/** Query parameters as express parses them: a repeated name arrives as an array. */
export type ChunkQuery = Record<string, unknown>;

/** An instant parameter: checked by `optionalInstant` once the query's form is. */
export const Instant = (description: string) => Type.String({ description: `${description}: ISO 8601 or epoch milliseconds` });

/**
 * An instant given as epoch milliseconds (what rrweb and browsers count in) or as ISO 8601; more than 24 hours in the
 * future is refused like any item time.
 */
export function instant(value: string | number, receivedAt: number, name: string): ItemResult<number> {
  const numeric = typeof value === 'number' || /^\d{1,15}$/.test(value);
  const epochMs = numeric ? Number(value) : NaN;
  if (numeric && (!Number.isFinite(epochMs) || epochMs < 0 || epochMs > 8.64e15)) return reject(`${name} must be epoch milliseconds or an ISO 8601 date-time`);
  const parsed = itemTimestamp(numeric ? new Date(epochMs).toISOString() : String(value), receivedAt);
  if (parsed.ok) return parsed;
  return reject(parsed.reason.includes('future') ? `${name} is more than 24 hours in the future` : `${name} must be epoch milliseconds or an ISO 8601 date-time`);
}

export function optionalInstant(value: string | undefined, receivedAt: number, name: string): ItemResult<number | undefined> {
  return value === undefined ? accept(undefined) : instant(value, receivedAt, name);
}

/** The start and end of a chunk: as given, else as its content says, else the time it arrived; start ≤ end. */
export function chunkSpan(
  given: { start: number | undefined; end: number | undefined },
  content: { first: number | null; last: number | null },
  receivedAt: number,
  names: [string, string],
): ItemResult<{ start: number; end: number }> {
  // Times read from the content are the client's too: a sample at 1e300 ms must not reach the store's timestamp cast.
  for (const [time, name] of [[given.start ?? content.first, names[0]], [given.end ?? content.last, names[1]]] as const) {
    if (time === null || time === undefined) continue;
    const checked = epochTimestamp(time, receivedAt, name);
    if (!checked.ok) return checked;
  }
  const start = given.start ?? content.first ?? receivedAt;
  const end = given.end ?? content.last ?? Math.max(start, receivedAt);
  if (end < start) return reject(`${names[1]} is before ${names[0]}`);
  return accept({ start, end });
}
