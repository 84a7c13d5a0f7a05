/** The time ranges of the pages built on GQL, each with the bucket of its time series (about 24 to 60 points). */
export const TIME_RANGES = [
  { value: '1h', label: 'Last hour', bucket: '1m' },
  { value: '6h', label: 'Last 6 hours', bucket: '10m' },
  { value: '24h', label: 'Last 24 hours', bucket: '30m' },
  { value: '7d', label: 'Last 7 days', bucket: '3h' },
  { value: '30d', label: 'Last 30 days', bucket: '1d' },
] as const;
export type TimeRangeValue = (typeof TIME_RANGES)[number]['value'];
