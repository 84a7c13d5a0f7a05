import { Topics } from '@tlm/bus';
import { jsonPayload, toErrorRecord } from '@tlm/signals';
import type { EnvelopeItemHandler } from './items';

/**
 * An `event` item: one Sentry error or message event, published to the errors topic for the issues processor. The
 * envelope header's event_id stands in for a payload without one, so a retried envelope keeps its id.
 */
export const errorEventItem: EnvelopeItemHandler = (item, context) => {
  const payload = jsonPayload(item);
  if (!payload.ok) return { rejected: payload.reason };
  const event = payload.value;
  if (event['event_id'] === undefined && typeof context.envelope['event_id'] === 'string') event['event_id'] = context.envelope['event_id'];
  const record = toErrorRecord(event, context.ingest);
  if (!record.ok) return { rejected: `event item: ${record.reason}` };
  return { routed: [{ topic: Topics.errors, record: record.value }] };
};
