import { Topics } from '@tlm/bus';
import { processBatch, reject, toLogRecord, type ItemResult, type LogRecord } from '@tlm/signals';
import { jsonPayload } from '@tlm/signals';
import { countOutcome } from '../request';
import type { EnvelopeItemHandler } from './items';

const SENTRY_LEVELS: Record<string, string> = { trace: 'debug', debug: 'debug', info: 'info', warn: 'warn', warning: 'warn', error: 'error', fatal: 'fatal' };

/**
 * A Sentry structured log (`{timestamp, level, body, trace_id, attributes: {name: {value, type}}}`) as one of our log
 * items; our own shape (`{severity, message, properties}`) passes through unchanged.
 */
function asLogItem(item: unknown): unknown {
  if (!item || typeof item !== 'object' || !('body' in item) || 'message' in item) return item;
  const sentry = item as { timestamp?: unknown; level?: unknown; body?: unknown; trace_id?: unknown; span_id?: unknown; attributes?: unknown };
  const properties: Record<string, unknown> = {};
  if (sentry.attributes && typeof sentry.attributes === 'object') {
    for (const [name, attribute] of Object.entries(sentry.attributes as Record<string, unknown>)) {
      properties[name] = attribute && typeof attribute === 'object' && 'value' in attribute ? (attribute as { value: unknown }).value : attribute;
    }
  }
  return {
    severity: SENTRY_LEVELS[String(sentry.level)] ?? sentry.level,
    message: sentry.body,
    properties,
    ...(typeof sentry.timestamp === 'number' ? { timestamp: new Date(sentry.timestamp * 1000).toISOString() } : {}),
    ...(typeof sentry.trace_id === 'string' && sentry.trace_id.length === 32 ? { trace_id: sentry.trace_id } : {}),
    ...(typeof sentry.span_id === 'string' && sentry.span_id.length === 16 ? { span_id: sentry.span_id } : {}),
  };
}

/**
 * `log` items (payload `{items: [log...]}`): each log is checked like one of POST /v1/logs; the item counts as
 * accepted when at least one of its logs is. Public keys need the project's "Allow browser logs" (DECISIONS.md).
 */
export const logItem: EnvelopeItemHandler = (item, context) => {
  if (context.key.type === 'public' && !context.key.allowBrowserLogs) {
    return { rejected: "CORS blocked: enable 'Allow browser logs' for this project" };
  }
  const payload = jsonPayload(item);
  if (!payload.ok) return { rejected: payload.reason };
  const logs = payload.value['items'];
  if (!Array.isArray(logs)) return { rejected: 'log item: the payload must be {"items": [...]}' };
  const outcome = processBatch(logs, (log): ItemResult<LogRecord> => {
    const record = toLogRecord(asLogItem(log), context.ingest);
    return record.ok ? record : reject(record.reason);
  });
  countOutcome('logs', outcome);
  if (outcome.records.length === 0) return { rejected: outcome.errors[0]?.message ?? 'log item: no logs' };
  return { routed: outcome.records.map((record) => ({ topic: Topics.logs, record })) };
};
