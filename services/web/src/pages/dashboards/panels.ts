import type { Panel, PanelInput } from '@tlm/api-schemas';
import { TIME_RANGES } from '../../components/timeRanges';
import { TIMELESS_SOURCES, lexGql, readSource, setTimeRange } from '../explore/queryText';

/** Panels as the API takes them back: each keeps its id, so a change to one leaves the others as they were. */
export const panelInputs = (panels: Panel[]): PanelInput[] => panels.map(({ id, title, query, width }) => ({ id, title, query, width }));

/** `saved`: each panel's own range, as its query says; otherwise a range of the picker replaces it. */
export const SAVED_RANGE = 'saved';

/**
 * The query a panel runs under the dashboard's range: the range replaces the query's own (unless its source has no
 * time), and a time series takes the range's bucket (`time(1m)` over 30 days would be 43,200 buckets, past what a
 * query may answer), as Grafana's panels take an interval fitting the dashboard's range.
 */
export function panelQuery(query: string, range: string): string {
  if (range === SAVED_RANGE) return query;
  const source = readSource(query);
  if (source && TIMELESS_SOURCES.has(source)) return query;
  const ranged = setTimeRange(query, { kind: 'last', duration: range });
  const bucket = TIME_RANGES.find((candidate) => candidate.value === range)?.bucket;
  return bucket ? withBucket(ranged, bucket) : ranged;
}

/** The text with the duration of each `time(…)` replaced (found as tokens, so a quoted "time(5m)" stays as written). */
export function withBucket(text: string, bucket: string): string {
  const tokens = lexGql(text);
  let result = text;
  for (let index = tokens.length - 4; index >= 0; index -= 1) {
    const [name, open, duration, close] = tokens.slice(index, index + 4);
    if (name!.type === 'word' && name!.text.toLowerCase() === 'time' && open!.text === '(' && duration!.type === 'duration' && close!.text === ')') {
      result = result.slice(0, duration!.from) + bucket + result.slice(duration!.to);
    }
  }
  return result;
}

/** A panel's title when none is given: its query without its time range (the dashboard's replaces it), shortened. */
export function defaultTitle(query: string): string {
  const text = setTimeRange(query, { kind: 'none' }).replace(/\s+/g, ' ').trim();
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}
