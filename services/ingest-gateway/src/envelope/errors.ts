import { Topics } from '@tlm/bus';
import { isEventId, jsonPayload, toErrorRecord } from '@tlm/signals';
import type { EnvelopeItemHandler } from './items';

/**
 * An `event` item: one Sentry error or message event, published to the errors topic for the issues processor. The
 * envelope header's event_id, when it has one, is the event's id (a retried envelope keeps it), and its `sent_at`
 * corrects the client's clock.
 */
export const errorEventItem: EnvelopeItemHandler = (item, context) => {
  const payload = jsonPayload(item);
  if (!payload.ok) return { rejected: payload.reason };
  const event = payload.value;
  // The header's id is the one the answer names and attachments are stored under, so it is the event's when the
  // envelope holds one event, as Sentry's do; the events of an envelope of several keep their own ids (or get fresh
  // ones), so they never collapse into one.
  const headerId = context.envelope['event_id'];
  if (context.eventItems === 1 && isEventId(headerId)) event['event_id'] = headerId;
  const record = toErrorRecord(event, context.ingest, { sentAt: context.envelope['sent_at'] });
  if (!record.ok) return { rejected: `event item: ${record.reason}` };
  return { routed: [{ topic: Topics.errors, record: record.value }] };
};
