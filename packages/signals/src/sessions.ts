import { Type } from '@sinclair/typebox';
import { StringEnum, newId } from '@tlm/core';
import { withClientProperties, type IngestContext } from './context';
import type { Properties } from './properties';
import { accept, reject, type ItemResult } from './result';
import { sentryTime } from './sentrySpans';
import { epochTimestamp } from './time';
import { itemValidator } from './validation';

/**
 * What a Sentry SDK says of a session (`errored` only in Ruby's aggregates; Relay takes it too). `unhandled` is what
 * @sentry/browser ends a page's session with after an unhandled error: the page saw it and went on running.
 */
export const SESSION_STATUSES = ['ok', 'exited', 'crashed', 'abnormal', 'errored', 'unhandled'] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

/**
 * How a session ended for release health, Sentry's buckets: crashed, abnormal, errored (it saw an error and did not
 * crash; `unhandled` sessions too, as Relay counts them errored and not fatal), healthy. Crash-free sessions are the
 * share not `crashed`.
 */
export const SESSION_OUTCOMES = ['healthy', 'errored', 'abnormal', 'crashed'] as const;
export type SessionOutcome = (typeof SESSION_OUTCOMES)[number];

/** Buckets in one `sessions` item; SDKs flush every minute, so a real item holds a handful. */
export const MAX_SESSION_AGGREGATES = 1_000;
/** Counts are stored as 32-bit unsigned integers; a larger one would fail the whole batch's insert. */
const MAX_COUNT = 2_147_483_647;
/** Seconds; Sentry ends sessions within days, so a year is a bug. */
const MAX_DURATION_S = 366 * 24 * 60 * 60;

const SentryTime = Type.Union([Type.String({ minLength: 1 }), Type.Number()], { description: 'RFC 3339 or epoch seconds' });
const DistinctId = Type.Union([Type.String({ maxLength: 512 }), Type.Number()]);
const ReleaseAttributes = Type.Object({
  release: Type.String({ minLength: 1, maxLength: 512 }),
  environment: Type.Optional(Type.String({ maxLength: 512 })),
  ip_address: Type.Optional(Type.String()),
  user_agent: Type.Optional(Type.String()),
});

/** A `session` item: one session's whole state as of `timestamp` (Sentry's session update payload). */
export const SessionUpdateSchema = Type.Object({
  sid: Type.String({ minLength: 1, maxLength: 128 }),
  did: Type.Optional(DistinctId),
  init: Type.Optional(Type.Boolean()),
  started: SentryTime,
  timestamp: Type.Optional(SentryTime),
  status: Type.Optional(StringEnum(SESSION_STATUSES)),
  errors: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_COUNT })),
  duration: Type.Optional(Type.Number({ minimum: 0, maximum: MAX_DURATION_S, description: 'seconds' })),
  attrs: ReleaseAttributes,
});

const AggregateCount = Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_COUNT }));

/** A `sessions` item: counts of request-mode sessions per started minute (what server SDKs send). */
export const SessionAggregatesSchema = Type.Object({
  aggregates: Type.Array(
    Type.Object({
      started: SentryTime,
      did: Type.Optional(DistinctId),
      exited: AggregateCount,
      errored: AggregateCount,
      abnormal: AggregateCount,
      unhandled: AggregateCount,
      crashed: AggregateCount,
    }),
    { minItems: 1, maxItems: MAX_SESSION_AGGREGATES },
  ),
  attrs: ReleaseAttributes,
});

/** One row of the `sessions` source: a single session's latest state, or a count of aggregated sessions. */
export interface SessionRecord {
  /** The session id for single sessions (a later update replaces the row); a fresh id for an aggregate count. */
  id: string;
  projectId: string;
  sessionId: string | null;
  distinctId: string | null;
  status: SessionStatus;
  outcome: SessionOutcome;
  /** Errors the session saw; 0 on aggregate rows, whose outcome says it. */
  errors: number;
  /** Sessions this row stands for: 1 for a single session. */
  quantity: number;
  /** Epoch milliseconds. */
  started: number;
  /** The update's own time, epoch milliseconds; the newest update of a session wins. */
  timestamp: number;
  /** The SDK's `duration`, else the time from `started` to this update; 0 on aggregate rows. */
  durationMs: number;
  release: string;
  environment: string | null;
  /** Server-injected `$browser`, `$os`, `$device`, `$ip`. */
  properties: Properties;
  receivedAt: number;
  retentionDays: number;
}

const validateSessionUpdate = itemValidator(SessionUpdateSchema);
const validateSessionAggregates = itemValidator(SessionAggregatesSchema);

export function sessionOutcome(status: SessionStatus, errors: number): SessionOutcome {
  if (status === 'crashed' || status === 'abnormal') return status;
  return status === 'errored' || status === 'unhandled' || errors > 0 ? 'errored' : 'healthy';
}

/** The errors a session saw: an `unhandled` session saw at least the one that ended it, whatever count it sent. */
export const sessionErrors = (status: SessionStatus, errors: number): number => (status === 'unhandled' ? Math.max(1, errors) : errors);

function time(value: string | number, field: string, receivedAt: number): ItemResult<number> {
  const ms = sentryTime(value);
  if (ms === undefined) return reject(`${field} must be an RFC 3339 date-time or epoch seconds`);
  return epochTimestamp(ms, receivedAt, field);
}

const distinctIdOf = (did: string | number | undefined) => (did === undefined || did === '' ? null : String(did));

/** What every record of one item shares: its release attributes and the request's context. */
function itemFields(attrs: { release: string; environment?: string }, context: IngestContext) {
  return {
    projectId: context.projectId,
    release: attrs.release,
    environment: attrs.environment || null,
    properties: withClientProperties({}, context.client),
    receivedAt: context.receivedAt,
    retentionDays: context.retentionDays,
  };
}

export function toSessionRecord(input: unknown, context: IngestContext): ItemResult<SessionRecord> {
  const checked = validateSessionUpdate(input);
  if (!checked.ok) return checked;
  const update = checked.value;
  const started = time(update.started, 'started', context.receivedAt);
  if (!started.ok) return started;
  const timestamp = update.timestamp === undefined ? accept(context.receivedAt) : time(update.timestamp, 'timestamp', context.receivedAt);
  if (!timestamp.ok) return timestamp;
  const status = update.status ?? 'ok';
  const errors = sessionErrors(status, update.errors ?? 0);
  return accept({
    ...itemFields(update.attrs, context),
    id: update.sid.toLowerCase(),
    sessionId: update.sid.toLowerCase(),
    distinctId: distinctIdOf(update.did),
    status,
    outcome: sessionOutcome(status, errors),
    errors,
    quantity: 1,
    started: started.value,
    timestamp: timestamp.value,
    durationMs: update.duration === undefined ? Math.max(0, timestamp.value - started.value) : update.duration * 1_000,
  });
}

const AGGREGATE_STATUSES = ['exited', 'errored', 'abnormal', 'unhandled', 'crashed'] as const;

/** One record per bucket and status with a count above zero; an item with nothing to count is rejected. */
export function toSessionAggregateRecords(input: unknown, context: IngestContext): ItemResult<SessionRecord[]> {
  const checked = validateSessionAggregates(input);
  if (!checked.ok) return checked;
  const { aggregates, attrs } = checked.value;
  const shared = itemFields(attrs, context);
  const records: SessionRecord[] = [];
  for (const [index, bucket] of aggregates.entries()) {
    const started = time(bucket.started, `aggregates.${index}.started`, context.receivedAt);
    if (!started.ok) return started;
    for (const status of AGGREGATE_STATUSES) {
      const quantity = bucket[status] ?? 0;
      if (quantity === 0) continue;
      records.push({
        ...shared,
        id: newId(),
        sessionId: null,
        distinctId: distinctIdOf(bucket.did),
        status,
        outcome: sessionOutcome(status, 0),
        errors: 0,
        quantity,
        started: started.value,
        timestamp: started.value,
        durationMs: 0,
      });
    }
  }
  if (records.length === 0) return reject('every aggregate count is zero');
  return accept(records);
}
