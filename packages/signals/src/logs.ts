import { Type, type Static } from '@sinclair/typebox';
import { StringEnum, newId } from '@tlm/core';
import type { IngestContext } from './context';
import { withClientProperties } from './context';
import { flattenInto, propertyProblem, type Properties } from './properties';
import { accept, reject, type ItemResult } from './result';
import { itemTimestamp } from './time';
import { itemValidator } from './validation';

export const SEVERITIES = ['debug', 'info', 'warn', 'error', 'fatal'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** 64 KB per message (SPEC.md Limits), counted in UTF-8 bytes. */
export const MAX_LOG_MESSAGE_BYTES = 64 * 1024;

const AnyObject = Type.Record(Type.String(), Type.Unknown());

/** A log entry as clients send it (SPEC.md "Log entry (ingest)"), legacy fields included. */
export const LogItemSchema = Type.Object({
  severity: StringEnum([...SEVERITIES, 'warning'], { description: "'warning' is accepted as 'warn'" }),
  message: Type.String(),
  properties: Type.Optional(AnyObject),
  timestamp: Type.Optional(Type.String({ format: 'iso-date-time' })),
  metadata: Type.Optional(AnyObject),
  context: Type.Optional(AnyObject),
  code_location: Type.Optional(Type.Union([Type.String(), AnyObject])),
  trace_id: Type.Optional(Type.String({ pattern: '^[0-9a-fA-F]{32}$' })),
  span_id: Type.Optional(Type.String({ pattern: '^[0-9a-fA-F]{16}$' })),
});
export type LogItem = Static<typeof LogItemSchema>;

/** A log entry as the platform carries it on the bus. */
export interface LogRecord {
  id: string;
  projectId: string;
  /** Epoch milliseconds. */
  timestamp: number;
  receivedAt: number;
  severity: Severity;
  message: string;
  properties: Properties;
  traceId: string | null;
  spanId: string | null;
  retentionDays: number;
}

const validateLogItem = itemValidator(LogItemSchema);

export function toLogRecord(input: unknown, context: IngestContext): ItemResult<LogRecord> {
  const checked = validateLogItem(input);
  if (!checked.ok) return checked;
  const item = checked.value;
  if (Buffer.byteLength(item.message, 'utf8') > MAX_LOG_MESSAGE_BYTES) {
    return reject(`message exceeds ${MAX_LOG_MESSAGE_BYTES} bytes`);
  }
  const timestamp = itemTimestamp(item.timestamp, context.receivedAt);
  if (!timestamp.ok) return timestamp;
  const properties = logProperties(item);
  const problem = propertyProblem(properties);
  if (problem) return reject(problem);
  return accept({
    id: newId(),
    projectId: context.projectId,
    timestamp: timestamp.value,
    receivedAt: context.receivedAt,
    severity: item.severity === 'warning' ? 'warn' : item.severity,
    message: item.message,
    properties: withClientProperties(properties, context.client),
    traceId: item.trace_id?.toLowerCase() ?? context.traceId ?? null,
    spanId: item.span_id?.toLowerCase() ?? null,
    retentionDays: context.retentionDays,
  });
}

/** Legacy `metadata` and `context` are flattened first so that explicit `properties` win on a clash. */
function logProperties(item: LogItem): Properties {
  const properties: Properties = {};
  if (item.metadata) flattenInto(properties, item.metadata);
  if (item.context) flattenInto(properties, item.context);
  if (item.code_location !== undefined) properties['code_location'] = codeLocation(item.code_location);
  if (item.properties) flattenInto(properties, item.properties);
  return properties;
}

/** `code_location` is stored as the string the clients print: function@file:line. */
function codeLocation(value: string | Record<string, unknown>): string {
  if (typeof value === 'string') return value;
  const fn = value['function'] ?? value['func'] ?? '?';
  const file = value['file'] ?? value['filename'] ?? '?';
  const line = value['line'] ?? value['lineno'];
  return `${String(fn)}@${String(file)}${line === undefined ? '' : `:${String(line)}`}`;
}
