import { requestKey } from '@tlm/auth';
import { Topics, type Bus, type Topic } from '@tlm/bus';
import { jsonBody, unsupportedMediaType, validationError } from '@tlm/core';
import {
  MAX_BODY_BYTES,
  decodeOtlpLogsRequest,
  decodeOtlpTraceRequest,
  encodeOtlpResponse,
  MAX_OTLP_ITEMS,
  otlpLogItem,
  otlpLogRecords,
  otlpSpanItem,
  otlpSpans,
  processBatch,
  toLogRecord,
  toSpanRecord,
  validateOtlpLogsRequest,
  validateOtlpTraceRequest,
  type IngestContext,
  type ItemError,
  type ItemResult,
} from '@tlm/signals';
import express, { type RequestHandler, type Response } from 'express';
import { ingestContext, publishOutcome } from './request';

/**
 * OTLP/HTTP (https://opentelemetry.io/docs/specs/otlp/#otlphttp) with JSON or binary protobuf bodies, so unmodified
 * OpenTelemetry exporters send spans and logs whichever encoding they default to: a malformed request is a 400, a
 * valid one a 200 whose `partialSuccess` counts and explains the items that were rejected one by one, in the
 * request's encoding.
 */

const PROTOBUF = 'application/x-protobuf';
const protobufBody = express.raw({ type: () => true, limit: MAX_BODY_BYTES });
const json = jsonBody(MAX_BODY_BYTES);

/** Whether this request's body is protobuf (and its answer must be). */
const isProtobuf = (res: Response) => res.locals['otlpProtobuf'] === true;

/** JSON (or no Content-Type) or protobuf; any other type gets 415, OTLP's answer for an unsupported encoding. */
export const otlpBody: RequestHandler = (req, res, next) => {
  if (req.headers['content-type'] === undefined || req.is('json')) return json(req, res, next);
  if (req.is(PROTOBUF) || req.is('application/protobuf')) {
    res.locals['otlpProtobuf'] = true;
    return protobufBody(req, res, next);
  }
  throw unsupportedMediaType(`OTLP/HTTP accepts application/json or ${PROTOBUF} bodies, not ${req.headers['content-type']}`);
};

/** How many reasons `partialSuccess.errorMessage` spells out before it only counts. */
const MAX_REASONS = 10;

interface OtlpSignal<Wire, Entry, R> {
  /** `spans` or `logs`, for metrics. */
  signal: string;
  /** The singular in reasons: "span 3: …". */
  noun: string;
  /** The request message, for the 400. */
  message: string;
  topic: Topic;
  /** The response's count field (`rejectedSpans`, `rejectedLogRecords`). */
  rejectedField: string;
  decodeProtobuf: (body: Buffer) => ItemResult<Record<string, unknown>>;
  /** The answer's protobuf form (`ExportTraceServiceResponse`, `ExportLogsServiceResponse`). */
  encodeProtobuf: (answer: { partialSuccess?: Record<string, unknown> }) => Buffer;
  validate: (body: unknown) => ItemResult<Wire>;
  /** The items of a request in order, each with what its resource and scope say about it. */
  entries: (request: Wire) => Entry[];
  toRecord: (entry: Entry, context: IngestContext) => ItemResult<R>;
}

function otlpExport<Wire, Entry, R extends { projectId: string }>(bus: Bus, kind: OtlpSignal<Wire, Entry, R>): RequestHandler {
  return async (req, res) => {
    let body: unknown = req.body;
    if (isProtobuf(res)) {
      const decoded = kind.decodeProtobuf(Buffer.isBuffer(body) ? body : Buffer.alloc(0));
      if (!decoded.ok) throw validationError(`malformed OTLP ${kind.message}: ${decoded.reason}`);
      body = decoded.value;
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw validationError(`request body must be an OTLP ${kind.message} JSON object`);
    }
    const request = kind.validate(body);
    if (!request.ok) throw validationError(`malformed OTLP ${kind.message}: ${request.reason}`);
    const items = kind.entries(request.value);
    if (items.length > MAX_OTLP_ITEMS) {
      throw validationError(`the request holds ${items.length} ${kind.signal}; at most ${MAX_OTLP_ITEMS} are accepted per request`, {
        limit: MAX_OTLP_ITEMS,
        received: items.length,
      });
    }
    const context = ingestContext(req, requestKey(res));
    const outcome = processBatch(items, (entry) => kind.toRecord(entry as Entry, context));
    await publishOutcome(bus, kind.signal, kind.topic, outcome);
    const answer =
      outcome.errors.length === 0
        ? {}
        : { partialSuccess: { [kind.rejectedField]: outcome.errors.length, errorMessage: errorMessage(kind.noun, items.length, outcome.errors) } };
    if (isProtobuf(res)) res.status(200).type(PROTOBUF).send(kind.encodeProtobuf(answer));
    else res.status(200).json(answer);
  };
}

/** "2 of 5 spans rejected: span 1: …; span 4: …", the reasons in request order. */
function errorMessage(noun: string, total: number, errors: ItemError[]): string {
  const reasons = errors.slice(0, MAX_REASONS).map((error) => `${noun} ${error.index}: ${error.message}`);
  if (errors.length > MAX_REASONS) reasons.push(`and ${errors.length - MAX_REASONS} more`);
  return `${errors.length} of ${total} ${noun === 'span' ? 'spans' : 'log records'} rejected: ${reasons.join('; ')}`;
}

/** `POST /v1/otlp/v1/traces`: each span in request order, its resource and scope attributes merged under its own. */
export function exportTraces(bus: Bus): RequestHandler {
  return otlpExport(bus, {
    signal: 'spans',
    noun: 'span',
    message: 'ExportTraceServiceRequest',
    topic: Topics.spans,
    rejectedField: 'rejectedSpans',
    decodeProtobuf: decodeOtlpTraceRequest,
    encodeProtobuf: (answer) => encodeOtlpResponse('traces', answer),
    validate: validateOtlpTraceRequest,
    entries: otlpSpans,
    toRecord: ({ span, scope }, context) => {
      const item = otlpSpanItem(span, scope);
      return item.ok ? toSpanRecord(item.value, context) : item;
    },
  });
}

/** `POST /v1/otlp/v1/logs`: each log record as one log of POST /v1/logs. */
export function exportLogs(bus: Bus): RequestHandler {
  return otlpExport(bus, {
    signal: 'logs',
    noun: 'log record',
    message: 'ExportLogsServiceRequest',
    topic: Topics.logs,
    rejectedField: 'rejectedLogRecords',
    decodeProtobuf: decodeOtlpLogsRequest,
    encodeProtobuf: (answer) => encodeOtlpResponse('logs', answer),
    validate: validateOtlpLogsRequest,
    entries: otlpLogRecords,
    toRecord: ({ record, resource }, context) => {
      const item = otlpLogItem(record, resource);
      return item.ok ? toLogRecord(item.value, context) : item;
    },
  });
}
