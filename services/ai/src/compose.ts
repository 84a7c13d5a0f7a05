import type { QueryAnswer } from '@tlm/gql';

const SUMMARY_FIELDS = ['message', 'value', 'title', 'name', 'event_name', 'rule_name'];

/** A sentence that answers a question from a query's results, without a model: counts, top groups, latest rows. */
export function composeReply(gql: string, answer: QueryAnswer): string {
  const { mode, results } = answer.data;
  if (results.length === 0) return `Nothing matched (${gql}).`;
  if (mode === 'aggregate') {
    const groups = Object.keys(results[0]!).filter((key) => key !== 'value');
    if (groups.length === 0) return `The answer is ${format(results[0]!['value'])} (${gql}).`;
    const shown = results
      .slice(0, 5)
      .map((row) => `${groups.map((group) => `${group} ${String(row[group] ?? 'none')}`).join(', ')}: ${format(row['value'])}`);
    return `${shown.join('; ')}${results.length > 5 ? `; and ${results.length - 5} more` : ''} (${gql}).`;
  }
  const latest = results[0]!;
  const what = SUMMARY_FIELDS.map((field) => latest[field]).find((field) => typeof field === 'string');
  const when = latest['timestamp'] ?? latest['last_seen'] ?? latest['triggered_at'];
  return `Found ${results.length}${results.length >= 100 ? '+' : ''} matching rows; the latest${what ? `: "${what}"` : ''}${when ? ` at ${String(when)}` : ''} (${gql}).`;
}

function format(value: unknown): string {
  return typeof value === 'number' ? (Number.isInteger(value) ? value.toLocaleString('en-US') : value.toFixed(2)) : String(value);
}
