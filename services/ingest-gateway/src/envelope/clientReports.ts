import { metrics } from '@tlm/core';
import { jsonPayload } from '@tlm/signals';
import type { EnvelopeItemHandler } from './items';

/** Sentry's discard reasons (develop.sentry.dev, client reports); any other value is counted as `other`. */
const DISCARD_REASONS = new Set([
  'queue_overflow',
  'cache_overflow',
  'buffer_overflow',
  'ratelimit_backoff',
  'network_error',
  'sample_rate',
  'before_send',
  'event_processor',
  'send_error',
  'internal_sdk_error',
  'insufficient_data',
  'backpressure',
]);

/** Sentry's data categories; any other value is counted as `other`. */
const DATA_CATEGORIES = new Set([
  'default',
  'error',
  'transaction',
  'security',
  'attachment',
  'session',
  'internal',
  'profile',
  'profile_chunk',
  'profile_chunk_ui',
  'replay',
  'span',
  'monitor',
  'feedback',
  'user_report',
  'log_item',
  'log_byte',
  'metric_bucket',
  'statsd',
]);

/** A label value from a known set: labels named by SDK input would grow a series per distinct string sent. */
const known = (values: Set<string>, value: unknown): string => (typeof value === 'string' && values.has(value) ? value : 'other');

/** `client_report` items say what the SDK dropped; they are kept as a metric, not as rows. */
export const clientReportItem: EnvelopeItemHandler = (item) => {
  const payload = jsonPayload(item);
  if (!payload.ok) return { rejected: payload.reason };
  const events = payload.value['discarded_events'];
  for (const event of Array.isArray(events) ? events : []) {
    const { reason, category, quantity } = (event ?? {}) as { reason?: unknown; category?: unknown; quantity?: unknown };
    if (typeof quantity === 'number' && quantity > 0) {
      metrics.sdkDiscardedEvents.inc({ reason: known(DISCARD_REASONS, reason), category: known(DATA_CATEGORIES, category) }, quantity);
    }
  }
  return { routed: [] };
};
