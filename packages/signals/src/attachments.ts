import { namedUuid } from '@tlm/core';
import type { IngestContext } from './context';
import type { EnvelopeItemHeader } from './envelope';
import { eventIdAsUuid, isEventId } from './errors';
import { accept, reject, type ItemResult } from './result';

/**
 * A file sent beside an error event (Sentry's `attachment` envelope item: a log file, a screenshot, a minidump); its
 * bytes are in the blob store, this is its metadata.
 */
export interface AttachmentRecord {
  projectId: string;
  /** Named by the event and the file name, so an SDK's retry of the envelope replaces the same attachment. */
  id: string;
  /** The event's id in UUID form, as the error row stores it. */
  eventId: string;
  filename: string;
  contentType: string;
  /** Sentry's `attachment_type`: `event.attachment` unless the SDK names another (`event.minidump`…). */
  attachmentType: string;
  sizeBytes: number;
  blobKey: string;
  receivedAt: number;
  retentionDays: number;
}

const MAX_FILENAME_LENGTH = 255;
const MAX_TYPE_LENGTH = 128;
const DEFAULT_CONTENT_TYPE = 'application/octet-stream';
const DEFAULT_ATTACHMENT_TYPE = 'event.attachment';
/** A MIME type as HTTP sends it back: printable ASCII `type/subtype`, parameters allowed (RFC 9110). */
const MEDIA_TYPE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+\/[!#$%&'*+.^_`|~0-9A-Za-z-]+(?:\s*;[\x20-\x7e]*)?$/;

function optionalText(header: EnvelopeItemHeader, name: string, fallback: string, pattern?: RegExp): ItemResult<string> {
  const value = header[name];
  if (value === undefined || value === null || value === '') return accept(fallback);
  if (typeof value !== 'string' || value.length > MAX_TYPE_LENGTH) return reject(`attachment item: ${name} must be text of at most ${MAX_TYPE_LENGTH} characters`);
  if (pattern && !pattern.test(value)) return reject(`attachment item: ${name} must be a media type such as text/plain`);
  return accept(value);
}

/**
 * The metadata of an `attachment` item: the event it belongs to comes from the envelope header's `event_id` (Sentry
 * sends attachments in the envelope of their event), the file name from the item header. `blobKeyOf` names where the
 * body goes, from the event's and the attachment's ids.
 */
export function toAttachmentRecord(
  header: EnvelopeItemHeader,
  envelopeHeader: Record<string, unknown>,
  sizeBytes: number,
  blobKeyOf: (eventId: string, attachmentId: string) => string,
  context: IngestContext,
): ItemResult<AttachmentRecord> {
  const eventId = envelopeHeader['event_id'];
  if (!isEventId(eventId)) {
    return reject('attachment item: the envelope header has no event_id (32 hex digits) to attach it to');
  }
  const filename = header['filename'];
  if (typeof filename !== 'string' || filename.length === 0 || filename.length > MAX_FILENAME_LENGTH) {
    return reject(`attachment item: filename is required, at most ${MAX_FILENAME_LENGTH} characters`);
  }
  const contentType = optionalText(header, 'content_type', DEFAULT_CONTENT_TYPE, MEDIA_TYPE);
  if (!contentType.ok) return contentType;
  const attachmentType = optionalText(header, 'attachment_type', DEFAULT_ATTACHMENT_TYPE);
  if (!attachmentType.ok) return attachmentType;
  const event = eventIdAsUuid(eventId);
  const id = namedUuid(`attachment\u0000${context.projectId}\u0000${event}\u0000${filename}`);
  return accept({
    projectId: context.projectId,
    id,
    eventId: event,
    filename,
    contentType: contentType.value,
    attachmentType: attachmentType.value,
    sizeBytes,
    blobKey: blobKeyOf(event, id),
    receivedAt: context.receivedAt,
    retentionDays: context.retentionDays,
  });
}
