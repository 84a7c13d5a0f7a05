import { Type, type Static, type TSchema } from '@sinclair/typebox';

/** Request-level ingest limits (SPEC.md Limits). */
export const MAX_BATCH_ITEMS = 500;
/** 2 MB request body; body-parser reads "2mb" as 2 * 1024 * 1024 bytes. */
export { MAX_BODY_BYTES } from '@tlm/core';
/** One item may not exceed 1 MiB serialized: larger ones are rejected, their neighbours kept. */
export const MAX_ITEM_BYTES = 1024 * 1024;

/**
 * The body of /v1/logs and /v1/events: a JSON object with a `batch` of at most MAX_BATCH_ITEMS items. The route
 * registry describes it with `item` the schema each item is checked with; the gateway checks the whole request with
 * `IngestBatch` first (a refusal fails the request), then every item on its own (a bad item is rejected alone).
 */
export const batchOf = <T extends TSchema>(item: T) =>
  Type.Object({ batch: Type.Array(item, { maxItems: MAX_BATCH_ITEMS, description: `At most ${MAX_BATCH_ITEMS} items; invalid items are rejected one by one` }) });
export const IngestBatch = batchOf(Type.Unknown());
export type IngestBatch = Static<typeof IngestBatch>;
