import { Type, type Static } from '@sinclair/typebox';
import type { SpanItem, SpanKind } from '../spans';
import { accept, reject, type ItemResult } from '../result';
import { itemValidator } from '../validation';
import {
  OtlpEnum,
  OtlpKeyValueList,
  OtlpResourceSchema,
  OtlpScopeSchema,
  OtlpUint64,
  attributesOf,
  nanosToMillis,
  optionalId,
  resourceIdentity,
} from './common';

/** `ExportTraceServiceRequest`: the structure is checked for the whole request, each span on its own. */
export const OtlpTraceRequestSchema = Type.Object({
  resourceSpans: Type.Optional(
    Type.Array(
      Type.Object({
        resource: Type.Optional(OtlpResourceSchema),
        scopeSpans: Type.Optional(
          Type.Array(Type.Object({ scope: Type.Optional(OtlpScopeSchema), spans: Type.Optional(Type.Array(Type.Unknown())) })),
        ),
      }),
    ),
  ),
});
export type OtlpTraceRequest = Static<typeof OtlpTraceRequestSchema>;

/** One OTLP span (opentelemetry/proto/trace/v1/trace.proto) as far as the service reads it. */
export const OtlpSpanSchema = Type.Object({
  traceId: Type.String(),
  spanId: Type.String(),
  parentSpanId: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  name: Type.String(),
  kind: Type.Optional(OtlpEnum),
  startTimeUnixNano: OtlpUint64,
  endTimeUnixNano: OtlpUint64,
  attributes: Type.Optional(OtlpKeyValueList),
  events: Type.Optional(
    Type.Array(Type.Object({ name: Type.String(), timeUnixNano: Type.Optional(OtlpUint64), attributes: Type.Optional(OtlpKeyValueList) })),
  ),
  status: Type.Optional(Type.Object({ code: Type.Optional(OtlpEnum), message: Type.Optional(Type.String()) })),
});
export type OtlpSpan = Static<typeof OtlpSpanSchema>;

export const validateOtlpTraceRequest = itemValidator(OtlpTraceRequestSchema);
const validateOtlpSpan = itemValidator(OtlpSpanSchema);

/** What the spans of one resource and scope share. */
export interface OtlpSpanScope {
  attributes: Record<string, unknown>;
  service?: string;
  release?: string;
  environment?: string;
}

/** Every span of a request in order, each with what its resource and scope say about it. */
export function otlpSpans(request: OtlpTraceRequest): { span: unknown; scope: OtlpSpanScope }[] {
  const spans: { span: unknown; scope: OtlpSpanScope }[] = [];
  for (const resourceSpans of request.resourceSpans ?? []) {
    const resource = attributesOf(resourceSpans.resource?.attributes);
    const identity = resourceIdentity(resource);
    for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
      const attributes = { ...resource, ...scopeAttributes(scopeSpans.scope) };
      for (const span of scopeSpans.spans ?? []) spans.push({ span, scope: { attributes, ...identity } });
    }
  }
  return spans;
}

/** OpenTelemetry's convention for the instrumentation scope on non-OTLP backends: `otel.scope.name`, `.version`. */
export function scopeAttributes(scope: Static<typeof OtlpScopeSchema> | undefined): Record<string, unknown> {
  // The scope's own attributes (docs/decisions.md: "Resource and scope attributes are stored with the span's"), then
  // its name and version.
  const attributes: Record<string, unknown> = scope?.attributes ? attributesOf(scope.attributes) : {};
  if (scope?.name) attributes['otel.scope.name'] = scope.name;
  if (scope?.version) attributes['otel.scope.version'] = scope.version;
  return attributes;
}

const KINDS: Record<string, SpanKind> = {
  '1': 'internal',
  '2': 'server',
  '3': 'client',
  '4': 'producer',
  '5': 'consumer',
  SPAN_KIND_INTERNAL: 'internal',
  SPAN_KIND_SERVER: 'server',
  SPAN_KIND_CLIENT: 'client',
  SPAN_KIND_PRODUCER: 'producer',
  SPAN_KIND_CONSUMER: 'consumer',
};

/** An OTLP span as a span item: status code 2 (ERROR) is `error`, UNSET and OK are `ok`. */
export function otlpSpanItem(input: unknown, scope: OtlpSpanScope): ItemResult<SpanItem> {
  const checked = validateOtlpSpan(input);
  if (!checked.ok) return checked;
  const span = checked.value;
  const start = nanosToMillis(span.startTimeUnixNano);
  const end = nanosToMillis(span.endTimeUnixNano);
  if (start === undefined) return reject('startTimeUnixNano is required');
  if (end === undefined) return reject('endTimeUnixNano is required');
  const kind = span.kind === undefined ? undefined : KINDS[String(span.kind)];
  const attributes: Record<string, unknown> = { ...scope.attributes, ...attributesOf(span.attributes) };
  if (span.status?.message) attributes['otel.status_description'] = span.status.message;
  const explicitOp = attributes['sentry.op'];
  return accept({
    trace_id: span.traceId,
    span_id: span.spanId,
    parent_span_id: optionalId(span.parentSpanId) as string | undefined,
    name: span.name,
    op: typeof explicitOp === 'string' ? explicitOp : inferOp(kind, attributes),
    kind: kind ?? null,
    status: span.status?.code === 2 || span.status?.code === 'STATUS_CODE_ERROR' ? 'error' : 'ok',
    start_timestamp: start,
    end_timestamp: end,
    attributes,
    events: (span.events ?? []).map((event) => {
      const time = nanosToMillis(event.timeUnixNano);
      return { name: event.name, ...(time === undefined ? {} : { timestamp: time }), attributes: attributesOf(event.attributes) };
    }),
    service: scope.service ?? null,
    release: scope.release ?? null,
    environment: scope.environment ?? null,
  });
}

/** Sentry-style operation names from OpenTelemetry's semantic conventions, as Sentry's own OTLP bridge infers them. */
export function inferOp(kind: SpanKind | undefined, attributes: Record<string, unknown>): string | null {
  const has = (key: string) => attributes[key] !== undefined;
  if (has('http.request.method') || has('http.method')) {
    return kind === 'server' ? 'http.server' : kind === 'client' ? 'http.client' : 'http';
  }
  if (has('db.system.name') || has('db.system')) return 'db';
  if (has('rpc.system')) return 'rpc';
  if (has('messaging.system')) return 'message';
  if (has('faas.trigger')) return 'function';
  return null;
}
