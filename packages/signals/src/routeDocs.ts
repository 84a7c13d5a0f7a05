import { Type } from '@sinclair/typebox';
import { EventItemSchema } from './events';
import { batchOf } from './limits';
import { LogItemSchema } from './logs';
import { ProfileChunkQuery } from './profiles';
import { ReplayChunkQuery, ReplaySessionSchema } from './replay';

/**
 * The ingest doors in the route registry's shape (`RouteDoc` of @tlm/api-schemas' openapi.ts, checked where the
 * OpenAPI document is assembled): each item schema is the one its route validates items with. SDK wire formats
 * (Sentry envelopes, OTLP, rrweb chunks) are described by content type rather than schematised.
 */

const writer = { kind: 'key', scopes: ['ingest:write'] } as const;
const Accepted = Type.Object({
  accepted: Type.Integer(),
  rejected: Type.Integer(),
  errors: Type.Array(Type.Object({ index: Type.Integer(), message: Type.String() }), { description: 'Why each rejected item was refused' }),
});
const ENVELOPE = {
  contentTypes: ['application/x-sentry-envelope', 'text/plain'],
  description: "Sentry's envelope: a header line, then per item a header line (type, length) and its payload; may be gzipped (Content-Encoding).",
} as const;
const EnvelopeAnswer = Type.Object({
  id: Type.String({ description: "The envelope's event_id, or a new one" }),
  accepted: Type.Integer(),
  rejected: Type.Integer(),
  skipped: Type.Integer({ description: 'Items of types the service does not store' }),
  errors: Type.Array(Type.Unknown()),
});

export const INGEST_ROUTES = [
  {
    method: 'post',
    path: '/v1/logs',
    auth: writer,
    tag: 'Ingest',
    summary: 'Send logs',
    description: "A public key sends logs only when the project allows browser logs.",
    body: batchOf(LogItemSchema),
    response: { status: 202, description: 'Stored durably: what was accepted and why the rest was refused', schema: Accepted },
  },
  {
    method: 'post',
    path: '/v1/events',
    auth: writer,
    tag: 'Ingest',
    summary: 'Send product-analytics events',
    body: batchOf(EventItemSchema),
    response: { status: 202, description: 'Stored durably: what was accepted and why the rest was refused', schema: Accepted },
  },
  {
    method: 'post',
    path: '/v1/envelope',
    auth: writer,
    tag: 'Ingest',
    summary: 'Send a Sentry envelope (errors, transactions, spans, logs, sessions, replays, profiles, attachments)',
    body: ENVELOPE,
    response: { status: 200, description: 'Stored durably', schema: EnvelopeAnswer },
  },
  {
    method: 'post',
    path: '/api/:dsn/envelope',
    auth: { kind: 'sentry' },
    tag: 'Ingest',
    summary: 'Send a Sentry envelope from an unmodified Sentry SDK (DSN http://<key>@<host>/<dsn_id>)',
    body: ENVELOPE,
    response: { status: 200, description: 'Stored durably', schema: EnvelopeAnswer },
    errors: [403, 421],
  },
  {
    method: 'post',
    path: '/api/:dsn/store',
    auth: { kind: 'sentry' },
    tag: 'Ingest',
    summary: "Send one error event the way older Sentry SDKs do (JSON, or base64 of zlib)",
    body: { contentTypes: ['application/json', 'application/octet-stream'], description: 'A Sentry event.' },
    response: { status: 200, description: 'Stored durably', schema: EnvelopeAnswer },
    errors: [403, 421],
  },
  {
    method: 'post',
    path: '/v1/otlp/v1/traces',
    auth: writer,
    tag: 'Ingest',
    summary: 'Send spans over OTLP/HTTP',
    body: { contentTypes: ['application/x-protobuf', 'application/json'], description: 'An OTLP ExportTraceServiceRequest.' },
    response: { status: 200, description: 'An ExportTraceServiceResponse, in the request\'s encoding', contentType: 'application/json' },
    errors: [415],
  },
  {
    method: 'post',
    path: '/v1/otlp/v1/logs',
    auth: writer,
    tag: 'Ingest',
    summary: 'Send logs over OTLP/HTTP',
    body: { contentTypes: ['application/x-protobuf', 'application/json'], description: 'An OTLP ExportLogsServiceRequest.' },
    response: { status: 200, description: 'An ExportLogsServiceResponse, in the request\'s encoding', contentType: 'application/json' },
    errors: [415],
  },
  {
    method: 'post',
    path: '/v1/replay/sessions',
    auth: writer,
    tag: 'Session replay',
    summary: "Create or update a replay session's metadata",
    body: ReplaySessionSchema,
    response: { status: 200, description: 'Stored durably', schema: Type.Object({ session_id: Type.String() }) },
  },
  {
    method: 'post',
    path: '/v1/replay/chunks',
    auth: writer,
    tag: 'Session replay',
    summary: 'Send a chunk of a replay recording',
    query: ReplayChunkQuery,
    body: { contentTypes: ['application/octet-stream'], description: 'A gzipped JSON array of rrweb events, at most 10 MiB.' },
    response: { status: 202, description: 'Stored durably', schema: Type.Object({ session_id: Type.String(), seq: Type.Integer() }) },
  },
  {
    method: 'post',
    path: '/v1/profiles/chunks',
    auth: writer,
    tag: 'Profiles',
    summary: 'Send a chunk of a sampling profile',
    query: ProfileChunkQuery,
    body: { contentTypes: ['application/json'], description: 'The profile chunk as the profiler wrote it, at most 10 MiB.' },
    response: { status: 202, description: 'Stored durably', schema: Type.Object({ chunk_id: Type.String() }) },
  },
] as const;
