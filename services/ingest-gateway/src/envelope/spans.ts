import { Topics } from '@tlm/bus';
import { metrics } from '@tlm/core';
import { jsonPayload, processBatch, spanV2Item, toSpanRecord, toVitalRecord, transactionParts } from '@tlm/signals';
import type { EnvelopeItemHandler, RoutedRecord } from './items';

/**
 * `transaction` items: the transaction becomes its root span and each finished child span a span; the Core Web
 * Vitals among a browser transaction's measurements become vitals. A bad root rejects the item; a bad child span
 * or measurement is dropped and counted, and its neighbours are kept.
 */
export const transactionItem: EnvelopeItemHandler = (item, context) => {
  const payload = jsonPayload(item);
  if (!payload.ok) return { rejected: payload.reason };
  const parts = transactionParts(payload.value);
  if (!parts.ok) return { rejected: `transaction item: ${parts.reason}` };
  const root = toSpanRecord(parts.value.root, context.ingest);
  if (!root.ok) return { rejected: `transaction item: ${root.reason}` };
  const children = processBatch(parts.value.children, (span) => toSpanRecord(span, context.ingest));
  const vitals = processBatch(parts.value.vitals, (vital) => toVitalRecord(vital, context.ingest));
  countSpans(1 + children.records.length, children.errors.length);
  metrics.ingestItems.inc({ signal: 'vitals', outcome: 'accepted' }, vitals.records.length);
  metrics.ingestItems.inc({ signal: 'vitals', outcome: 'rejected' }, vitals.errors.length);
  const routed: RoutedRecord[] = [root.value, ...children.records].map((record) => ({ topic: Topics.spans, record }));
  for (const record of vitals.records) routed.push({ topic: Topics.vitals, record });
  return { routed };
};

/** `span` items (span v2, `{version: 2, items: [...]}`): accepted when at least one of its spans is. */
export const spanItem: EnvelopeItemHandler = (item, context) => {
  const payload = jsonPayload(item);
  if (!payload.ok) return { rejected: payload.reason };
  const spans = payload.value['items'];
  if (!Array.isArray(spans)) return { rejected: 'span item: the payload must be {"version": 2, "items": [...]}' };
  const outcome = processBatch(spans, (span) => toSpanRecord(spanV2Item(span), context.ingest));
  countSpans(outcome.records.length, outcome.errors.length);
  if (outcome.records.length === 0) return { rejected: `span item: ${outcome.errors[0]?.message ?? 'no spans'}` };
  return { routed: outcome.records.map((record) => ({ topic: Topics.spans, record })) };
};

function countSpans(accepted: number, rejected: number): void {
  metrics.ingestItems.inc({ signal: 'spans', outcome: 'accepted' }, accepted);
  metrics.ingestItems.inc({ signal: 'spans', outcome: 'rejected' }, rejected);
}
