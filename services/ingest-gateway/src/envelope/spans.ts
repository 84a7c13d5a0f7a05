import { Topics } from '@tlm/bus';
import { metrics } from '@tlm/core';
import { jsonPayload, processBatch, spanV2Item, spanV2Vitals, toSpanRecord, toVitalRecord, transactionParts, type PageRoutes } from '@tlm/signals';
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
  countVitals(vitals.records.length, vitals.errors.length);
  const routed: RoutedRecord[] = [root.value, ...children.records].map((record) => ({ topic: Topics.spans, record }));
  for (const record of vitals.records) routed.push({ topic: Topics.vitals, record });
  return { routed };
};

/** Page spans remembered per gateway process; a browser's later vital spans usually reach the same one. */
const MAX_PAGE_ROUTES = 10_000;
const pageRoutes = new Map<string, string>();

/** The project's page routes, forgetting the oldest beyond MAX_PAGE_ROUTES. */
const projectPageRoutes = (projectId: string): PageRoutes => ({
  get: (spanId) => pageRoutes.get(`${projectId}:${spanId}`),
  set: (spanId, route) => {
    if (pageRoutes.size >= MAX_PAGE_ROUTES) pageRoutes.delete(pageRoutes.keys().next().value!);
    pageRoutes.set(`${projectId}:${spanId}`, route);
  },
});

/**
 * `span` items (span v2, `{version: 2, items: [...]}`): accepted when at least one of its spans is. The web vitals
 * browser SDKs put on their spans become vitals too (`spanV2Vitals`); the spans are kept as they are.
 */
export const spanItem: EnvelopeItemHandler = (item, context) => {
  const payload = jsonPayload(item);
  if (!payload.ok) return { rejected: payload.reason };
  const spans = payload.value['items'];
  if (!Array.isArray(spans)) return { rejected: 'span item: the payload must be {"version": 2, "items": [...]}' };
  const items = spans.map(spanV2Item);
  const outcome = processBatch(items, (span) => toSpanRecord(span, context.ingest));
  countSpans(outcome.records.length, outcome.errors.length);
  if (outcome.records.length === 0) return { rejected: `span item: ${outcome.errors[0]?.message ?? 'no spans'}` };
  const vitals = processBatch(spanV2Vitals(items, projectPageRoutes(context.ingest.projectId)), (vital) => toVitalRecord(vital, context.ingest));
  countVitals(vitals.records.length, vitals.errors.length);
  const routed: RoutedRecord[] = outcome.records.map((record) => ({ topic: Topics.spans, record }));
  for (const record of vitals.records) routed.push({ topic: Topics.vitals, record });
  return { routed };
};

function countSpans(accepted: number, rejected: number): void {
  metrics.ingestItems.inc({ signal: 'spans', outcome: 'accepted' }, accepted);
  metrics.ingestItems.inc({ signal: 'spans', outcome: 'rejected' }, rejected);
}

function countVitals(accepted: number, rejected: number): void {
  metrics.ingestItems.inc({ signal: 'vitals', outcome: 'accepted' }, accepted);
  metrics.ingestItems.inc({ signal: 'vitals', outcome: 'rejected' }, rejected);
}
