import { namedUuid } from '@tlm/core';
import { MAX_ERROR_FRAMES, type ErrorRecord, type Properties, type StackFrame } from '@tlm/signals';
import { parseTrace } from './traces';

/** Log properties that name the user, strongest first. */
const USER_ID_PROPERTIES = ['distinct_id', '$distinct_id', 'user.id', 'user_id', 'userId', 'enduser.id'];

/** A log row the scanner reads: an `error` or `fatal` log of the look-back window. */
export interface ScannedLog {
  projectId: string;
  id: string;
  /** Epoch milliseconds. */
  timestamp: number;
  severity: 'error' | 'fatal';
  message: string;
  properties: Properties;
  traceId: string | null;
  spanId: string | null;
  retentionDays: number;
}

/**
 * The error id of a log row (`namedUuid`): the same on every pass and every restart, so the issues processor stores
 * it once. Changing how it is named would make the last hour's error logs errors a second time.
 */
export function errorIdOfLog(logId: string): string {
  return namedUuid(`log-error:${logId}`);
}

/** The text before a trace is kept, trimmed to this many characters; the log row keeps all of it. */
const MAX_LOG_MESSAGE_CHARS = 1_024;

function innermost(frames: StackFrame[]): StackFrame[] {
  return frames.length > MAX_ERROR_FRAMES ? frames.slice(frames.length - MAX_ERROR_FRAMES) : frames;
}

function text(value: unknown): string | null {
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number') return String(value);
  return null;
}

/**
 * The error a log row becomes: the parsed trace's type, value and frames, or (no trace) an empty type and the
 * message as the value, like a captured message. The log's properties go to `extra`, below the scanner's own keys:
 * `synthetic` = 'logs' (SPEC.md), `log_id` (the row it came from), `chain`, `log_message`, `exception_module`.
 */
export function logErrorRecord(log: ScannedLog, receivedAt: number): ErrorRecord {
  const trace = parseTrace(log.message);
  const extra: Properties = { ...log.properties, synthetic: 'logs', log_id: log.id };
  if (trace?.prefix) extra['log_message'] = trace.prefix.slice(0, MAX_LOG_MESSAGE_CHARS);
  if (trace?.exception.module) extra['exception_module'] = trace.exception.module;
  if (trace && trace.chain.length > 0) {
    extra['chain'] = trace.chain.map((chained) => ({
      type: chained.type,
      value: chained.value,
      relation: chained.relation,
      ...(chained.exceptionId === undefined ? {} : { exception_id: chained.exceptionId, parent_id: chained.parentId }),
      frames: innermost(chained.frames),
    }));
  }
  const frames = trace?.exception.frames ?? [];
  if (frames.length > MAX_ERROR_FRAMES) extra['frames_omitted'] = frames.length - MAX_ERROR_FRAMES;

  const user: Properties = {};
  // The analytics names first, then what structured loggers and OpenTelemetry call the user (`user_id`, `userId`,
  // `enduser.id`): an issue made of logs counts its users as one of Sentry's does.
  const userId = USER_ID_PROPERTIES.map((key) => text(log.properties[key])).find((value) => value !== null);
  if (userId) user['id'] = userId;
  const tags: Properties = {};
  const logger = text(log.properties['logger']);
  if (logger) tags['logger'] = logger;

  return {
    id: errorIdOfLog(log.id),
    projectId: log.projectId,
    timestamp: log.timestamp,
    receivedAt,
    type: trace?.exception.type ?? '',
    value: trace ? trace.exception.value : log.message,
    level: log.severity === 'fatal' ? 'fatal' : 'error',
    // Sentry SDKs' logs name them `sentry.release` and `sentry.environment`.
    release: text(log.properties['release']) ?? text(log.properties['sentry.release']),
    environment: text(log.properties['environment']) ?? text(log.properties['sentry.environment']),
    platform: trace?.platform ?? null,
    source: null,
    traceId: log.traceId,
    spanId: log.spanId,
    user,
    tags,
    extra,
    frames: innermost(frames),
    breadcrumbs: [],
    fingerprint: null,
    // The error lives as long as the log row it came from.
    retentionDays: log.retentionDays,
  };
}
