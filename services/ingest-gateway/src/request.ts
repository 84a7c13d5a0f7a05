import type { ResolvedKey } from '@tlm/auth';
import type { Bus, Topic } from '@tlm/bus';
import { matches, metrics, validationError } from '@tlm/core';
import { IngestBatch, MAX_BATCH_ITEMS, MAX_ITEM_BYTES, clientProperties, reject, type BatchOutcome, type IngestContext, type ItemResult } from '@tlm/signals';
import type { Request } from 'express';

/** W3C Trace Context: version, trace id, parent id, flags; versions after 00 may append fields. */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}(-.*)?$/;

/**
 * Trace id of a W3C `traceparent` header, or undefined when absent or invalid: version ff, an all-zero trace or
 * parent id, or a version 00 header with more after the flags.
 */
export function traceIdOf(header: string | undefined): string | undefined {
  const match = TRACEPARENT.exec(header?.trim().toLowerCase() ?? '');
  if (!match || match[1] === 'ff' || /^0+$/.test(match[2]!) || /^0+$/.test(match[3]!)) return undefined;
  if (match[1] === '00' && match[4] !== undefined) return undefined;
  return match[2];
}

export function ingestContext(req: Request, key: ResolvedKey): IngestContext {
  return {
    projectId: key.projectId,
    retentionDays: key.retentionDays,
    receivedAt: Date.now(),
    client: clientProperties(req.get('user-agent'), req.ip),
    traceId: traceIdOf(req.get('traceparent')),
  };
}

/**
 * The `batch` array of an ingest body, checked with `IngestBatch` (the form the route registry describes): a body of
 * another shape or over MAX_BATCH_ITEMS items fails the whole request.
 */
export function batchItems(body: unknown): unknown[] {
  if (matches(IngestBatch, body)) return (body as IngestBatch).batch;
  const batch = (body as { batch?: unknown } | null)?.batch;
  // The schema refuses a batch for its size or for the body's shape; the size has its own answer.
  if (Array.isArray(batch) && !Array.isArray(body)) withinBatchLimit(batch);
  throw validationError('request body must be a JSON object with a "batch" array');
}

/** The items of one request, or 400 VALIDATION_ERROR for the whole request when they are more than 500. */
export function withinBatchLimit(items: unknown[]): unknown[] {
  if (items.length > MAX_BATCH_ITEMS) {
    throw validationError(`batch holds ${items.length} items; at most ${MAX_BATCH_ITEMS} are accepted per request`, {
      limit: MAX_BATCH_ITEMS,
      received: items.length,
    });
  }
  return items;
}

/** Publishes a batch's valid records under their project and counts what was accepted and rejected. */
export async function publishOutcome<R extends { projectId: string }>(
  bus: Bus,
  signal: string,
  topic: Topic,
  outcome: BatchOutcome<R>,
): Promise<void> {
  await bus.publish(
    topic,
    outcome.records.map((record) => ({ key: record.projectId, value: record })),
  );
  countOutcome(signal, outcome);
}

/** Adds a batch's accepted and rejected items to `tlm_ingest_items_total` under its signal (once per batch). */
export function countOutcome(signal: string, outcome: { records: unknown[]; errors: unknown[] }): void {
  metrics.ingestItems.inc({ signal, outcome: 'accepted' }, outcome.records.length);
  metrics.ingestItems.inc({ signal, outcome: 'rejected' }, outcome.errors.length);
}

/**
 * `toRecord` behind the per-item size limit (DECISIONS.md: an item over 1 MiB serialized is rejected, its neighbours
 * kept). Only a body over 1 MiB can hold such an item, so smaller bodies skip the measuring.
 */
export function withinItemSize<R>(bodyLength: number, toRecord: (item: unknown) => ItemResult<R>): (item: unknown) => ItemResult<R> {
  if (bodyLength <= MAX_ITEM_BYTES) return toRecord;
  return (item) => (Buffer.byteLength(JSON.stringify(item)) > MAX_ITEM_BYTES ? reject(`item exceeds ${MAX_ITEM_BYTES} bytes`) : toRecord(item));
}
