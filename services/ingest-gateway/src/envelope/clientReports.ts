import { metrics } from '@tlm/core';
import { jsonPayload } from '@tlm/signals';
import type { EnvelopeItemHandler } from './items';

/** `client_report` items say what the SDK dropped; they are kept as a metric, not as rows. */
export const clientReportItem: EnvelopeItemHandler = (item) => {
  const payload = jsonPayload(item);
  if (!payload.ok) return { rejected: payload.reason };
  const events = payload.value['discarded_events'];
  for (const event of Array.isArray(events) ? events : []) {
    const { reason, category, quantity } = (event ?? {}) as { reason?: unknown; category?: unknown; quantity?: unknown };
    if (typeof quantity === 'number' && quantity > 0) metrics.sdkDiscardedEvents.inc({ reason: String(reason), category: String(category) }, quantity);
  }
  return { routed: [] };
};
