import { Type, type Static } from '@sinclair/typebox';
import type { LogItem, Severity } from '../logs';
import { accept, reject, type ItemResult } from '../result';
import { itemValidator } from '../validation';
import { OtlpEnum, OtlpKeyValueList, OtlpResourceSchema, OtlpScopeSchema, OtlpUint64, anyValue, attributesOf, nanosToMillis, optionalId } from './common';
import { scopeAttributes } from './traces';

/** `ExportLogsServiceRequest`: the structure is checked for the whole request, each log record on its own. */
export const OtlpLogsRequestSchema = Type.Object({
  resourceLogs: Type.Optional(
    Type.Array(
      Type.Object({
        resource: Type.Optional(OtlpResourceSchema),
        scopeLogs: Type.Optional(
          Type.Array(Type.Object({ scope: Type.Optional(OtlpScopeSchema), logRecords: Type.Optional(Type.Array(Type.Unknown())) })),
        ),
      }),
    ),
  ),
});
export type OtlpLogsRequest = Static<typeof OtlpLogsRequestSchema>;

/** One OTLP log record (opentelemetry/proto/logs/v1/logs.proto) as far as the service reads it. */
export const OtlpLogRecordSchema = Type.Object({
  timeUnixNano: Type.Optional(OtlpUint64),
  observedTimeUnixNano: Type.Optional(OtlpUint64),
  severityNumber: Type.Optional(OtlpEnum),
  severityText: Type.Optional(Type.String()),
  body: Type.Optional(Type.Unknown()),
  attributes: Type.Optional(OtlpKeyValueList),
  eventName: Type.Optional(Type.String()),
  traceId: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  spanId: Type.Optional(Type.Union([Type.String(), Type.Null()])),
});

export const validateOtlpLogsRequest = itemValidator(OtlpLogsRequestSchema);
const validateOtlpLogRecord = itemValidator(OtlpLogRecordSchema);

/** Every log record of a request in order, each with the attributes of its resource and scope. */
export function otlpLogRecords(request: OtlpLogsRequest): { record: unknown; resource: Record<string, unknown> }[] {
  const records: { record: unknown; resource: Record<string, unknown> }[] = [];
  for (const resourceLogs of request.resourceLogs ?? []) {
    const resource = attributesOf(resourceLogs.resource?.attributes);
    for (const scopeLogs of resourceLogs.scopeLogs ?? []) {
      const attributes = { ...resource, ...scopeAttributes(scopeLogs.scope) };
      for (const record of scopeLogs.logRecords ?? []) records.push({ record, resource: attributes });
    }
  }
  return records;
}

/** SeverityNumber ranges of the OpenTelemetry log data model: 1–4 TRACE … 21–24 FATAL. */
const SEVERITY_RANGES: [number, Severity][] = [
  [4, 'debug'],
  [8, 'debug'],
  [12, 'info'],
  [16, 'warn'],
  [20, 'error'],
  [24, 'fatal'],
];

const SEVERITY_TEXTS: Record<string, Severity> = {
  trace: 'debug',
  debug: 'debug',
  info: 'info',
  information: 'info',
  notice: 'info',
  warn: 'warn',
  warning: 'warn',
  error: 'error',
  err: 'error',
  critical: 'fatal',
  fatal: 'fatal',
  alert: 'fatal',
  emergency: 'fatal',
};

/** The largest time a JavaScript Date holds. */
const MAX_DATE_MS = 8.64e15;

const SEVERITY_NAME = /^SEVERITY_NUMBER_([A-Z]+)\d?$/;

/** The severity of a record: its number when set, else its text, else `info` (the data model's "unspecified"). */
export function otlpSeverity(severityNumber: number | string | undefined, severityText: string | undefined): Severity {
  if (typeof severityNumber === 'number' && severityNumber > 0) {
    return SEVERITY_RANGES.find(([upTo]) => severityNumber <= upTo)?.[1] ?? 'fatal';
  }
  // SEVERITY_NUMBER_UNSPECIFIED names no severity, as the number 0 does: the text decides then.
  const named = typeof severityNumber === 'string' ? SEVERITY_NAME.exec(severityNumber)?.[1]?.toLowerCase() : undefined;
  const text = (named === 'unspecified' ? undefined : named) ?? severityText?.trim().toLowerCase() ?? '';
  return SEVERITY_TEXTS[text] ?? 'info';
}

/**
 * An OTLP log record as one of our log items: the body is the message (structured bodies as JSON text), resource,
 * scope and record attributes are the properties (the record's win), the record time or else the observed time.
 */
export function otlpLogItem(input: unknown, resource: Record<string, unknown>): ItemResult<LogItem> {
  const checked = validateOtlpLogRecord(input);
  if (!checked.ok) return checked;
  const record = checked.value;
  const body = anyValue(record.body);
  const time = nanosToMillis(record.timeUnixNano) ?? nanosToMillis(record.observedTimeUnixNano);
  // Beyond the year 275760 there is no Date; the log check rejects far-future times with its own reason.
  if (time !== undefined && time > MAX_DATE_MS) return reject('timeUnixNano is out of range');
  const properties: Record<string, unknown> = { ...resource, ...attributesOf(record.attributes) };
  if (record.eventName) properties['event.name'] = record.eventName;
  const traceId = optionalId(record.traceId);
  const spanId = optionalId(record.spanId);
  return accept({
    severity: otlpSeverity(record.severityNumber, record.severityText),
    message: body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body),
    properties,
    ...(time === undefined ? {} : { timestamp: new Date(Math.floor(time)).toISOString() }),
    ...(traceId === undefined ? {} : { trace_id: traceId as string }),
    ...(spanId === undefined ? {} : { span_id: spanId as string }),
  });
}
