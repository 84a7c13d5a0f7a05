import { Type, type Static } from '@sinclair/typebox';
import { newId } from '@tlm/core';
import { withClientProperties, type IngestContext } from './context';
import { flatProperties, type Properties } from './properties';
import { accept, type ItemResult } from './result';
import { itemTimestamp } from './time';
import { itemValidator } from './validation';

const DistinctId = Type.Union([Type.String({ maxLength: 400 }), Type.Number()]);

/** A product-analytics event as clients send it (SPEC.md "Event (ingest)"); both distinct id spellings. */
export const EventItemSchema = Type.Object({
  event: Type.String({ minLength: 1, maxLength: 400 }),
  distinctId: Type.Optional(DistinctId),
  distinct_id: Type.Optional(DistinctId),
  properties: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  timestamp: Type.Optional(Type.String({ format: 'iso-date-time' })),
});
export type EventItem = Static<typeof EventItemSchema>;

export interface EventRecord {
  id: string;
  projectId: string;
  /** Epoch milliseconds. */
  timestamp: number;
  receivedAt: number;
  /** The event name (`event` on the wire, `event_name` in GQL). */
  event: string;
  distinctId: string | null;
  properties: Properties;
  retentionDays: number;
}

const validateEventItem = itemValidator(EventItemSchema);

export function toEventRecord(input: unknown, context: IngestContext): ItemResult<EventRecord> {
  const checked = validateEventItem(input);
  if (!checked.ok) return checked;
  const item = checked.value;
  const timestamp = itemTimestamp(item.timestamp, context.receivedAt);
  if (!timestamp.ok) return timestamp;
  const flat = flatProperties(item.properties);
  if (!flat.ok) return flat;
  const properties = flat.value;
  // DECISIONS.md: both spellings are accepted and stored as properties.distinct_id; an empty one says nothing, so the
  // next spelling that holds an id is taken.
  const given = [item.distinctId, item.distinct_id, properties['distinct_id']].find((id) => id !== undefined && id !== '');
  const distinctId = given === undefined ? null : String(given);
  if (distinctId !== null) properties['distinct_id'] = distinctId;
  return accept({
    id: newId(),
    projectId: context.projectId,
    timestamp: timestamp.value,
    receivedAt: context.receivedAt,
    event: item.event,
    distinctId,
    properties: withClientProperties(properties, context.client),
    retentionDays: context.retentionDays,
  });
}
