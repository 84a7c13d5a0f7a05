import { Type, type Static } from '@sinclair/typebox';
import { StringEnum, namedUuid } from '@tlm/core';
import type { IngestContext } from './context';
import { flattenInto, propertyProblem, type Properties } from './properties';
import { accept, reject, type ItemResult } from './result';
import { epochTimestamp } from './time';
import { itemValidator } from './validation';

export const SPAN_STATUSES = ['ok', 'error'] as const;
export type SpanStatus = (typeof SPAN_STATUSES)[number];

/** OpenTelemetry's span kinds, by name. */
export const SPAN_KINDS = ['internal', 'server', 'client', 'producer', 'consumer'] as const;
export type SpanKind = (typeof SPAN_KINDS)[number];

/** Events per span beyond this are dropped (OpenTelemetry's default span event limit is 128). */
export const MAX_SPAN_EVENTS = 128;

const AnyObject = Type.Record(Type.String(), Type.Unknown());
const OptionalText = Type.Optional(Type.Union([Type.String(), Type.Null()]));

/**
 * One span as the three doors (Sentry transactions, Sentry span v2 items, OTLP) hand it over once their own wire
 * format is read: ids in hex, times in epoch milliseconds (fractions keep microseconds), attributes nested or flat.
 */
export const SpanItemSchema = Type.Object({
  trace_id: Type.Optional(Type.String({ format: 'trace-id', description: 'absent: the trace id of the request traceparent' })),
  span_id: Type.String({ format: 'span-id' }),
  parent_span_id: Type.Optional(Type.Union([Type.String({ format: 'span-id' }), Type.Null()])),
  name: Type.String({ maxLength: 2_048 }),
  op: OptionalText,
  kind: Type.Optional(Type.Union([StringEnum(SPAN_KINDS), Type.Null()])),
  status: StringEnum(SPAN_STATUSES),
  start_timestamp: Type.Number({ description: 'epoch milliseconds' }),
  end_timestamp: Type.Number({ description: 'epoch milliseconds' }),
  attributes: Type.Optional(AnyObject),
  events: Type.Optional(
    Type.Array(
      Type.Object({
        name: Type.String(),
        timestamp: Type.Optional(Type.Number({ description: 'epoch milliseconds' })),
        attributes: Type.Optional(AnyObject),
      }),
    ),
  ),
  service: OptionalText,
  release: OptionalText,
  environment: OptionalText,
});
export type SpanItem = Static<typeof SpanItemSchema>;

export interface SpanEvent {
  name: string;
  /** ISO 8601 with milliseconds. */
  timestamp: string;
  attributes: Properties;
}

/** A finished span as the platform carries it on the bus. */
export interface SpanRecord {
  /** Derived from the trace and span ids, so a span sent twice (an exporter's retry) keeps its row id. */
  id: string;
  projectId: string;
  /** Start, epoch milliseconds. */
  timestamp: number;
  /** End, epoch milliseconds. */
  endTimestamp: number;
  /** End minus start with microsecond precision. */
  durationMs: number;
  receivedAt: number;
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  op: string | null;
  kind: SpanKind | null;
  status: SpanStatus;
  attributes: Properties;
  events: SpanEvent[];
  service: string | null;
  release: string | null;
  environment: string | null;
  retentionDays: number;
}

const validateSpanItem = itemValidator(SpanItemSchema);

export function toSpanRecord(input: unknown, context: IngestContext): ItemResult<SpanRecord> {
  const checked = validateSpanItem(input);
  if (!checked.ok) return checked;
  const item = checked.value;
  const traceId = item.trace_id?.toLowerCase() ?? context.traceId;
  if (!traceId) return reject('trace_id is required (or a traceparent header on the request)');
  const start = epochTimestamp(item.start_timestamp, context.receivedAt, 'start_timestamp');
  if (!start.ok) return start;
  const end = epochTimestamp(item.end_timestamp, context.receivedAt, 'end_timestamp');
  if (!end.ok) return end;
  if (end.value < start.value) return reject('end_timestamp is before start_timestamp');
  const attributes: Properties = {};
  if (item.attributes) flattenInto(attributes, item.attributes);
  const events = (item.events ?? []).slice(0, MAX_SPAN_EVENTS).map((event) => spanEvent(event, start.value));
  const problem = propertyProblem(attributes) ?? events.map((event) => propertyProblem(event.attributes)).find(Boolean);
  if (problem) return reject(problem);
  const spanId = item.span_id.toLowerCase();
  return accept({
    id: spanRowId(traceId, spanId),
    projectId: context.projectId,
    timestamp: Math.floor(start.value),
    endTimestamp: Math.floor(end.value),
    // Rounded to the microsecond: float milliseconds near 1.7e12 carry noise below it.
    durationMs: Math.round((end.value - start.value) * 1_000) / 1_000,
    receivedAt: context.receivedAt,
    traceId,
    spanId,
    parentSpanId: item.parent_span_id?.toLowerCase() ?? null,
    name: item.name,
    op: nonEmpty(item.op),
    kind: item.kind ?? null,
    status: item.status,
    attributes,
    events,
    service: nonEmpty(item.service),
    release: nonEmpty(item.release),
    environment: nonEmpty(item.environment),
    retentionDays: context.retentionDays,
  });
}

function spanEvent(event: NonNullable<SpanItem['events']>[number], spanStart: number): SpanEvent {
  const attributes: Properties = {};
  if (event.attributes) flattenInto(attributes, event.attributes);
  // An event time no Date can hold (before 1970, past the year 275760) falls back to the span's start.
  const time = event.timestamp !== undefined && event.timestamp > 0 && event.timestamp < 8.64e15 ? event.timestamp : spanStart;
  return { name: event.name, timestamp: new Date(Math.floor(time)).toISOString(), attributes };
}

function nonEmpty(value: string | null | undefined): string | null {
  return value === undefined || value === null || value === '' ? null : value;
}

/** The row id of a span, named by its trace and span ids (`namedUuid`): the same however often it is sent. */
export function spanRowId(traceId: string, spanId: string): string {
  return namedUuid(`${traceId}:${spanId}`);
}
