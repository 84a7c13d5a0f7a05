import { Type, type Static } from '@sinclair/typebox';
import { StringEnum, newId } from '@tlm/core';
import { withClientProperties, type IngestContext } from './context';
import { flatProperties, type Properties } from './properties';
import { accept, type ItemResult } from './result';
import { itemTimestamp } from './time';
import { itemValidator } from './validation';

export const VITAL_NAMES = ['lcp', 'inp', 'cls', 'fcp', 'ttfb'] as const;
export type VitalName = (typeof VITAL_NAMES)[number];

export const VITAL_RATINGS = ['good', 'needs-improvement', 'poor'] as const;
export type VitalRating = (typeof VITAL_RATINGS)[number];

/**
 * The published Core Web Vitals thresholds (web.dev): a value up to `good` is good, up to `poor` needs improvement,
 * above it is poor. Milliseconds, except CLS, which has no unit.
 */
export const VITAL_THRESHOLDS: Record<VitalName, { good: number; poor: number }> = {
  lcp: { good: 2_500, poor: 4_000 },
  inp: { good: 200, poor: 500 },
  cls: { good: 0.1, poor: 0.25 },
  fcp: { good: 1_800, poor: 3_000 },
  ttfb: { good: 800, poor: 1_800 },
};

export function rateVital(name: VitalName, value: number): VitalRating {
  const { good, poor } = VITAL_THRESHOLDS[name];
  if (value <= good) return 'good';
  return value <= poor ? 'needs-improvement' : 'poor';
}

/** The service's own `web_vital` envelope item (one vital); a client's own `rating` is ignored and recomputed. */
export const WebVitalItemSchema = Type.Object({
  name: StringEnum(VITAL_NAMES, { description: 'case-insensitive' }),
  value: Type.Number({ minimum: 0, description: 'milliseconds; CLS has no unit' }),
  route: Type.String({ minLength: 1, maxLength: 2_048 }),
  timestamp: Type.Optional(Type.String({ format: 'iso-date-time' })),
  trace_id: Type.Optional(Type.String({ format: 'trace-id' })),
  release: Type.Optional(Type.String()),
  environment: Type.Optional(Type.String()),
  properties: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});
export type WebVitalItem = Static<typeof WebVitalItemSchema>;

export interface VitalRecord {
  id: string;
  projectId: string;
  /** Epoch milliseconds. */
  timestamp: number;
  receivedAt: number;
  name: VitalName;
  value: number;
  route: string;
  rating: VitalRating;
  traceId: string | null;
  release: string | null;
  environment: string | null;
  /** The item's properties and the server-injected `$browser`, `$os`, `$device`, `$ip`. */
  properties: Properties;
  retentionDays: number;
}

const validateWebVitalItem = itemValidator(WebVitalItemSchema);

export function toVitalRecord(input: unknown, context: IngestContext): ItemResult<VitalRecord> {
  const checked = validateWebVitalItem(withLowerCaseName(input));
  if (!checked.ok) return checked;
  const item = checked.value;
  const timestamp = itemTimestamp(item.timestamp, context.receivedAt);
  if (!timestamp.ok) return timestamp;
  const flat = flatProperties(item.properties);
  if (!flat.ok) return flat;
  const properties = flat.value;
  return accept({
    id: newId(),
    projectId: context.projectId,
    timestamp: timestamp.value,
    receivedAt: context.receivedAt,
    name: item.name,
    value: item.value,
    route: item.route,
    rating: rateVital(item.name, item.value),
    traceId: item.trace_id?.toLowerCase() ?? context.traceId ?? null,
    release: item.release || null,
    environment: item.environment || null,
    properties: withClientProperties(properties, context.client),
    retentionDays: context.retentionDays,
  });
}

/** web-vitals reports `LCP`, Sentry `lcp`: names compare case-insensitively. */
function withLowerCaseName(input: unknown): unknown {
  if (!input || typeof input !== 'object' || typeof (input as { name?: unknown }).name !== 'string') return input;
  return { ...input, name: (input as { name: string }).name.toLowerCase() };
}
