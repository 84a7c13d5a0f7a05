/**
 * The web vitals as the server rates them: names, units and the published Core Web Vitals thresholds (web.dev).
 * The thresholds mirror VITAL_THRESHOLDS and rateVital in packages/signals/src/vitals.ts, which rate each stored
 * vital at ingest; change both together (test/vitals.test.ts checks they agree). Here they rate a route's p75.
 */

export const VITAL_NAMES = ['lcp', 'inp', 'cls', 'fcp', 'ttfb'] as const;
export type VitalName = (typeof VITAL_NAMES)[number];

export const VITAL_RATINGS = ['good', 'needs-improvement', 'poor'] as const;
export type VitalRating = (typeof VITAL_RATINGS)[number];

/** A value up to `good` is good, up to `poor` needs improvement, above it is poor. Milliseconds, except CLS. */
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

export const VITALS: Record<VitalName, { short: string; long: string; unit: 'ms' | '' }> = {
  lcp: { short: 'LCP', long: 'Largest Contentful Paint', unit: 'ms' },
  inp: { short: 'INP', long: 'Interaction to Next Paint', unit: 'ms' },
  cls: { short: 'CLS', long: 'Cumulative Layout Shift', unit: '' },
  fcp: { short: 'FCP', long: 'First Contentful Paint', unit: 'ms' },
  ttfb: { short: 'TTFB', long: 'Time to First Byte', unit: 'ms' },
};

/** The ratings' words on screen and their standard colours (web.dev, Lighthouse). */
export const RATINGS: Record<VitalRating, { label: string; colour: string }> = {
  good: { label: 'good', colour: '#0cce6b' },
  'needs-improvement': { label: 'needs improvement', colour: '#ffa400' },
  poor: { label: 'poor', colour: '#ff4e42' },
};

export const isVitalName = (value: unknown): value is VitalName => VITAL_NAMES.includes(value as VitalName);

const milliseconds = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const unitless = new Intl.NumberFormat('en-US', { minimumFractionDigits: 3, maximumFractionDigits: 3 });

/** A vital's value as shown: whole milliseconds (`1,234 ms`), CLS with three decimals (`0.052`). */
export function formatVital(name: VitalName, value: number): string {
  return VITALS[name].unit === 'ms' ? `${milliseconds.format(value)} ms` : unitless.format(value);
}

/** The thresholds in words: `good up to 2,500 ms, poor above 4,000 ms`. */
export function thresholdText(name: VitalName): string {
  const { good, poor } = VITAL_THRESHOLDS[name];
  const shown = (value: number) => (VITALS[name].unit === 'ms' ? formatVital(name, value) : String(value));
  return `good up to ${shown(good)}, poor above ${shown(poor)}`;
}
