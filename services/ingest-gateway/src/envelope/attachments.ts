import { attachmentKey } from '@tlm/blob-store';
import { Topics } from '@tlm/bus';
import { toAttachmentRecord } from '@tlm/signals';
import type { EnvelopeItemHandler } from './items';

/**
 * `attachment`: a file an SDK sends beside an error event, in the event's envelope. The bytes are stored as sent
 * before the row that names them is routed.
 */
export const attachmentItem: EnvelopeItemHandler = async (item, context) => {
  const { ingest } = context;
  const keyOf = (eventId: string, attachmentId: string) => attachmentKey(ingest.projectId, ingest.receivedAt, eventId, attachmentId);
  const record = toAttachmentRecord(item.header, context.envelope, item.payload.length, keyOf, ingest);
  if (!record.ok) return { rejected: record.reason };
  await context.blobs.put(record.value.blobKey, item.payload);
  return { routed: [{ topic: Topics.attachments, record: record.value }] };
};
