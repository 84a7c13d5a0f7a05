import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { Type, type Static } from '@sinclair/typebox';
import { CHUNK_ID_PATTERN, ChunkCount, ChunkId } from '@tlm/api-schemas';
import { checkQuery, readInflated, type JsonBudget } from '@tlm/core';
import { Instant, MAX_REPLAY_INFLATED_BYTES, MAX_REPLAY_JSON_CONTAINERS, chunkSpan, instant, optionalInstant, type ChunkQuery } from './chunks';
import { clientProperties } from './client';
import { withClientProperties, type IngestContext } from './context';
import { flatProperties, type Properties } from './properties';
import { accept, reject, type ItemResult } from './result';
import { itemValidator } from './validation';

const gzipAsync = promisify(gzip);

/** Fields of a session upsert that are columns; every other field of the body goes to `properties`. */
const SESSION_FIELDS = new Set(['session_id', 'distinct_id', 'started_at', 'url', 'user_agent', 'properties']);

/** `POST /v1/replay/sessions` (DECISIONS.md): the session's metadata; unknown fields are kept as properties. */
export const ReplaySessionSchema = Type.Object(
  {
    session_id: Type.String({ pattern: CHUNK_ID_PATTERN, description: '1 to 128 letters, digits, ".", "_" or "-"' }),
    distinct_id: Type.Optional(Type.Union([Type.String({ maxLength: 400 }), Type.Number()])),
    started_at: Type.Union([Type.String({ minLength: 1 }), Type.Number()], { description: 'ISO 8601 or epoch milliseconds' }),
    url: Type.Optional(Type.String({ maxLength: 8192 })),
    user_agent: Type.Optional(Type.String({ maxLength: 1024 })),
    properties: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { additionalProperties: true },
);
export type ReplaySessionItem = Static<typeof ReplaySessionSchema>;

/** A replay session as the platform carries it on the bus; a later upsert of the same session replaces it. */
export interface ReplaySessionRecord {
  kind: 'session';
  projectId: string;
  sessionId: string;
  distinctId: string | null;
  /** Epoch milliseconds. */
  startedAt: number;
  url: string | null;
  userAgent: string | null;
  properties: Properties;
  receivedAt: number;
  retentionDays: number;
}

/** One recording chunk's metadata; its body is in the blob store under `blobKey`. */
export interface ReplayChunkRecord {
  kind: 'chunk';
  projectId: string;
  sessionId: string;
  seq: number;
  /** Epoch milliseconds. */
  startTs: number;
  endTs: number;
  eventCount: number;
  /** Bytes of the stored (gzipped) body. */
  sizeBytes: number;
  blobKey: string;
  receivedAt: number;
  retentionDays: number;
}

export type ReplayRecord = ReplaySessionRecord | ReplayChunkRecord;

const validateSession = itemValidator(ReplaySessionSchema);

export function toReplaySessionRecord(input: unknown, context: IngestContext, requestUserAgent?: string): ItemResult<ReplaySessionRecord> {
  const checked = validateSession(input);
  if (!checked.ok) return checked;
  const item = checked.value;
  const startedAt = instant(item.started_at, context.receivedAt, 'started_at');
  if (!startedAt.ok) return startedAt;
  const extra = Object.fromEntries(Object.entries(item).filter(([name]) => !SESSION_FIELDS.has(name)));
  const flat = flatProperties(extra, item.properties);
  if (!flat.ok) return flat;
  const properties = flat.value;
  const distinctId = item.distinct_id === undefined || item.distinct_id === '' ? null : String(item.distinct_id);
  return accept({
    kind: 'session',
    projectId: context.projectId,
    sessionId: item.session_id,
    distinctId,
    startedAt: startedAt.value,
    url: item.url ?? null,
    userAgent: item.user_agent ?? requestUserAgent ?? null,
    properties: withClientProperties(properties, sessionClient(item.user_agent, context.client)),
    receivedAt: context.receivedAt,
    retentionDays: context.retentionDays,
  });
}

/**
 * What a session's browser, system and device are read from: the User-Agent the session names (a server relaying
 * for a browser names the browser's), else the request's; `$ip` always from the connection.
 */
function sessionClient(userAgent: string | undefined, requestClient: Properties): Properties {
  if (!userAgent) return requestClient;
  const client = clientProperties(userAgent, undefined);
  if (requestClient['$ip'] !== undefined) client['$ip'] = requestClient['$ip'];
  return client;
}

/** What the gateway learned from a recording body: the bytes to store (gzip) and what the events say. */
export interface InspectedRecording {
  gzipped: Buffer;
  eventCount: number;
  /** Smallest and largest plausible rrweb `timestamp` (epoch milliseconds, `rrwebTimeMs`), null when no event has one. */
  firstTs: number | null;
  lastTs: number | null;
}

const DAY_MS = 24 * 60 * 60 * 1000;
/** Below this an event's `timestamp` is seconds: 1e11 ms is March 1973, 1e11 s the year 5138. */
const SECONDS_BELOW = 1e11;

/**
 * An rrweb event's `timestamp` as epoch milliseconds. rrweb counts in milliseconds, but Sentry's replay SDK writes its
 * custom events (type 5: `performanceSpan`, `breadcrumb`) with Sentry's float seconds beside them.
 */
export const rrwebTimeMs = (timestamp: number): number => (timestamp < SECONDS_BELOW ? timestamp * 1_000 : timestamp);

/** The first day a project's reads still see (the GQL guard's bound): a chunk older than it could never be read. */
const retentionStart = (context: IngestContext): number => context.receivedAt - context.retentionDays * DAY_MS;

const isGzip = (bytes: Buffer): boolean => bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
/** RFC 1950: deflate method, and the header's two bytes are a multiple of 31. */
const isZlib = (bytes: Buffer): boolean => bytes.length >= 2 && (bytes[0]! & 0x0f) === 8 && ((bytes[0]! << 8) | bytes[1]!) % 31 === 0;

/** Whether JSON text opens more than `limit` objects and arrays (brackets inside strings do not count). */
function containersBeyond(json: Buffer, limit: number): boolean {
  let containers = 0;
  let inString = false;
  for (let index = 0; index < json.length; index += 1) {
    const byte = json[index]!;
    if (inString) {
      if (byte === 0x5c) index += 1;
      else if (byte === 0x22) inString = false;
    } else if (byte === 0x22) inString = true;
    else if ((byte === 0x7b || byte === 0x5b) && ++containers > limit) return true;
  }
  return false;
}

/**
 * What the recordings of one request may cost between them: the request's JSON budget, and MAX_REPLAY_INFLATED_BYTES
 * of inflated bytes however many recordings it holds. An envelope of 19 recordings that each inflated past their own
 * 100 MiB took 9.2 s to refuse; sharing the bytes, the first stops at them and the others are not inflated.
 */
export class RecordingBudget {
  inflatedBytesLeft = MAX_REPLAY_INFLATED_BYTES;

  constructor(readonly json: JsonBudget) {}
}

/**
 * Checks a recording body: gzip (required at `POST /v1/replay/chunks`; Sentry SDKs may also send zlib or plain
 * JSON) holding a JSON array of rrweb events, at most 100 MiB inflated (with the request's other recordings), its
 * objects and arrays charged to the request's JSON budget when it was compressed. Inflation stops at the first chunk
 * over either; while the process holds all the inflated bytes it may, the request is refused with 429 (core's
 * `readInflated`). Stored bodies are always gzip: a gzip body is kept byte for byte, others are gzipped. Event times
 * before the project's retention (a timestamp of 0, a relative clock) beside recent ones say nothing of when the chunk
 * was recorded and are left out of its time span; a recording whose every time is that old keeps them (and is refused
 * as past retention).
 */
export async function inspectRecording(
  body: Buffer,
  accepts: 'gzip' | 'gzip, zlib or json',
  budget: RecordingBudget,
  context: IngestContext,
): Promise<ItemResult<InspectedRecording>> {
  const gzipped = isGzip(body);
  if (!gzipped && accepts === 'gzip') return reject('the body must be gzip (a gzipped JSON array of rrweb events)');
  const format = gzipped ? 'gzip' : isZlib(body) ? 'zlib' : undefined;
  if (!format) return readRecording(body, undefined, context);
  const shared = budget.inflatedBytesLeft < MAX_REPLAY_INFLATED_BYTES;
  const overShared = `the envelope's recordings inflate to more than ${MAX_REPLAY_INFLATED_BYTES} bytes between them`;
  if (budget.inflatedBytesLeft <= 0) return reject(overShared);
  const inflated = await readInflated(body, format, { maxBytes: budget.inflatedBytesLeft, json: budget.json }, (json) =>
    readRecording(json, gzipped ? body : undefined, context),
  );
  if (inflated.ok) {
    budget.inflatedBytesLeft -= inflated.bytes;
    return inflated.value;
  }
  if (inflated.refusal === 'corrupt') return reject('the body is not valid gzip or zlib data');
  if (inflated.refusal === 'too dense') return reject(inflated.reason);
  budget.inflatedBytesLeft = 0;
  return reject(shared ? overShared : `the recording inflates to more than ${MAX_REPLAY_INFLATED_BYTES} bytes`);
}

/** A recording's JSON read: at most MAX_REPLAY_JSON_CONTAINERS, counted before parsing, and one array of events. */
async function readRecording(json: Buffer, gzipped: Buffer | undefined, context: IngestContext): Promise<ItemResult<InspectedRecording>> {
  if (containersBeyond(json, MAX_REPLAY_JSON_CONTAINERS)) {
    return reject(`the recording holds more than ${MAX_REPLAY_JSON_CONTAINERS} JSON objects and arrays`);
  }
  let events: unknown;
  try {
    events = JSON.parse(json.toString('utf8'));
  } catch {
    return reject('the recording is not JSON (expected a JSON array of rrweb events)');
  }
  if (!Array.isArray(events)) return reject('the recording must be a JSON array of rrweb events');
  const notBefore = retentionStart(context);
  const recent = { first: null as number | null, last: null as number | null };
  const all = { first: null as number | null, last: null as number | null };
  for (const event of events) {
    const timestamp = (event as { timestamp?: unknown } | null)?.timestamp;
    if (typeof timestamp !== 'number' || !Number.isFinite(timestamp)) continue;
    const ms = rrwebTimeMs(timestamp);
    for (const span of ms < notBefore ? [all] : [all, recent]) {
      if (span.first === null || ms < span.first) span.first = ms;
      if (span.last === null || ms > span.last) span.last = ms;
    }
  }
  // Stray old times beside recent ones are left out; a recording whose every time is old keeps them, and is refused.
  const span = recent.first === null ? all : recent;
  return accept({ gzipped: gzipped ?? (await gzipAsync(json)), eventCount: events.length, firstTs: span.first, lastTs: span.last });
}

/** `POST /v1/replay/chunks` query parameters (SPEC.md Endpoints), checked and typed. */
export interface ReplayChunkParams {
  sessionId: string;
  seq: number;
  startTs: number | undefined;
  endTs: number | undefined;
  eventCount: number | undefined;
}

/** The parameters as the route is described with them; their values are checked by this schema. */
export const ReplayChunkQuery = Type.Object({
  session_id: ChunkId('The session the chunk belongs to'),
  seq: ChunkCount('Order of the chunk within the session'),
  start_ts: Type.Optional(Instant('First event of the chunk')),
  end_ts: Type.Optional(Instant('Last event of the chunk')),
  event_count: Type.Optional(ChunkCount('Events in the chunk; counted from the recording unless given')),
});

export function replayChunkParams(query: ChunkQuery, receivedAt: number): ItemResult<ReplayChunkParams> {
  const checked = checkQuery(ReplayChunkQuery, query);
  if (!checked.ok) return checked;
  const startTs = optionalInstant(checked.value.start_ts, receivedAt, 'start_ts');
  if (!startTs.ok) return startTs;
  const endTs = optionalInstant(checked.value.end_ts, receivedAt, 'end_ts');
  if (!endTs.ok) return endTs;
  const { session_id: sessionId, seq, event_count: eventCount } = checked.value;
  return accept({ sessionId, seq, startTs: startTs.value, endTs: endTs.value, eventCount });
}

/**
 * The chunk's metadata: the parameters as given, the rest from the recording itself. A chunk that starts before the
 * project's retention is refused: it would be stored where no read finds it.
 */
export function toReplayChunkRecord(
  params: ReplayChunkParams,
  recording: InspectedRecording,
  blobKey: string,
  context: IngestContext,
): ItemResult<ReplayChunkRecord> {
  const span = chunkSpan(
    { start: params.startTs, end: params.endTs },
    { first: recording.firstTs, last: recording.lastTs },
    context.receivedAt,
    ['start_ts', 'end_ts'],
  );
  if (!span.ok) return span;
  if (span.value.start < retentionStart(context)) {
    const what = params.startTs === undefined ? "the recording's events are" : 'start_ts is';
    return reject(`${what} older than the project's retention of ${context.retentionDays} days`);
  }
  return accept({
    kind: 'chunk',
    projectId: context.projectId,
    sessionId: params.sessionId,
    seq: params.seq,
    startTs: span.value.start,
    endTs: span.value.end,
    eventCount: params.eventCount ?? recording.eventCount,
    sizeBytes: recording.gzipped.length,
    blobKey,
    receivedAt: context.receivedAt,
    retentionDays: context.retentionDays,
  });
}
