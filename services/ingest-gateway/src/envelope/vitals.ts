import { Topics } from '@tlm/bus';
import { jsonPayload, processBatch, toVitalRecord } from '@tlm/signals';
import { countOutcome } from '../request';
import type { EnvelopeItemHandler } from './items';

/** The service's own `web_vital` item: one vital `{name, value, route}`, or `{items: [vital...]}`. */
export const webVitalItem: EnvelopeItemHandler = (item, context) => {
  const payload = jsonPayload(item);
  if (!payload.ok) return { rejected: payload.reason };
  const vitals = Array.isArray(payload.value['items']) ? (payload.value['items'] as unknown[]) : [payload.value];
  const outcome = processBatch(vitals, (vital) => toVitalRecord(vital, context.ingest));
  countOutcome('vitals', outcome);
  if (outcome.records.length === 0) return { rejected: `web_vital item: ${outcome.errors[0]?.message ?? 'no vitals'}` };
  return { routed: outcome.records.map((record) => ({ topic: Topics.vitals, record })) };
};
