import type { QueryAnswer } from '@tlm/gql';

const SUMMARY_FIELDS = ['message', 'value', 'title', 'name', 'event_name', 'rule_name'];

/** A stored time as the store answers it (UTC, ISO 8601), which the reply says in the asker's time zone. */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;

/**
 * A sentence that answers a question from a query's results, without a model: counts, top groups, latest rows.
 * Times (a bucket, the latest row's) read as a person says them, in `timeZone` (the asker's; UTC without one).
 */
export function composeReply(gql: string, answer: QueryAnswer, timeZone = 'UTC'): string {
  const text = (value: unknown) => spokenValue(value, timeZone);
  const { mode, results } = answer.data;
  if (results.length === 0) return `Nothing matched (${gql}).`;
  if (mode === 'aggregate') {
    const groups = Object.keys(results[0]!).filter((key) => key !== 'value');
    if (groups.length === 0) return `The answer is ${format(results[0]!['value'])} (${gql}).`;
    const shown = results
      .slice(0, 5)
      .map((row) => `${groups.map((group) => `${group} ${text(row[group] ?? 'none')}`).join(', ')}: ${format(row['value'])}`);
    return `${shown.join('; ')}${results.length > 5 ? `; and ${results.length - 5} more` : ''} (${gql}).`;
  }
  const latest = results[0]!;
  const what = SUMMARY_FIELDS.map((field) => latest[field]).find((field) => typeof field === 'string');
  const when = latest['timestamp'] ?? latest['last_seen'] ?? latest['triggered_at'];
  return `Found ${results.length}${results.length >= 100 ? '+' : ''} matching rows; the latest${what ? `: "${what}"` : ''}${when ? ` at ${text(when)}` : ''} (${gql}).`;
}

function format(value: unknown): string {
  return typeof value === 'number' ? (Number.isInteger(value) ? value.toLocaleString('en-US') : value.toFixed(2)) : String(value);
}

/** A value as a reply says it: a stored time as `Dec 1, 2026, 14:05 GMT+1` (seconds only when it has them), '' as `(empty)`. */
export function spokenValue(value: unknown, timeZone = 'UTC'): string {
  if (value === '') return '(empty)';
  if (typeof value !== 'string' || !ISO_TIME.test(value)) return String(value);
  const time = new Date(value);
  if (Number.isNaN(time.getTime())) return value;
  return time.toLocaleString('en-US', {
    timeZone,
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    ...(time.getUTCSeconds() || time.getUTCMilliseconds() ? { second: '2-digit' } : {}),
    hourCycle: 'h23',
    timeZoneName: 'short',
  });
}
