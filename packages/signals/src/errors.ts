import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { EVENT_ID_PATTERN } from '@tlm/api-schemas';
import { newId } from '@tlm/core';
import type { IngestContext } from './context';
import { PROPERTY_LIMITS, flattenInto, flattenValue, propertyProblem, type Properties } from './properties';
import { accept, reject, type ItemResult } from './result';
import { sentryTime } from './sentrySpans';
import { isoTime } from './time';
import { itemValidator } from './validation';

/**
 * The contract between the gateways that make errors (envelope `event` items, the log scanner) and the issues
 * processor that fingerprints and stores them, and the function from Sentry's event payload to it.
 */

export type ErrorLevel = 'fatal' | 'error' | 'warning' | 'info' | 'debug';

/** Read-only: records with equal frames share the frame objects (framesOf). */
export interface StackFrame {
  readonly function: string | null;
  readonly filename: string | null;
  readonly module: string | null;
  readonly lineno: number | null;
  readonly colno: number | null;
  readonly in_app: boolean;
  readonly abs_path: string | null;
  readonly context_line: string | null;
  /**
   * The source lines just before and after `context_line`, nearest last and first (at most CONTEXT_LINES each), as
   * an SDK sends them or source maps give them; absent when neither did.
   */
  readonly pre_context?: readonly string[];
  readonly post_context?: readonly string[];
  /** The position before symbolication, kept beside the original one (source maps). */
  readonly minified?: { filename: string | null; function: string | null; lineno: number | null; colno: number | null };
}

/**
 * Absent fields are left out rather than null: the issues processor stores the record's breadcrumbs as they are (the
 * errors table keeps no absent fields, which cost bytes in every row).
 */
export interface Breadcrumb {
  category?: string;
  message?: string;
  /** ISO 8601. */
  timestamp?: string;
  level?: string;
  type?: string;
  data?: Record<string, unknown>;
}

export interface ErrorRecord {
  /** UUID; a Sentry event_id (32 hex digits) in UUID form, so retries of one event keep their id. */
  id: string;
  projectId: string;
  /** Epoch milliseconds. */
  timestamp: number;
  receivedAt: number;
  /** Exception type, e.g. TypeError; empty for a captured message. */
  type: string;
  /** Exception value or the message. */
  value: string;
  level: ErrorLevel;
  release: string | null;
  environment: string | null;
  platform: string | null;
  /** `window.onerror`, `unhandledRejection`, or the SDK mechanism's type. */
  source: string | null;
  traceId: string | null;
  spanId: string | null;
  /** id, email, ip_address, username… flat. */
  user: Properties;
  tags: Properties;
  /** Flat; `chain` holds the chained exceptions, `synthetic` = 'logs' for scanner-made errors. */
  extra: Properties;
  /** Innermost frame last, at most 250. Never changed once made: records with equal frames may share them. */
  frames: readonly StackFrame[];
  /** The latest 50. */
  breadcrumbs: Breadcrumb[];
  /** A client's fingerprint override (`{{ default }}` expands to the default), or null. */
  fingerprint: string[] | null;
  retentionDays: number;
}

/** Sentry's limits (https://develop.sentry.dev/sdk/data-model/event-payloads/): frames and breadcrumbs kept per event. */
export const MAX_ERROR_FRAMES = 250;
export const MAX_BREADCRUMBS = 50;

const Nullable = <T extends TSchema>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()]));
const AnyObject = Type.Record(Type.String(), Type.Unknown());
const SentryTime = Type.Union([Type.Number(), Type.String()]);

const SentryFrameSchema = Type.Object({
  function: Nullable(Type.String()),
  filename: Nullable(Type.String()),
  module: Nullable(Type.String()),
  abs_path: Nullable(Type.String()),
  lineno: Nullable(Type.Number()),
  colno: Nullable(Type.Number()),
  in_app: Nullable(Type.Boolean()),
  context_line: Nullable(Type.String()),
  pre_context: Type.Optional(Nullable(Type.Array(Type.String()))),
  post_context: Type.Optional(Nullable(Type.Array(Type.String()))),
});

const SentryExceptionSchema = Type.Object({
  type: Nullable(Type.String()),
  value: Nullable(Type.String()),
  module: Nullable(Type.String()),
  mechanism: Nullable(
    Type.Object({
      type: Nullable(Type.String()),
      source: Nullable(Type.String()),
      handled: Nullable(Type.Boolean()),
      exception_id: Nullable(Type.Number()),
      parent_id: Nullable(Type.Number()),
    }),
  ),
  stacktrace: Nullable(Type.Object({ frames: Nullable(Type.Array(SentryFrameSchema)) })),
});

const SentryLogEntrySchema = Type.Object({
  formatted: Nullable(Type.String()),
  message: Nullable(Type.String()),
  params: Nullable(Type.Union([Type.Array(Type.Unknown()), AnyObject])),
});

const SentryBreadcrumbSchema = Type.Object({
  timestamp: Nullable(SentryTime),
  category: Nullable(Type.String()),
  message: Nullable(Type.String()),
  level: Nullable(Type.String()),
  type: Nullable(Type.String()),
  data: Nullable(AnyObject),
});

/**
 * Sentry's event payload (an envelope `event` item), leniently: unknown fields are ignored, absent and null are
 * alike, and each field may take every shape current SDKs send (`exception` as `{values}` or a list, `message` as
 * text or `{formatted, message}`, tags as an object or [key, value] pairs, breadcrumbs as `{values}` or a list,
 * timestamps as float seconds or ISO 8601).
 */
export const SentryEventSchema = Type.Object({
  event_id: Nullable(Type.String()),
  timestamp: Nullable(SentryTime),
  level: Nullable(Type.String()),
  platform: Nullable(Type.String()),
  logger: Nullable(Type.String()),
  transaction: Nullable(Type.String()),
  server_name: Nullable(Type.String()),
  release: Nullable(Type.String()),
  environment: Nullable(Type.String()),
  message: Nullable(Type.Union([Type.String(), SentryLogEntrySchema])),
  logentry: Nullable(SentryLogEntrySchema),
  exception: Nullable(Type.Union([Type.Object({ values: Nullable(Type.Array(SentryExceptionSchema)) }), Type.Array(SentryExceptionSchema)])),
  tags: Nullable(Type.Union([AnyObject, Type.Array(Type.Tuple([Type.String(), Type.Unknown()]))])),
  user: Nullable(AnyObject),
  extra: Nullable(AnyObject),
  contexts: Nullable(AnyObject),
  request: Nullable(AnyObject),
  breadcrumbs: Nullable(Type.Union([Type.Object({ values: Nullable(Type.Array(SentryBreadcrumbSchema)) }), Type.Array(SentryBreadcrumbSchema)])),
  fingerprint: Nullable(Type.Array(Type.Union([Type.String(), Type.Number()]))),
  sdk: Nullable(Type.Object({ name: Nullable(Type.String()), version: Nullable(Type.String()) })),
});
export type SentryEvent = Static<typeof SentryEventSchema>;
type SentryException = Static<typeof SentryExceptionSchema>;
type SentryFrame = Static<typeof SentryFrameSchema>;

const LEVELS: Record<string, ErrorLevel> = {
  fatal: 'fatal',
  critical: 'fatal',
  error: 'error',
  warning: 'warning',
  warn: 'warning',
  info: 'info',
  log: 'info',
  debug: 'debug',
  trace: 'debug',
};

const validateSentryEvent = itemValidator(SentryEventSchema);
const HEX_EVENT_ID = /^[0-9a-f]{32}$/i;
const TRACE_ID = /^[0-9a-f]{32}$/i;
const SPAN_ID = /^[0-9a-f]{16}$/i;
/**
 * Client clocks are wrong, as Sentry's Relay knows: when the envelope's `sent_at` is this far from the receive time,
 * every event time of the envelope is shifted by the difference.
 */
const CLOCK_DRIFT_MS = 55 * 60 * 1000;
/** An event time still ahead of the receive time by more than this (Relay: 60 s) is replaced by the receive time. */
const MAX_FUTURE_MS = 60 * 1000;
/** Nor may it be older than 30 days (Relay), or the project's retention: the crash would be stored out of sight. */
const MAX_PAST_DAYS = 30;
/** Keys of `extra` that mark log-scanner errors (`synthetic: logs`, `log_id`); an SDK's own are not kept. */
const SCANNER_KEYS = ['synthetic', 'log_id'];
/** Keys of `extra` the service writes; trimming a bag with too many keys drops the SDK's, never these. */
const OWN_EXTRA_KEYS: ReadonlySet<string> = new Set(['chain', 'message', 'frames_omitted', 'sdk.name', 'sdk.version', 'original_timestamp', 'properties_dropped']);
/** Sentry's Relay cuts a message to 8 KB; a formatted log entry is cut there too, and each param to 1 KB. */
const MAX_MESSAGE_CHARS = 8_192;
const MAX_PARAM_CHARS = 1_024;

/**
 * A Sentry event as an ErrorRecord. The last exception value is the one raised (Sentry lists a chain oldest first);
 * the others go to `extra.chain`. An event with neither an exception nor a message is rejected with a reason.
 */
export function toErrorRecord(input: unknown, context: IngestContext, envelope: { sentAt?: unknown } = {}): ItemResult<ErrorRecord> {
  const checked = validateSentryEvent(input);
  if (!checked.ok) return checked;
  const event = checked.value;
  const exceptions = exceptionValues(event).filter((exception) => exception.type || exception.value);
  const message = messageOf(event);
  const raised = exceptions[exceptions.length - 1];
  if (!raised && !message) return reject('the event has neither an exception nor a message');

  const tags = tagsOf(event);
  const user = userOf(event.user, context);
  const extra: Properties = {};
  if (event.extra) flattenInto(extra, event.extra);
  const contexts = (event.contexts ?? {}) as Record<string, unknown>;
  for (const name of Object.keys(contexts)) if (name !== 'trace') flattenValue(extra, `contexts.${name}`, contexts[name], 1);
  if (event.request) flattenInto(extra, { request: { url: event.request['url'], method: event.request['method'] } });
  if (event.sdk?.name) extra['sdk.name'] = event.sdk.name;
  if (event.sdk?.version) extra['sdk.version'] = event.sdk.version;
  if (raised && message) extra['message'] = message;
  const chain = chainOf(exceptions);
  if (chain.length > 0) extra['chain'] = chain;
  for (const key of SCANNER_KEYS) if (key in extra) delete extra[key];
  const allFrames = raised?.stacktrace?.frames ?? threadFrames(input) ?? [];
  if (allFrames.length > MAX_ERROR_FRAMES) extra['frames_omitted'] = allFrames.length - MAX_ERROR_FRAMES;
  const time = eventTime(event.timestamp, context, envelope.sentAt);
  if (time.original !== undefined) extra['original_timestamp'] = time.original;
  // Too many or too long keys cost the SDK's keys, not the crash (the issue: "truncated, not a crash").
  if (propertyProblem(tags) ?? propertyProblem(user) ?? propertyProblem(extra)) {
    const dropped = trimProperties(tags) + trimProperties(user) + trimProperties(extra, OWN_EXTRA_KEYS);
    extra['properties_dropped'] = dropped;
  }

  const traceContext = (contexts['trace'] ?? {}) as { trace_id?: unknown; span_id?: unknown };
  const traceId = typeof traceContext.trace_id === 'string' && TRACE_ID.test(traceContext.trace_id) ? traceContext.trace_id.toLowerCase() : null;
  const spanId = typeof traceContext.span_id === 'string' && SPAN_ID.test(traceContext.span_id) ? traceContext.span_id.toLowerCase() : null;
  return accept({
    id: eventIdAsUuid(event.event_id),
    projectId: context.projectId,
    timestamp: time.ms,
    receivedAt: context.receivedAt,
    type: raised?.type ?? '',
    value: raised ? (raised.value ?? '') : message!,
    level: LEVELS[(event.level ?? '').toLowerCase()] ?? (raised ? 'error' : 'info'),
    release: event.release || null,
    environment: event.environment || null,
    platform: event.platform || null,
    source: sourceOf(raised?.mechanism?.type),
    traceId: traceId ?? context.traceId ?? null,
    spanId: traceId ? spanId : null,
    user,
    tags,
    extra,
    frames: framesOf(raised?.type, allFrames.length > MAX_ERROR_FRAMES ? allFrames.slice(-MAX_ERROR_FRAMES) : allFrames),
    breadcrumbs: breadcrumbsOf(event),
    fingerprint: event.fingerprint && event.fingerprint.length > 0 ? event.fingerprint.map(String) : null,
    retentionDays: context.retentionDays,
  });
}

function exceptionValues(event: SentryEvent): SentryException[] {
  if (!event.exception) return [];
  return Array.isArray(event.exception) ? event.exception : (event.exception.values ?? []);
}

/** `message` as text or `{formatted, message, params}`, else `logentry`; the formatted form wins. */
function messageOf(event: SentryEvent): string | undefined {
  const candidates = [event.message, event.logentry];
  for (const candidate of candidates) {
    if (typeof candidate === 'string' && candidate !== '') return candidate;
    if (candidate && typeof candidate === 'object') {
      const text = candidate.formatted || (candidate.message && formatted(candidate.message, candidate.params));
      if (text) return text;
    }
  }
  return undefined;
}

/**
 * A log entry's message with its params, as Sentry formats one without `formatted`: printf-style (`%s`, `%d`, `%i`,
 * `%f`, `%r`, `%%`) from a list, `%(name)s` from an object.
 */
function formatted(message: string, params: unknown): string {
  // Each replacement counts against the cut, so a message of many placeholders cannot grow without bound.
  let length = 0;
  const fill = (text: string) => {
    const room = Math.max(0, MAX_MESSAGE_CHARS - length);
    const piece = text.length > room ? text.slice(0, room) : text;
    length += piece.length;
    return piece;
  };
  let result = message;
  if (Array.isArray(params) && params.length > 0) {
    let next = 0;
    result = message.replace(/%[sdifr%]/g, (spec) => (spec === '%%' ? '%' : next < params.length ? fill(paramText(params[next++])) : spec));
  } else if (params && typeof params === 'object' && !Array.isArray(params)) {
    const named = params as Record<string, unknown>;
    result = message.replace(/%\((\w+)\)[sdifr]/g, (spec, name: string) => (Object.hasOwn(named, name) ? fill(paramText(named[name])) : spec));
  }
  return result.length > MAX_MESSAGE_CHARS ? result.slice(0, MAX_MESSAGE_CHARS) : result;
}

function paramText(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  return text.length > MAX_PARAM_CHARS ? text.slice(0, MAX_PARAM_CHARS) : text;
}

/** A frame list as SentryFrameSchema reads frames: what a thread's stack is checked with. */
const validateFrames = itemValidator(Type.Array(SentryFrameSchema));

/**
 * The stack of the crashed thread, else the current one, else the first (`threads.values`): for events whose exception
 * has none. Read outside the event's schema, which it would slow for every event (most have no threads).
 */
function threadFrames(input: unknown): SentryFrame[] | undefined {
  const threads = (input as { threads?: { values?: unknown } } | null)?.threads?.values;
  if (!Array.isArray(threads) || threads.length === 0) return undefined;
  const flagged = (flag: string) => threads.find((thread) => (thread as Record<string, unknown> | null)?.[flag] === true);
  const thread = (flagged('crashed') ?? flagged('current') ?? threads[0]) as { stacktrace?: { frames?: unknown } } | null;
  const frames = validateFrames(thread?.stacktrace?.frames);
  return frames.ok && frames.value.length > 0 ? frames.value : undefined;
}

/**
 * Drops a bag's keys longer than allowed, then the last keys beyond the most allowed, never the `own` ones (and
 * leaving room for the note that says how many went); answers how many went.
 */
function trimProperties(bag: Properties, own: ReadonlySet<string> = new Set()): number {
  let dropped = 0;
  for (const key of Object.keys(bag)) {
    if (key.length > PROPERTY_LIMITS.maxKeyLength && !own.has(key)) {
      delete bag[key];
      dropped += 1;
    }
  }
  const keys = Object.keys(bag);
  const allowed = PROPERTY_LIMITS.maxKeys - (own.size > 0 ? 1 : 0);
  let count = keys.length;
  for (let index = keys.length - 1; index >= 0 && count > allowed; index--) {
    if (own.has(keys[index]!)) continue;
    delete bag[keys[index]!];
    dropped += 1;
    count -= 1;
  }
  return dropped;
}

/** Event fields Sentry also shows as tags. */
const TAG_FIELDS = ['transaction', 'server_name', 'logger'] as const;

/** Tags are text in Sentry; `transaction`, `server_name` and `logger` are shown as tags there too. */
function tagsOf(event: SentryEvent): Properties {
  const tags: Properties = {};
  const given = event.tags;
  if (Array.isArray(given)) for (const [key, value] of given) addTag(tags, key, value);
  else if (given) for (const key of Object.keys(given)) addTag(tags, key, given[key]);
  for (const key of TAG_FIELDS) {
    const value = event[key];
    if (value && !(key in tags)) tags[key] = value;
  }
  return tags;
}

function addTag(tags: Properties, key: string, value: unknown): void {
  if (value === null || value === undefined || key === '') return;
  tags[key] = typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** `ip_address` is stored as `ip`; Sentry's `{{auto}}` means the connection's address. */
function userOf(given: Record<string, unknown> | null | undefined, context: IngestContext): Properties {
  const user: Properties = {};
  if (!given) return user;
  const { ip_address: ipAddress, ...rest } = given;
  flattenInto(user, rest);
  if (typeof ipAddress === 'string' && ipAddress !== '') {
    const ip = ipAddress === '{{auto}}' ? context.client['$ip'] : ipAddress;
    if (typeof ip === 'string') user['ip'] = ip;
  }
  return user;
}

/**
 * Chained exceptions, nearest to the raised one first. `relation` says how each was attached: `context` for an
 * exception raised while handling another (Python's `__context__`), `cause` otherwise (`__cause__`, `cause`).
 */
function chainOf(exceptions: SentryException[]): unknown[] {
  return exceptions
    .slice(0, -1)
    .reverse()
    .map((exception) => {
      const source = exception.mechanism?.source ?? '';
      return {
        type: exception.type ?? '',
        value: exception.value ?? '',
        relation: /^(?:__)?context(?:__)?$/.test(source) ? 'context' : 'cause',
        ...(typeof exception.mechanism?.exception_id === 'number' ? { exception_id: exception.mechanism.exception_id } : {}),
        ...(typeof exception.mechanism?.parent_id === 'number' ? { parent_id: exception.mechanism.parent_id } : {}),
      };
    });
}

/** Browser SDKs name their global handlers `onerror` and `onunhandledrejection` (v8+: `auto.browser.global_handlers.*`). */
function sourceOf(mechanism: string | null | undefined): string | null {
  if (!mechanism) return null;
  const last = mechanism.slice(mechanism.lastIndexOf('.') + 1);
  if (last === 'onerror') return 'window.onerror';
  if (last === 'onunhandledrejection') return 'unhandledRejection';
  // Node's process handlers (`auto.node.onuncaughtexception`), named as Node names the event.
  if (last === 'onuncaughtexception') return 'uncaughtException';
  return mechanism;
}

/** A frame from the fields someone knows; whatever is left out is absent (null). */
export function stackFrame(fields: Partial<StackFrame> & Pick<StackFrame, 'in_app'>): StackFrame {
  return { function: null, filename: null, module: null, lineno: null, colno: null, abs_path: null, context_line: null, ...fields };
}

/** Frames framesOf remembers, all stacks together, before the memory is dropped (a few MB at most). */
const MAX_REMEMBERED_FRAMES = 20_000;
/** Stacks remembered per key, newest first: errors of one type often end in the same library frame. */
const STACKS_PER_KEY = 4;
const recentStacks = new Map<string, (readonly StackFrame[])[]>();
let rememberedFrames = 0;

/**
 * The frames of an exception, shared with a recent exception whose frames were equal field by field. Errors of one
 * kind repeat their stack, and records wait in the issues processor's batches until their rows are stored: one copy of
 * equal frames keeps about 1.3 KB per waiting error (of 3 KB) out of the young generation that each scavenge copies.
 * Stacks are looked up by the exception type and the innermost frame.
 */
function framesOf(type: string | null | undefined, given: readonly SentryFrame[]): readonly StackFrame[] {
  if (given.length === 0) return [];
  const innermost = given[given.length - 1]!;
  const key = `${type}\u0000${given.length}\u0000${innermost.function}\u0000${innermost.lineno}\u0000${innermost.colno}`;
  let known = recentStacks.get(key);
  if (known) for (const stack of known) if (sameFrames(stack, given)) return stack;
  const frames = given.map(frameOf);
  if (rememberedFrames + frames.length > MAX_REMEMBERED_FRAMES) {
    recentStacks.clear();
    rememberedFrames = 0;
    known = undefined;
  }
  if (!known) recentStacks.set(key, (known = []));
  known.unshift(frames);
  rememberedFrames += frames.length;
  if (known.length > STACKS_PER_KEY) rememberedFrames -= known.pop()!.length;
  return frames;
}

/** Whether `given` makes exactly `known` through frameOf; compared from the innermost frame out. */
function sameFrames(known: readonly StackFrame[], given: readonly SentryFrame[]): boolean {
  if (known.length !== given.length) return false;
  for (let index = given.length - 1; index >= 0; index--) {
    const a = known[index]!;
    const b = given[index]!;
    if (
      a.function !== (b.function ?? null) ||
      a.filename !== (b.filename ?? null) ||
      a.lineno !== (b.lineno ?? null) ||
      a.colno !== (b.colno ?? null) ||
      a.in_app !== (b.in_app === true) ||
      a.module !== (b.module ?? null) ||
      a.abs_path !== (b.abs_path ?? null) ||
      a.context_line !== (b.context_line ?? null) ||
      !sameLines(a.pre_context, contextLines(b.pre_context, 'before')) ||
      !sameLines(a.post_context, contextLines(b.post_context, 'after'))
    ) {
      return false;
    }
  }
  return true;
}

/** Source lines an SDK sends around a frame's line, and source maps give, at most this many on each side. */
export const CONTEXT_LINES = 5;
/** A context line's characters kept, `context_line`'s too: a minified dependency inlined as one line can be megabytes. */
export const MAX_CONTEXT_LINE_CHARS = 300;

/** The lines kept of those given before or after a frame's line: the nearest CONTEXT_LINES, each cut to its length. */
export function contextLines(lines: readonly string[] | null | undefined, side: 'before' | 'after'): readonly string[] | undefined {
  if (!lines || lines.length === 0) return undefined;
  const near = side === 'before' ? lines.slice(-CONTEXT_LINES) : lines.slice(0, CONTEXT_LINES);
  return near.map((line) => (line.length > MAX_CONTEXT_LINE_CHARS ? line.slice(0, MAX_CONTEXT_LINE_CHARS) : line));
}

/** Whether two frames' context lines are the same lines (both absent counts as the same). */
export function sameLines(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  if (a === b) return true;
  if (!a || !b || a.length !== b.length) return false;
  for (let index = 0; index < a.length; index++) if (a[index] !== b[index]) return false;
  return true;
}

/** Every field written out rather than through stackFrame's spread: this runs for every frame of every error. */
function frameOf(frame: SentryFrame): StackFrame {
  return {
    function: frame.function ?? null,
    filename: frame.filename ?? null,
    module: frame.module ?? null,
    lineno: frame.lineno ?? null,
    colno: frame.colno ?? null,
    in_app: frame.in_app === true,
    abs_path: frame.abs_path ?? null,
    context_line: frame.context_line ?? null,
    // Set on every frame, undefined when absent, so frames keep one shape; JSON leaves undefined out.
    pre_context: contextLines(frame.pre_context, 'before'),
    post_context: contextLines(frame.post_context, 'after'),
  };
}

function breadcrumbsOf(event: SentryEvent): Breadcrumb[] {
  const given = event.breadcrumbs;
  const all = !given ? [] : Array.isArray(given) ? given : (given.values ?? []);
  return all.slice(-MAX_BREADCRUMBS).map((crumb) => {
    const kept: Breadcrumb = {};
    if (crumb.category != null) kept.category = crumb.category;
    if (crumb.message != null) kept.message = crumb.message;
    const time = timeOf(crumb.timestamp);
    const timestamp = time === undefined || time < 0 ? undefined : isoTime(time);
    if (timestamp !== undefined) kept.timestamp = timestamp;
    if (crumb.level != null) kept.level = crumb.level;
    if (crumb.type != null) kept.type = crumb.type;
    if (crumb.data != null) kept.data = crumb.data;
    return kept;
  });
}

/** A Sentry time (sentryTime), its seconds also taken as text, in whole epoch ms; undefined when absent or invalid. */
function timeOf(value: unknown): number | undefined {
  const ms = sentryTime(typeof value === 'string' && /^\d+(?:\.\d+)?$/.test(value) ? Number(value) : value);
  return ms === undefined ? undefined : Math.round(ms);
}

/**
 * An event's time as Relay settles it: shifted by the clock drift that `sent_at` shows (55 minutes or more), then
 * replaced by the receive time when still more than a minute ahead, or older than 30 days or the project's retention
 * (the crash would be stored where nobody can see it). A replaced time is kept as `original` (ISO 8601).
 */
function eventTime(value: unknown, context: IngestContext, sentAt: unknown): { ms: number; original?: string } {
  const { receivedAt } = context;
  const given = timeOf(value);
  if (given === undefined) return { ms: receivedAt };
  const sent = timeOf(sentAt);
  const ms = sent !== undefined && Math.abs(receivedAt - sent) >= CLOCK_DRIFT_MS ? given + (receivedAt - sent) : given;
  const oldest = receivedAt - Math.min(MAX_PAST_DAYS, context.retentionDays) * 86_400_000;
  if (ms > receivedAt + MAX_FUTURE_MS || ms < oldest) return { ms: receivedAt, original: isoTime(given) ?? String(value) };
  return { ms };
}

const EVENT_ID = new RegExp(EVENT_ID_PATTERN);

export const isEventId = (value: unknown): value is string => typeof value === 'string' && EVENT_ID.test(value);

/** Sentry's event_id (32 hex digits) in UUID form, so a retried event keeps its id; a fresh id when absent. */
export function eventIdAsUuid(eventId: string | null | undefined): string {
  const compact = eventId?.replace(/-/g, '') ?? '';
  if (!HEX_EVENT_ID.test(compact)) return newId();
  const hex = compact.toLowerCase();
  // Joined rather than templated: a template makes a tree of nine strings where join makes one (about 300 bytes less
  // per error waiting in the processor's batches).
  return [hex.slice(0, 8), hex.slice(8, 12), hex.slice(12, 16), hex.slice(16, 20), hex.slice(20)].join('-');
}
