import { useCallback, useId } from 'react';
import { useSearchParams } from 'react-router';
import { EmptyState } from './States';

import { TIME_RANGES, type TimeRangeValue } from './timeRanges';

export { TIME_RANGES, type TimeRangeValue };

/** A choice a page offers beside the time ranges (a dashboard's "as each query says"). */
export type RangeChoice = { value: string; label: string };

/**
 * The page's time range, kept in the URL as `?range=24h` so the view can be shared and reloaded; an unknown value
 * reads as the default. `value` is what the URL chose, which may be one of the page's `extra` choices.
 */
export function useTimeRangeParam(fallback: TimeRangeValue = '24h', extra: readonly RangeChoice[] = []) {
  const [params, setParams] = useSearchParams();
  const asked = params.get('range');
  const range = TIME_RANGES.find((candidate) => candidate.value === asked) ?? TIME_RANGES.find((candidate) => candidate.value === fallback)!;
  const value = extra.some((choice) => choice.value === asked) ? asked! : range.value;
  const setRange = useCallback(
    (value: string) =>
      setParams((current) => {
        const next = new URLSearchParams(current);
        next.set('range', value);
        return next;
      }),
    [setParams],
  );
  return { range, value, setRange };
}

/** A labelled select of the time ranges, and the page's `extra` choices after them. */
export function TimeRangeSelect({ value, onChange, extra = [] }: { value: string; onChange: (value: string) => void; extra?: readonly RangeChoice[] }) {
  const id = useId();
  return (
    <div className="explore-control">
      <label htmlFor={id}>Time range</label>
      <select id={id} value={value} onChange={(event) => onChange(event.target.value)}>
        {[...TIME_RANGES, ...extra].map((range) => (
          <option key={range.value} value={range.value}>
            {range.label}
          </option>
        ))}
      </select>
    </div>
  );
}

/** The answer of a page whose project has `what`, but none in the chosen range: a button widens it to 30 days. */
export function NoneInRange({ what, range, onWiden }: { what: string; range: (typeof TIME_RANGES)[number]; onWiden: (value: TimeRangeValue) => void }) {
  return (
    <EmptyState title={`No ${what} in the ${range.label.toLowerCase()}`}>
      <p>This project has {what}, but none in this range. Pick a longer one.</p>
      <div className="row" style={{ justifyContent: 'center' }}>
        <button type="button" className="button" onClick={() => onWiden('30d')}>
          Last 30 days
        </button>
      </div>
    </EmptyState>
  );
}
