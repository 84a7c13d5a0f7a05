/** Request-level ingest limits (SPEC.md Limits). */
export const MAX_BATCH_ITEMS = 500;
/** 2 MB request body; body-parser reads "2mb" as 2 * 1024 * 1024 bytes. */
export { MAX_BODY_BYTES } from '@tlm/core';
/** One item may not exceed 1 MiB serialized: larger ones are rejected, their neighbours kept. */
export const MAX_ITEM_BYTES = 1024 * 1024;
