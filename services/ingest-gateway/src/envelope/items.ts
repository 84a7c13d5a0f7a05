import type { ResolvedKey } from '@tlm/auth';
import type { BlobStore } from '@tlm/blob-store';
import type { Topic } from '@tlm/bus';
import type { EnvelopeItem, IngestContext, RecordingBudget } from '@tlm/signals';

/** A record an item produced and the topic it goes to. */
export interface RoutedRecord {
  topic: Topic;
  record: { projectId: string };
}

export interface EnvelopeItemContext {
  ingest: IngestContext;
  key: ResolvedKey;
  /** The envelope's header (event_id, dsn, sent_at, sdk…). */
  envelope: Record<string, unknown>;
  /** How many `event` items the envelope holds: the header's event_id names the event only when there is one. */
  eventItems: number;
  /** The request's User-Agent: a replay session's own when its event names none (browser SDKs send it as a header). */
  userAgent: string | undefined;
  /** Where replay recordings, profile chunks and attachments are stored before their rows are routed. */
  blobs: BlobStore;
  /** What the envelope's replay recordings may still inflate between them: the request's JSON budget and 100 MiB. */
  recordings: RecordingBudget;
}

/** What became of one item: its records, or why it was rejected (invalid) or skipped (a type nobody stores). */
export type ItemOutcome = { routed: RoutedRecord[] } | { rejected: string } | { skipped: string };

/** Turns one envelope item into records; may be async for items whose bodies go to the blob store. */
export type EnvelopeItemHandler = (item: EnvelopeItem, context: EnvelopeItemContext) => ItemOutcome | Promise<ItemOutcome>;

/** 1 MiB per item (DECISIONS.md); recordings, profiles and attachments may be larger. */
export const DEFAULT_ITEM_LIMIT_BYTES = 1024 * 1024;
export const LARGE_ITEM_LIMIT_BYTES = 10 * 1024 * 1024;
/** Whole envelope, inflated: room for one large item and the small ones beside it. */
export const MAX_ENVELOPE_BYTES = 20 * 1024 * 1024;
/**
 * Items one envelope may send to the blob store (replay recordings, profile chunks, attachments): each costs a
 * durable write, and 2,000 empty replay recordings in 1 KB of gzip took 5.4 s to store. Sentry SDKs send one
 * recording per envelope, and an event's attachments are a few.
 */
export const MAX_BLOB_ITEMS_PER_ENVELOPE = 100;

export interface ItemKind {
  handle: EnvelopeItemHandler;
  limitBytes: number;
  /** The payload is stored as bytes and never parsed (attachments): an inflated envelope does not charge it as JSON. */
  unparsed?: true;
  /** The payload goes to the blob store: MAX_BLOB_ITEMS_PER_ENVELOPE such items at most. */
  blob?: true;
}
