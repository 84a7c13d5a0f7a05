import type { SchemaDocument } from '@tlm/gql';

export type NlMode = 'explorer' | 'alert';

/** An earlier turn of a conversation: what the user asked and the queries the answer ran. */
export interface NlTurn {
  role: 'user' | 'assistant';
  content: string;
  queries: string[];
}

export interface NlRequest {
  prompt: string;
  /** explorer: a search or an aggregate over a time range; alert: an aggregate without a time range (a metric). */
  mode: NlMode;
  schema: SchemaDocument;
  /** The conversation so far, oldest first (AI chat with a `session_id`): a follow-up builds on its last query. */
  history?: readonly NlTurn[];
}

/** Turns a prompt into GQL text; the caller parses and validates whatever comes back. */
export interface Translator {
  readonly name: string;
  translate(request: NlRequest): Promise<string>;
}

const SOURCE_WORDS: [RegExp, string][] = [
  [/\balert events?\b|\balerts? (?:fired|triggered)\b|\bfirings?\b/, 'alert_events'],
  [/\balert rules?\b|\balerts\b/, 'alerts'],
  [/\bissues?\b/, 'issues'],
  [/\b(?:web )?vitals?\b|\b(?:lcp|inp|cls|fcp|ttfb)\b/, 'vitals'],
  [/\bspans?\b|\btraces?\b|\btransactions?\b|\blatency\b/, 'spans'],
  [/\bsessions?\b|\bcrash[- ]free\b|\brelease health\b/, 'sessions'],
  [/\bexceptions?\b|\bcrash(?:es)?\b|\berrors\b(?! logs?)|\berror events?\b/, 'errors'],
  [/\blogs?\b|\blog lines?\b|\bmessages?\b/, 'logs'],
  [/\bevents?\b|\bpageviews?\b|\bsignups?\b|\busers\b|\bvisitors\b/, 'events'],
];

const SEVERITY_WORDS: [RegExp, string][] = [
  [/\bfatal\b/, 'fatal'],
  [/\berrors?\b/, 'error'],
  [/\bwarn(?:ing)?s?\b/, 'warn'],
  [/\bdebug\b/, 'debug'],
  [/\binfo\b/, 'info'],
];

const STATUS_WORDS = ['unresolved', 'resolved', 'ignored', 'regressed'];
const VITAL_NAMES = ['lcp', 'inp', 'cls', 'fcp', 'ttfb'];
const UNITS: Record<string, string> = { second: 's', minute: 'm', hour: 'h', day: 'd', week: 'w', sec: 's', min: 'm', hr: 'h' };
const AGGREGATES: [RegExp, string][] = [
  [/\b(?:p99|99th percentile)\b/, 'p99'],
  [/\b(?:p95|95th percentile)\b/, 'p95'],
  [/\b(?:p90|90th percentile)\b/, 'p90'],
  [/\b(?:p75|75th percentile)\b/, 'p75'],
  [/\b(?:p50|median)\b/, 'p50'],
  [/\b(?:average|avg|mean)\b/, 'avg'],
  [/\b(?:sum|total)\s+(?:of\s+)?(?=[a-z_$])/, 'sum'],
  [/\b(?:max(?:imum)?|largest|highest)\b/, 'max'],
  [/\b(?:min(?:imum)?|smallest|lowest)\b/, 'min'],
];

/** Built-in columns people name in prompts, per source (the rest come from the schema document). */
const COLUMNS: Record<string, string[]> = {
  logs: ['severity', 'message', 'trace_id'],
  events: ['event_name', 'distinct_id'],
  errors: ['type', 'value', 'level', 'release', 'environment', 'source', 'fingerprint_hash', 'issue_id'],
  issues: ['status', 'level', 'release_last', 'release_first', 'title', 'culprit'],
  spans: ['name', 'op', 'status', 'duration_ms', 'service', 'release', 'environment', 'trace_id'],
  vitals: ['name', 'value', 'route', 'rating'],
  sessions: ['outcome', 'status', 'release', 'environment', 'distinct_id'],
  alerts: ['name', 'severity', 'enabled'],
  alert_events: ['rule_name', 'severity', 'value'],
};

/** GQL text of a plain value: bare when it is a simple word or path, quoted otherwise. */
function value(text: string): string {
  return /^[\w./-]+$/.test(text) && !/^\d/.test(text) ? text : `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/**
 * The deterministic translator, the default provider (DECISIONS.md "AI"): no network, no model. It recognises the
 * source, levels and statuses, event names and property values known from the schema document, time phrases,
 * aggregations (count, distinct, averages, percentiles), grouping ("by", "per", "top N") and quoted text.
 */
export class RuleTranslator implements Translator {
  readonly name = 'built-in';

  async translate(request: NlRequest): Promise<string> {
    return translate(request);
  }
}

/** What a prompt says, each part with whether the prompt said it (a follow-up keeps what it does not say). */
interface Parts {
  source: string;
  sourceSaid: boolean;
  /** Conditions, each with the field it constrains ('' for free text), so a follow-up can replace a field's. */
  filters: { field: string; text: string }[];
  /** An aggregate the prompt names; a bare count is implied by grouping, counting words or alert mode. */
  func?: string;
  counting: boolean;
  groupField?: string;
  overTime?: string;
  top?: number;
  range: string;
  rangeSaid: boolean;
}

/** Words that open a follow-up question ("and over the last 7 days?", "what about warnings?"). */
const FOLLOW_UP = /^\s*(?:and|what about|how about|same|now|only|just|but|instead|also|then|ok(?:ay)?|and what about)\b/;

export function translate({ prompt, mode, schema, history = [] }: NlRequest): string {
  let parts: Parts | undefined;
  for (const asked of [...answeredPrompts(history), prompt]) parts = next(parts, asked, schema);
  return render(parts!, mode);
}

/** The user messages whose answers ran a query, oldest first: the questions a follow-up builds on. */
function answeredPrompts(history: readonly NlTurn[]): string[] {
  return history.flatMap((turn, index) => {
    const answer = history[index + 1];
    return turn.role === 'user' && answer?.role === 'assistant' && answer.queries.length > 0 ? [turn.content] : [];
  });
}

/** The question after `earlier`: a follow-up of it, or a new one when it names its own source without a follow-up word. */
function next(earlier: Parts | undefined, prompt: string, schema: SchemaDocument): Parts {
  const parts = promptParts(prompt, schema, earlier?.source);
  if (earlier === undefined || (parts.sourceSaid && !FOLLOW_UP.test(prompt.toLowerCase()))) return parts;
  return followUp(earlier, parts);
}

/**
 * A follow-up keeps the earlier question and changes what it says: another source starts its filters and grouping
 * afresh; a condition replaces the earlier one on its field; an aggregate, a grouping or a time range replaces the
 * earlier one.
 */
function followUp(earlier: Parts, next: Parts): Parts {
  const sameSource = !next.sourceSaid || next.source === earlier.source;
  const base = sameSource ? earlier : { ...earlier, source: next.source, filters: [], groupField: undefined, overTime: undefined, top: undefined };
  const replaced = new Set(next.filters.map((filter) => filter.field).filter((field) => field !== ''));
  return {
    ...base,
    sourceSaid: true,
    filters: [...base.filters.filter((filter) => !replaced.has(filter.field)), ...next.filters],
    func: next.func ?? base.func,
    counting: base.counting || next.counting,
    groupField: next.groupField ?? base.groupField,
    overTime: next.overTime ?? base.overTime,
    top: next.top ?? base.top,
    range: next.rangeSaid ? next.range : base.range,
    rangeSaid: base.rangeSaid || next.rangeSaid,
  };
}

/** What a prompt says; a source it does not name is `context` (the conversation's), else logs. */
function promptParts(prompt: string, schema: SchemaDocument, context = 'logs'): Parts {
  const text = prompt.toLowerCase();
  const named = SOURCE_WORDS.find(([pattern]) => pattern.test(text))?.[1];
  const source = named ?? context;
  const filters: Parts['filters'] = [];

  for (const quoted of prompt.matchAll(/"([^"]+)"|“([^”]+)”/g)) filters.push({ field: '', text: `"${(quoted[1] ?? quoted[2])!.replace(/"/g, '')}"` });

  if (source === 'logs') {
    const severity = SEVERITY_WORDS.find(([pattern]) => pattern.test(text))?.[1];
    if (severity) filters.push({ field: 'severity', text: `severity:${severity}` });
  }
  if (source === 'errors' && /\bfatal\b/.test(text)) filters.push({ field: 'level', text: 'level:fatal' });
  if (source === 'issues') {
    const status = STATUS_WORDS.find((word) => new RegExp(`\\b${word}\\b`).test(text));
    if (status) filters.push({ field: 'status', text: `status:${status}` });
  }
  if (source === 'sessions') {
    const outcome = ['crashed', 'abnormal', 'errored', 'healthy'].find((word) => new RegExp(`\\b${word}\\b`).test(text));
    if (outcome) filters.push({ field: 'outcome', text: `outcome:${outcome}` });
  }
  if (source === 'vitals') {
    const vital = VITAL_NAMES.find((name) => new RegExp(`\\b${name}\\b`).test(text));
    if (vital) filters.push({ field: 'name', text: `name:${vital}` });
  }
  if (source === 'events') {
    const event = [...schema.event_names]
      .sort((a, b) => b.name.length - a.name.length)
      .find((candidate) => new RegExp(`\\b${escapeRegExp(candidate.name.toLowerCase())}s?\\b`).test(text));
    if (event) filters.push({ field: 'event_name', text: `event_name:${value(event.name)}` });
  }

  const properties = source === 'events' ? schema.event_properties : source === 'logs' ? schema.log_properties : [];
  for (const property of properties) {
    if (property.key.startsWith('$')) continue;
    const example = property.examples.find(
      (candidate) => typeof candidate === 'string' && candidate.length > 1 && text.includes(candidate.toLowerCase()),
    );
    if (typeof example === 'string') filters.push({ field: property.key, text: `${property.key}:${value(example)}` });
  }

  const fields = [...(COLUMNS[source] ?? []), ...properties.map((property) => property.key)];
  const fieldIn = (fragment: string) =>
    fields.find((field) => fragment === field.toLowerCase() || fragment === field.toLowerCase().replace(/_/g, ' ')) ??
    fields.find((field) => fragment.startsWith(field.toLowerCase()));

  const distinct = /\b(?:unique|distinct)\s+(users?|visitors?|people|[a-z_.$]+)/.exec(text);
  const aggregate = AGGREGATES.find(([pattern]) => pattern.test(text));
  const topMatch = /\btop\s+(\d+)\s+([a-z_.$]+)/.exec(text);
  const byMatch = /\b(?:by|per|for each|grouped by|broken down by)\s+([a-z_.$ ]+?)(?:\s+(?:in|over|during|for|last|past|since)\b|[?.,]|$)/.exec(text);
  const overTime = /\bover time\b|\btrend\b|\btimeline\b|\bper (hour|day|minute)\b|\b(hourly|daily)\b/.exec(text);
  // Crash-free rates are counts of sessions (render makes them sums of quantity).
  const counting = /\bhow many\b|\bcount\b|\bnumber of\b|\btotal\b|\bhow often\b/.test(text) || (source === 'sessions' && /\bcrash[- ]free\b/.test(text));

  let func: string | undefined;
  if (distinct) {
    const target = /^(users?|visitors?|people)$/.test(distinct[1]!) ? 'distinct_id' : (fieldIn(distinct[1]!) ?? distinct[1]!);
    func = `count_distinct(${target})`;
  } else if (aggregate) {
    const after = text.slice(text.search(aggregate[0])).replace(aggregate[0], '').trim().replace(/^(?:of|the)\s+/, '');
    const numeric = fieldIn(after.split(/\s+/).slice(0, 2).join(' ')) ?? fieldIn(after.split(/\s+/)[0] ?? '');
    const fallback = source === 'spans' ? 'duration_ms' : source === 'vitals' ? 'value' : undefined;
    const field = numeric ?? fallback;
    if (field) func = `${aggregate[1]}(${field})`;
  }
  const unit = overTime ? (overTime[1] ?? overTime[2]) : undefined;
  const range = timeRange(text);
  return {
    source,
    sourceSaid: named !== undefined,
    filters,
    func,
    counting,
    groupField: topMatch ? fieldIn(singular(topMatch[2]!)) : byMatch ? fieldIn(byMatch[1]!.trim()) : undefined,
    overTime: overTime ? (unit === 'day' || unit === 'daily' ? '1d' : unit === 'minute' ? '1m' : '1h') : undefined,
    top: topMatch ? Math.min(Number(topMatch[1]), 1_000) : undefined,
    range: range ?? 'last:24h',
    rangeSaid: range !== undefined,
  };
}

function render(parts: Parts, mode: NlMode): string {
  const { source } = parts;
  let func = parts.func;
  if (!func && (parts.counting || parts.groupField || parts.overTime || parts.top !== undefined || mode === 'alert')) func = 'count';
  // A sessions row may stand for many aggregated sessions.
  if (source === 'sessions' && func === 'count') func = 'sum(quantity)';

  const stages: string[] = [];
  if (func) {
    // An alert metric yields one value (docs/decisions.md "Alerts and SLOs"): no groups, so no top either.
    const groups: string[] = [];
    if (parts.groupField && mode === 'explorer') groups.push(parts.groupField);
    if (parts.overTime && mode === 'explorer') groups.push(`time(${parts.overTime})`);
    stages.push(groups.length > 0 ? `${func} by ${groups.join(', ')}` : func);
    if (parts.top !== undefined && mode === 'explorer') stages.push(`top ${parts.top}`);
  }
  if (mode === 'explorer') stages.push(parts.range);
  const head = [`from:${source}`, ...parts.filters.map((filter) => filter.text)].join(' ');
  return [head, ...stages].join(' | ');
}

/** "last 3 days", "past hour", "in the last 15 minutes", "today", "this week"; undefined when nothing is said. */
function timeRange(text: string): string | undefined {
  const counted = /\b(?:last|past|previous|in the last)\s+(\d+)\s*(second|sec|minute|min|hour|hr|day|week)s?\b/.exec(text);
  if (counted) return `last:${counted[1]}${UNITS[counted[2]!]}`;
  const single = /\b(?:last|past|previous)\s+(minute|hour|day|week)\b/.exec(text);
  if (single) return `last:1${UNITS[single[1]!]}`;
  if (/\bthis week\b/.test(text)) return 'last:7d';
  if (/\bthis month\b|\blast month\b/.test(text)) return 'last:30d';
  if (/\byesterday\b/.test(text)) return 'last:48h';
  if (/\btoday\b/.test(text)) return 'last:24h';
  return undefined;
}

/** "routes" → "route", "releases" → "release": group fields are named in the plural after "top N". */
function singular(word: string): string {
  return word.endsWith('es') && /(?:ss|sh|ch|x)es$/.test(word) ? word.slice(0, -2) : word.endsWith('s') ? word.slice(0, -1) : word;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
