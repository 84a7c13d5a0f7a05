import { Topics } from '@tlm/bus';
import { jsonPayload, toSessionAggregateRecords, toSessionRecord, type ItemResult, type SessionRecord } from '@tlm/signals';
import type { EnvelopeItemHandler, ItemOutcome } from './items';

function routed(result: ItemResult<SessionRecord | SessionRecord[]>, type: string): ItemOutcome {
  if (!result.ok) return { rejected: `${type} item: ${result.reason}` };
  const records = Array.isArray(result.value) ? result.value : [result.value];
  return { routed: records.map((record) => ({ topic: Topics.sessions, record })) };
}

/** A `session` item: one session's state; its later updates replace it. */
export const sessionItem: EnvelopeItemHandler = (item, context) => {
  const payload = jsonPayload(item);
  if (!payload.ok) return { rejected: payload.reason };
  return routed(toSessionRecord(payload.value, context.ingest), 'session');
};

/** A `sessions` item: request-mode session counts per started minute. */
export const sessionAggregatesItem: EnvelopeItemHandler = (item, context) => {
  const payload = jsonPayload(item);
  if (!payload.ok) return { rejected: payload.reason };
  return routed(toSessionAggregateRecords(payload.value, context.ingest), 'sessions');
};
