import { Topics } from '@tlm/bus';
import { jsonPayload, processBatch, toEventRecord } from '@tlm/signals';
import { countOutcome } from '../request';
import type { EnvelopeItemHandler } from './items';

/** The service's own `analytics_event` item: one event, or `{items: [event...]}`, as POST /v1/events takes them. */
export const analyticsEventItem: EnvelopeItemHandler = (item, context) => {
  const payload = jsonPayload(item);
  if (!payload.ok) return { rejected: payload.reason };
  const events = Array.isArray(payload.value['items']) ? (payload.value['items'] as unknown[]) : [payload.value];
  const outcome = processBatch(events, (event) => toEventRecord(event, context.ingest));
  countOutcome('events', outcome);
  if (outcome.records.length === 0) return { rejected: outcome.errors[0]?.message ?? 'analytics_event item: no events' };
  return { routed: outcome.records.map((record) => ({ topic: Topics.events, record })) };
};
