import type { ResolvedKey } from '@tlm/auth';
import type { BlobStore } from '@tlm/blob-store';
import type { Topic } from '@tlm/bus';
import type { JsonBudget } from '@tlm/core';
import type { EnvelopeItem, IngestContext } from '@tlm/signals';

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
  /** What the request may still have parsed out of decompressed bytes: a replay recording's gzip is charged to it. */
  budget: JsonBudget;
}

/** What became of one item: its records, or why it was rejected (invalid) or skipped (a type nobody stores). */
export type ItemOutcome = { routed: RoutedRecord[] } | { rejected: string } | { skipped: string };

/** Turns one envelope item into records; may be async for items whose bodies go to the blob store. */
export type EnvelopeItemHandler = (item: EnvelopeItem, context: EnvelopeItemContext) => ItemOutcome | Promise<ItemOutcome>;

/** 1 MiB per item (DECISIONS.md and issue 4); recordings, profiles and attachments may be larger. */
export const DEFAULT_ITEM_LIMIT_BYTES = 1024 * 1024;
export const LARGE_ITEM_LIMIT_BYTES = 10 * 1024 * 1024;
/** Whole envelope, inflated: room for one large item and the small ones beside it. */
export const MAX_ENVELOPE_BYTES = 20 * 1024 * 1024;

export interface ItemKind {
  handle: EnvelopeItemHandler;
  limitBytes: number;
  /** The payload is stored as bytes and never parsed (attachments): an inflated envelope does not charge it as JSON. */
  unparsed?: true;
}
