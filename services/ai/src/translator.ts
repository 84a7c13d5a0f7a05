import type { SchemaDocument } from '@tlm/gql';
import { calendarOf, type Calendar } from './calendar';
import { lexiconOf, type ColumnValues, type Concept, type FieldWord, type Lexicon, type ValueWord } from './lexicon';

export type { ColumnValues } from './lexicon';

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
  /** Values stored in the project's columns (vocabulary.ts): error types, environments, services, releases… */
  values?: ColumnValues;
  /** The conversation so far, oldest first (AI chat with a `session_id`): a follow-up builds on its last query. */
  history?: readonly NlTurn[];
  /** The time "today" and "yesterday" count from; now by default. */
  now?: Date;
  /** The asker's time zone (IANA), whose days "today", "yesterday", "this week" and "this month" are; UTC by default. */
  timeZone?: string;
}

/** Tokens a model read and wrote for an answer, as its server reported them (the built-in translator spends none). */
export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
}

/** A query, or none with why and what could be asked instead; `usage` when a model was asked. */
export type NlAnswer = ({ gql: string } | { gql: null; reason: string; suggestions: string[]; smallTalk?: boolean }) & { usage?: TokenUsage };

/** Turns a prompt into GQL text; the caller parses and validates whatever comes back. */
export interface Translator {
  readonly name: string;
  translate(request: NlRequest): Promise<NlAnswer>;
}

/**
 * The deterministic translator, the default provider (DECISIONS.md "AI"): no network, no model. Its vocabulary is the
 * project's: the sources' columns, the schema document's properties and event names, and the values stored in them
 * (docs/ai.md describes the rules).
 */
export class RuleTranslator implements Translator {
  readonly name = 'built-in';

  async translate(request: NlRequest): Promise<NlAnswer> {
    return translate(request);
  }
}

/** What a prompt says, each part with whether the prompt said it (a follow-up keeps what it does not say). */
interface Parts {
  source: string;
  sourceSaid: boolean;
  /** Conditions, each with the field it constrains ('' for free text), so a follow-up can replace a field's. */
  filters: { field: string; text: string }[];
  /** An aggregate function with its argument: `count`, `avg(duration_ms)`. */
  func?: string;
  groupField?: string;
  overTime?: string;
  top?: number;
  /** A search ordered by a field, or groups ordered by value ascending ("fastest"). */
  sort?: { field: string; direction: 'asc' | 'desc' };
  limit?: number;
  range: string;
  rangeSaid: boolean;
  /** Whether the prompt named anything of the project: a source, a field, a value, a measure, text or a time. */
  meaning: boolean;
  /** Words of the prompt that are none of these. */
  unknown: string[];
}

/** Words that open a follow-up question ("and over the last 7 days?", "what about warnings?"). */
const FOLLOW_UP = /^\s*(?:and|what about|how about|same|now|only|just|but|instead|also|then|ok(?:ay)?|and what about)\b/;

/** Greetings, thanks and questions about the assistant itself: answered with what it can do, not with a query. */
const SMALL_TALK =
  /\b(?:hi|hello|hey|hiya|yo|howdy|good (?:morning|afternoon|evening|night)|thanks?(?: you)?(?: so much)?|thx|cheers|bye|goodbye|who are you|what are you|what can you do|what do you do|how are you|how does this work|help(?: me)?|are you (?:there|a bot|human)|tell me about yourself)\b/gi;

export function translate({ prompt, mode, schema, values, history = [], now = new Date(), timeZone }: NlRequest): NlAnswer {
  const lexicon = lexiconOf(schema, values);
  const calendar = calendarOf(now, timeZone);
  let parts: Parts | undefined;
  for (const asked of answeredPrompts(history)) parts = next(parts, asked, lexicon, calendar);
  // "hi, how many errors today?" is the question after the greeting; "hello, who are you?" is none.
  const question = prompt.replace(SMALL_TALK, ' ');
  const asked = promptParts(question, lexicon, parts?.source, calendar);
  const isFollowUp = parts !== undefined && followsOn(asked, question);
  const understood = asked.meaning && (isFollowUp || asked.sourceSaid || asked.unknown.length === 0 || hasSubject(asked));
  if (!understood || (question !== prompt && !asked.sourceSaid && !hasSubject(asked))) {
    return noMeaning(question !== prompt, asked, lexicon);
  }
  parts = isFollowUp ? followUp(parts!, asked) : asked;
  return { gql: render(parts, mode) };
}

/**
 * Whether a stored value's match is the errors source's own word: on errors "errors" names the source, not a level
 * `error` or an exception type `Error`, and "error" in lower case is not the type either, which a question names as
 * written ("errors of type Error"). Such a match is no condition, nor a sign of the source beyond the word itself.
 */
function namesErrorsSource(value: ValueWord, match: RegExpExecArray, prompt: string): boolean {
  if (value.source !== 'errors') return false;
  if (/^(?:errors|exceptions)$/i.test(match[0])) return true;
  return value.field === 'type' && /^(?:error|exception)$/.test(prompt.slice(match.index, match.index + match[0].length));
}

/** A condition, a grouping or a measure: something beyond a time range and a count. */
function hasSubject(parts: Parts): boolean {
  return parts.filters.length > 0 || parts.groupField !== undefined || (parts.func !== undefined && parts.func !== 'count') || parts.sort !== undefined;
}

function noMeaning(smallTalk: boolean, parts: Parts, lexicon: Lexicon): NlAnswer {
  const suggestions = suggestionsFor(lexicon);
  if (smallTalk) {
    return { gql: null, smallTalk: true, reason: 'this is not a question about the project\'s data', suggestions };
  }
  const unknown = parts.unknown.slice(0, 5).map((word) => `"${word}"`);
  const reason =
    unknown.length > 0
      ? `nothing in this project is called ${unknown.join(', ')}: no source, field, event name or stored value matches`
      : 'the prompt names no source, field, event name, stored value, measure or time range of this project';
  return { gql: null, reason, suggestions };
}

/** Questions this project can answer, from its own vocabulary. */
function suggestionsFor(lexicon: Lexicon): string[] {
  const suggestions = ['how many error logs in the last hour?'];
  const event = lexicon.schema.event_names[0]?.name;
  if (event) suggestions.push(`how many ${event} events per day this week?`);
  const numeric = lexicon.schema.log_properties.find((property) => property.type === 'number');
  const text = lexicon.schema.log_properties.find((property) => property.type === 'string' && !property.key.startsWith('$'));
  if (numeric && text) suggestions.push(`average ${numeric.key} by ${text.key}`);
  suggestions.push('unresolved issues', 'p95 span duration by service');
  return suggestions.slice(0, 4);
}

/** The user messages whose answers ran a query, oldest first: the questions a follow-up builds on. */
function answeredPrompts(history: readonly NlTurn[]): string[] {
  return history.flatMap((turn, index) => {
    const answer = history[index + 1];
    return turn.role === 'user' && answer?.role === 'assistant' && answer.queries.length > 0 ? [turn.content] : [];
  });
}

/**
 * Whether a prompt builds on the question before it: it opens with a follow-up word, or names no source and nothing
 * the project does not know. "How many refunds last week?" in a project without refunds is a new question (answered
 * with what the project has), not the earlier one over last week.
 */
function followsOn(parts: Parts, prompt: string): boolean {
  return FOLLOW_UP.test(prompt.toLowerCase()) || (!parts.sourceSaid && parts.unknown.length === 0);
}

/** The question after `earlier`: a follow-up of it, or a new one. */
function next(earlier: Parts | undefined, prompt: string, lexicon: Lexicon, calendar: Calendar): Parts {
  const parts = promptParts(prompt, lexicon, earlier?.source, calendar);
  if (earlier === undefined || !followsOn(parts, prompt)) return parts;
  return followUp(earlier, parts);
}

/**
 * A follow-up keeps the earlier question and changes what it says: another source starts its filters and grouping
 * afresh; a condition replaces the earlier one on its field; an aggregate, a grouping or a time range replaces the
 * earlier one.
 */
function followUp(earlier: Parts, next: Parts): Parts {
  const sameSource = !next.sourceSaid || next.source === earlier.source;
  const base = sameSource ? earlier : { ...earlier, source: next.source, filters: [], groupField: undefined, overTime: undefined, top: undefined, sort: undefined, limit: undefined };
  const replaced = new Set(next.filters.map((filter) => filter.field).filter((field) => field !== ''));
  return {
    ...base,
    sourceSaid: true,
    filters: [...base.filters.filter((filter) => !replaced.has(filter.field)), ...next.filters],
    func: next.func ?? base.func,
    groupField: next.groupField ?? base.groupField,
    overTime: next.overTime ?? base.overTime,
    top: next.top ?? base.top,
    sort: next.sort ?? base.sort,
    limit: next.limit ?? base.limit,
    range: next.rangeSaid ? next.range : base.range,
    rangeSaid: base.rangeSaid || next.rangeSaid,
  };
}

/** The words that name a source outright, strongest first; "errors" alone may also mean error logs. */
const SOURCE_WORDS: { source: string; pattern: RegExp; weight: number }[] = [
  { source: 'alert_events', pattern: /\balert events?\b|\balerts? (?:that )?(?:fired|firing|triggered|went off)\b|\bfirings?\b|\b(?:did|have|has) (?:any )?alerts? (?:fire|trigger)|\balert history\b|\btimes? (?:\w+ )?(?:fired|triggered)\b/, weight: 12 },
  { source: 'alerts', pattern: /\balert rules?\b|\balerts\b|\balert\b|\bmonitors?\b/, weight: 10 },
  { source: 'sessions', pattern: /\bsessions?\b|\bcrash[- ]free\b|\brelease health\b/, weight: 11 },
  { source: 'issues', pattern: /\bissues?\b|\bproblems?\b|\bbugs?\b/, weight: 10 },
  { source: 'vitals', pattern: /\b(?:web |core )?vitals?\b|\b(?:lcp|inp|cls|fcp|ttfb)\b|\bcontentful paint\b|\blayout shift\b|\bfirst byte\b|\bpage loads?\b/, weight: 10 },
  { source: 'spans', pattern: /\bspans?\b|\btraces?\b|\btransactions?\b|\btracing\b/, weight: 10 },
  { source: 'logs', pattern: /\blogs?\b|\blog (?:lines?|entries|messages)\b|\blogged\b/, weight: 10 },
  { source: 'events', pattern: /\bevents?\b|\banalytics\b/, weight: 9 },
  { source: 'logs', pattern: /\brequests?\b|\bresponses?\b|\bcalls?\b|\bhits?\b/, weight: 1.5 },
  { source: 'errors', pattern: /\berrors?\b|\bexceptions?\b|\bcrash(?:es)?\b|\berror events?\b|\bthrown\b/, weight: 3 },
];

/** Sources chosen first when the prompt's words fit several equally. */
const SOURCE_ORDER = ['logs', 'events', 'errors', 'spans', 'issues', 'vitals', 'sessions', 'alert_events', 'alerts'];

/** The field a source's rows are usually grouped by when a prompt asks for its "top" rows ("top 5 errors"). */
const MAIN_GROUP: Record<string, string> = { logs: 'message', events: 'event_name', errors: 'type', spans: 'name', vitals: 'route', sessions: 'release', alert_events: 'rule_name' };

/** Sources whose rows are things with counts of their own: "top issues" sorts them instead of grouping. */
const ENTITY_MEASURE: Record<string, string> = { issues: 'event_count', alerts: 'threshold' };

/** "status 500", "returned 404", "5xx responses", "404s". */
const STATUS_CODE = /\b(?:status(?: code)?|returned|returning|responded with|response|http|code)\s+(?:of\s+|was\s+|=\s*)?([1-5]\d\d|[1-5]xx)\b|\b([1-5]\d\d|[1-5]xx)s?\s+(?:errors?|responses?|status(?:es)?|codes?|requests?)\b|\b([1-5]xx|[1-5]\d\ds)\b/;

const NUMBER_WORDS: Record<string, number> = { one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, twenty: 20, fifty: 50, hundred: 100 };
const COUNT = '(\\d+|one|two|three|four|five|six|seven|eight|nine|ten|twenty|fifty|hundred)';

/** Superlatives: what they measure and in which direction. */
const SUPERLATIVES: { pattern: string; measure: Concept | 'count'; direction: 'asc' | 'desc' }[] = [
  { pattern: 'slowest|longest|worst performing', measure: 'duration', direction: 'desc' },
  { pattern: 'fastest|quickest|shortest', measure: 'duration', direction: 'asc' },
  { pattern: 'biggest|largest|highest|most expensive', measure: 'amount', direction: 'desc' },
  { pattern: 'busiest|most common|most frequent|most popular|most active|noisiest|top|most', measure: 'count', direction: 'desc' },
  { pattern: 'least common|least frequent|least used|quietest|rarest', measure: 'count', direction: 'asc' },
];

const AGGREGATES: [RegExp, string][] = [
  [/\b(?:p99|99th(?: percentile)?)\b/, 'p99'],
  [/\b(?:p95|95th(?: percentile)?)\b/, 'p95'],
  [/\b(?:p90|90th(?: percentile)?)\b/, 'p90'],
  [/\b(?:p75|75th(?: percentile)?)\b/, 'p75'],
  [/\b(?:p50|median|50th(?: percentile)?)\b/, 'p50'],
  [/\b(?:average|avg|mean|typical)\b/, 'avg'],
  [/\b(?:max(?:imum)?|highest|largest|biggest|longest|peak|worst)\b/, 'max'],
  [/\b(?:min(?:imum)?|lowest|smallest|shortest|best)\b/, 'min'],
  [/\b(?:sum|total)\b/, 'sum'],
];

/** Words that carry no meaning of their own in a question about data. */
const FILLER = new Set(
  (
    'a an the of in on at to for from with by per and or is are was were be been being do does did done have has had i me my we our us you your it its ' +
    'this that these those there here what which who whom whose when where why how many much show list give get find tell display see view let lets ' +
    'please can could would should will any all some each every only just also than then so no not any over under above below into out up down ' +
    'about across during between since until ago now today yesterday week month day hour minute minutes hours days weeks months last past previous ' +
    'recent recently latest newest oldest new number count counts total amount happen happened happening there were occur occurred look me us ' +
    'time times ever most least more less top group grouped broken split break breakdown each every rows row entries entry data records record ' +
    'value values trend trends over time chart graph plot overview summary summarize breakdown distribution compare compared versus vs ' +
    'did does do has have had got get gets had been being went going go see seen many often much lot lots some number of unique distinct different ' +
    'so far yet still right currently current hit hits seen happening occurrences occurrence instances instance kind kinds type types sort sorted ' +
    'order ordered descending ascending asc desc first limit returned return returning returns with without whose that which'
  ).split(/\s+/),
);

/** What a prompt says; a source it does not name is `context` (the conversation's), else what its words fit best. */
function promptParts(prompt: string, lexicon: Lexicon, context: string | undefined, calendar: Calendar): Parts {
  const text = prompt.toLowerCase();
  const used = new Uint8Array(text.length);
  const isFree = (start: number, end: number) => used.subarray(start, end).every((flag) => flag === 0);
  const take = (start: number, end: number) => used.fill(1, start, end);
  /** Matches of a pattern over the prompt (lower-cased, or as written) that overlap nothing taken yet. */
  const scan = (pattern: RegExp, asWritten = false): RegExpExecArray[] => {
    const global = new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`);
    return [...(asWritten ? prompt : text).matchAll(global)].filter((match) => isFree(match.index, match.index + match[0].length));
  };
  const filters: Parts['filters'] = [];
  let meaning = false;

  for (const quoted of scan(/"([^"]+)"|“([^”]+)”/, true)) {
    filters.push({ field: '', text: `"${(quoted[1] ?? quoted[2])!.replace(/["\\]/g, '')}"` });
    take(quoted.index, quoted.index + quoted[0].length);
    meaning = true;
  }
  for (const mention of scan(/\b(?:mentioning|containing|contains|that say|saying|with the (?:word|text)|matching|with message)\s+([a-z0-9][\w.-]*)/)) {
    filters.push({ field: '', text: `"${mention[1]}"` });
    take(mention.index, mention.index + mention[0].length);
    meaning = true;
  }

  const time = timeRange(text, calendar);
  if (time) {
    take(time.start, time.end);
    meaning = true;
  }

  let top: number | undefined;
  let topEnd = -1;
  let superlative: (typeof SUPERLATIVES)[number] | undefined;
  let superlativeStart = -1;
  for (const { pattern, measure, direction } of SUPERLATIVES) {
    const found =
      scan(new RegExp(`\\b(?:the\\s+)?${COUNT}\\s+(${pattern})\\b`))[0] ??
      scan(new RegExp(`\\b(${pattern})\\s+${COUNT}\\b`))[0] ??
      scan(new RegExp(`\\b(${pattern})\\b`))[0];
    if (!found) continue;
    const count = found.slice(1).find((group) => group !== undefined && (/^\d+$/.test(group) || NUMBER_WORDS[group] !== undefined));
    if (count !== undefined) top = Math.min(/^\d+$/.test(count) ? Number(count) : NUMBER_WORDS[count]!, 1_000);
    superlative = { pattern, measure, direction };
    superlativeStart = found.index;
    topEnd = found.index + found[0].length;
    break;
  }

  // Explicit source words, then what the vocabulary says about each source.
  const scores = new Map<string, number>();
  const score = (source: string, points: number) => scores.set(source, (scores.get(source) ?? 0) + points);
  for (const word of SOURCE_WORDS) if (scan(word.pattern).length > 0) score(word.source, word.weight);
  const errorsSaid = scores.has('errors');
  if (errorsSaid) score('logs', 2);
  const explicit = [...scores.entries()].filter(([, points]) => points >= 9).map(([source]) => source);
  for (const event of lexicon.events) if (scan(event.pattern).length > 0) score('events', 4);
  if (scan(STATUS_CODE).length > 0) for (const field of lexicon.fields) if (field.concept === 'status_code') score(field.source, 2);
  const exceptionTypes = scan(/\b([A-Z][A-Za-z0-9]*(?:Error|Exception|Fault|Panic))s?\b/, true);
  if (exceptionTypes.length > 0) score('errors', 4);
  const valueHits = new Set<string>();
  for (const value of lexicon.values) {
    if (scan(value.pattern, value.caseSensitive).every((match) => namesErrorsSource(value, match, prompt))) continue;
    const key = `${value.source}\u0000${value.field}`;
    if (valueHits.has(key)) continue;
    valueHits.add(key);
    // Known words of a source (severities, statuses) say little about the source; stored values say more.
    score(value.source, lexicon.schema && isKnownWord(value.source, value.field) ? 0.5 : 2);
  }
  const conceptHits = new Set<string>();
  for (const field of lexicon.fields) {
    if (scan(field.pattern).length === 0) continue;
    const key = `${field.source}\u0000${field.field}`;
    if (conceptHits.has(key)) continue;
    conceptHits.add(key);
    score(field.source, field.weight);
  }
  for (const source of scores.keys()) if (!lexicon.withData.has(source) && !explicit.includes(source)) score(source, -1.5);

  const best = [...scores.entries()].filter(([, points]) => points > 0).sort((a, b) => b[1] - a[1] || SOURCE_ORDER.indexOf(a[0]) - SOURCE_ORDER.indexOf(b[0]))[0];
  const source = explicit.length > 0 || (best && !context) ? (best?.[0] ?? context ?? 'logs') : best && best[1] >= 2 ? best[0] : (context ?? best?.[0] ?? 'logs');
  const sourceSaid = explicit.includes(source) || (best !== undefined && best[0] === source && best[1] >= 2);
  if (best) meaning = true;
  const fieldsOf = lexicon.fields.filter((field) => field.source === source);

  // Conditions: the event names, exception types and stored values of the chosen source.
  const conditions = new Map<string, (string | number)[]>();
  const condition = (field: string, value: string | number) => {
    const list = conditions.get(field) ?? [];
    if (!list.includes(value)) list.push(value);
    conditions.set(field, list);
  };
  if (source === 'events') {
    for (const event of lexicon.events) {
      for (const match of scan(event.pattern)) {
        condition('event_name', event.name);
        take(match.index, match.index + match[0].length);
      }
    }
  }
  if (source === 'errors') {
    for (const match of exceptionTypes) {
      condition('type', match[1]!);
      take(match.index, match.index + match[0].length);
    }
  }
  if (source === 'logs' && errorsSaid) condition('severity', 'error');
  const statusField = fieldsOf.find((field) => field.concept === 'status_code');
  if (statusField) {
    for (const match of scan(STATUS_CODE)) {
      const code = (match[1] ?? match[2] ?? match[3])!.replace(/s$/, '');
      if (code.endsWith('xx')) filters.push({ field: statusField.field, text: `${statusField.field} >= ${code[0]}00 ${statusField.field} < ${Number(code[0]) + 1}00` });
      else condition(statusField.field, Number(code));
      take(match.index, match.index + match[0].length);
    }
  }
  const ownValues = lexicon.values
    .filter((value) => value.source === source)
    .sort((a, b) => String(b.value).length - String(a.value).length);
  for (const value of ownValues) {
    for (const match of scan(value.pattern, value.caseSensitive)) {
      // "error" in "errors" on the errors source, "crash" on sessions are the source's own words, not conditions.
      if (value.source === 'logs' && value.field === 'severity' && errorsSaid && value.value === 'error') continue;
      if (namesErrorsSource(value, match, prompt)) continue;
      condition(value.field, value.value);
      take(match.index, match.index + match[0].length);
    }
  }
  if (source === 'sessions' && conditions.get('outcome')?.includes('crashed') && /\bcrash[- ]free\b/.test(text)) conditions.delete('outcome');
  for (const word of SOURCE_WORDS) {
    if (word.source !== source && !(source === 'logs' && word.source === 'errors')) continue;
    for (const match of scan(word.pattern)) take(match.index, match.index + match[0].length);
  }
  // A superlative inside a value ("largest contentful paint") is the value's.
  if (superlative && !isFree(superlativeStart, topEnd)) {
    superlative = undefined;
    top = undefined;
  }
  if (superlative) take(superlativeStart, topEnd);

  // Comparisons: "over 500ms", "purchases above $100", "duration more than 2 seconds".
  for (const match of scan(/\b(more than|longer than|slower than|greater than|over|above|exceeding|at least|less than|shorter than|faster than|under|below|at most)\s+(\$)?(\d+(?:\.\d+)?)\s*(ms|milliseconds?|s|secs?|seconds?|minutes?)?\b/)) {
    const [, word, dollar, amount, unit] = match;
    const after = text.slice(match.index + match[0].length, match.index + match[0].length + 30);
    const before = text.slice(Math.max(0, match.index - 30), match.index);
    const nearField = (concept: Concept) => fieldsOf.find((field) => field.concept === concept && field.numeric);
    let field: FieldWord | undefined;
    let number = Number(amount);
    if (unit) {
      field = nearField('duration');
      if (field && /ms$/.test(field.field) && /^(?:s|sec|second)/.test(unit)) number *= 1_000;
      if (field && /ms$/.test(field.field) && /^minute/.test(unit)) number *= 60_000;
    } else if (dollar) field = nearField('amount');
    else field = fieldsOf.find((candidate) => candidate.numeric && (endsWithPattern(before, candidate.pattern) || startsWithPattern(after.trimStart(), candidate.pattern)));
    if (!field) continue;
    const op = /less|shorter|faster|under|below|at most/.test(word!) ? (word === 'at most' ? '<=' : '<') : word === 'at least' ? '>=' : '>';
    filters.push({ field: field.field, text: `${gqlField(field.field)} ${op} ${number}` });
    take(match.index, match.index + match[0].length);
    meaning = true;
  }

  for (const [field, list] of conditions) {
    filters.push({ field, text: list.length === 1 ? `${gqlField(field)}:${gqlValue(list[0]!)}` : `${gqlField(field)}:[${list.map(gqlValue).join(', ')}]` });
    meaning = true;
  }

  /** The field named at a position of the prompt (after "by", "per", an aggregate…), longest words first. */
  const fieldAt = (from: number, numeric?: boolean): { field: FieldWord; end: number } | undefined => {
    let index = from;
    // Words already read (an event name in "most visited pages") and articles stand between the word and the field.
    while (index < text.length && (used[index] === 1 || /\s/.test(text[index]!))) index += 1;
    const rest = text.slice(index).replace(/^(?:the|each|every|their|its|a|an)\s+/, (skip) => skip.replace(/\S/g, ' '));
    const offset = rest.length - rest.trimStart().length;
    let found: { field: FieldWord; end: number } | undefined;
    for (const field of fieldsOf) {
      if (numeric !== undefined && field.numeric !== numeric) continue;
      const match = new RegExp(`^(?:${field.pattern.source})`).exec(rest.slice(offset));
      if (match && isFree(index + offset, index + offset + match[0].length) && (!found || match[0].length > found.end - index - offset)) {
        found = { field, end: index + offset + match[0].length };
      }
    }
    return found;
  };
  const firstField = (predicate: (field: FieldWord) => boolean): { field: FieldWord; index: number; end: number } | undefined => {
    let found: { field: FieldWord; index: number; end: number } | undefined;
    for (const field of fieldsOf.filter(predicate)) {
      const match = scan(field.pattern)[0];
      if (match && (!found || match.index < found.index || (match.index === found.index && match[0].length > found.end - found.index))) found = { field, index: match.index, end: match.index + match[0].length };
    }
    return found;
  };

  // Time series: "over time", "per hour", "daily".
  let overTime: string | undefined;
  const series = scan(/\b(?:over time|trend|timeline|time series|histogram)\b|\b(?:per|by|each|every)\s+(minute|hour|day|week)\b|\b(hourly|daily|weekly)\b/)[0];
  if (series) {
    const unit = series[1] ?? series[2];
    overTime = unit === 'minute' ? '1m' : unit === 'day' || unit === 'daily' ? '1d' : unit === 'week' || unit === 'weekly' ? '1w' : '1h';
    take(series.index, series.index + series[0].length);
    meaning = true;
  }

  // Grouping: "by route", "per country", "for each service", "top 5 routes", "which route…".
  let groupField: string | undefined;
  let measureField: FieldWord | undefined;
  for (const match of scan(/\b(?:grouped by|broken down by|split by|break(?:down)? by|by|per|for each|for every|in each|across|each)\s+/)) {
    const found = fieldAt(match.index + match[0].length);
    if (!found) continue;
    if (found.field.numeric && found.field.concept !== 'status_code') {
      measureField = found.field;
    } else if (!groupField) {
      groupField = found.field.field;
    } else continue;
    take(match.index, found.end);
    meaning = true;
  }
  const which = scan(/\b(?:which|what)\s+/)[0];
  if (which && !groupField) {
    const found = fieldAt(which.index + which[0].length, false);
    if (found && (superlative || /\bmost\b|\bleast\b|\bfewest\b/.test(text))) {
      groupField = found.field.field;
      top ??= 1;
      take(which.index, found.end);
    }
  }
  /** The text field whose words end just before `index`, joined to it by "with", "having"…. */
  const fieldBefore = (index: number): FieldWord | undefined =>
    fieldsOf.find((field) => !field.numeric && field.concept !== 'user' && new RegExp(`(?:${field.pattern.source})\\s+(?:with|having|that (?:have|had|get|got)|getting)\\s+(?:the\\s+)?$`).test(text.slice(0, index)));
  let entitySort = false;
  if (superlative) {
    const found = fieldAt(topEnd);
    if (found && !found.field.numeric && !groupField) {
      groupField = found.field.field;
      // "the slowest route": one group; "slowest routes": the first ten.
      if (top === undefined && !/s\b/.test(text.slice(found.end - 1, found.end + 1))) top = 1;
      take(topEnd, found.end);
    } else if (found && found.field.numeric && ENTITY_MEASURE[source]) {
      measureField ??= found.field;
      entitySort = true;
      take(topEnd, found.end);
    } else if (found && found.field.numeric) {
      // "highest amount", "longest duration": the function of a field, not an order of groups.
      used.fill(0, superlativeStart, topEnd);
      superlative = undefined;
    } else if (!found && !groupField && fieldBefore(superlativeStart)) {
      // "routes with the most errors": the field before the superlative is the group.
      groupField = fieldBefore(superlativeStart)!.field;
      if (top === undefined && !/s$/.test(text.slice(0, superlativeStart).replace(/\s*(?:with|having|that (?:have|had|get|got)|getting)\s+(?:the\s+)?$/, ''))) top = 1;
    } else if (!found && !groupField) {
      const noun = /^\s*(?:\w+\s+)?(\w+)/.exec(text.slice(topEnd))?.[1] ?? '';
      if (ENTITY_MEASURE[source] || /^(?:requests?|calls?|spans?|transactions?|traces?|queries|operations?|sessions?|purchases?|orders?|pages?)$/.test(noun) && superlative.measure !== 'count') entitySort = true;
      else if (superlative.measure === 'count' && MAIN_GROUP[source] && SOURCE_WORDS.find((word) => word.source === source)?.pattern.test(text.slice(topEnd, topEnd + 20))) groupField = MAIN_GROUP[source];
    }
  }

  // The measure: an aggregate word with the field after it, or the field a superlative or a synonym names.
  let func: string | undefined;
  const distinct = scan(/\b(?:unique|distinct|different|how many different|how many unique)\s+/)[0];
  if (distinct) {
    const found = fieldAt(distinct.index + distinct[0].length, false);
    if (found) {
      func = `count_distinct(${gqlField(found.field.field)})`;
      take(distinct.index, found.end);
      meaning = true;
    }
  }
  const numericFields = (concept?: Concept) => fieldsOf.filter((field) => field.numeric && (concept === undefined || field.concept === concept));
  const defaultMeasure = (concept?: Concept): string | undefined => {
    const named = measureField ?? firstField((field) => field.numeric && field.concept !== 'status_code' && (concept === undefined || field.concept === concept))?.field;
    if (named) return named.field;
    const fallback = source === 'spans' || source === 'sessions' ? 'duration_ms' : source === 'vitals' ? 'value' : undefined;
    return fallback ?? numericFields(concept ?? 'duration')[0]?.field ?? numericFields('amount')[0]?.field;
  };
  if (!func) {
    for (const [pattern, name] of AGGREGATES) {
      const match = scan(pattern)[0];
      if (!match) continue;
      const after = fieldAt(match.index + match[0].length, true) ?? fieldAt(match.index + match[0].length + (/^\s*(?:of|for|in)\s+/.exec(text.slice(match.index + match[0].length))?.[0].length ?? 0), true);
      // "total purchases", "total number of logs": a total of something countable is a count.
      if (name === 'sum' && !after && !measureField && !firstField((field) => field.numeric && field.concept === 'amount')) continue;
      const field = after?.field.field ?? defaultMeasure(name === 'sum' ? 'amount' : undefined);
      if (!field) continue;
      func = `${name}(${gqlField(field)})`;
      take(match.index, after?.end ?? match.index + match[0].length);
      meaning = true;
      break;
    }
  }
  const counting = scan(/\bhow many\b|\bhow often\b|\bcount\b|\bnumber of\b|\btotal\b|\bamount of\b|\bvolume\b|\bfrequency\b/)[0];
  if (!func && counting) {
    // "how many users", "number of countries": counting a field's values is a distinct count.
    const found = fieldAt(counting.index + counting[0].length, false);
    if (found && found.field.concept !== 'status_code' && !isKnownWord(source, found.field.field) && /s\b|people/.test(text.slice(counting.index, found.end))) {
      func = `count_distinct(${gqlField(found.field.field)})`;
      take(found.field ? counting.index : counting.index, found.end);
    } else func = 'count';
    take(counting.index, counting.index + counting[0].length);
    meaning = true;
  }
  let sort: Parts['sort'];
  let limit: number | undefined;
  if (superlative && !func) {
    const measure = superlative.measure === 'count' ? undefined : defaultMeasure(superlative.measure);
    if (entitySort) {
      const field = measureField?.field ?? (superlative.measure === 'count' ? ENTITY_MEASURE[source] : measure) ?? ENTITY_MEASURE[source];
      if (field) {
        sort = { field: gqlField(field), direction: superlative.direction };
        limit = top ?? 10;
      }
    } else if (superlative.measure === 'count') {
      func = measureField ? (measureField.concept === 'duration' ? `avg(${gqlField(measureField.field)})` : `sum(${gqlField(measureField.field)})`) : 'count';
      if (superlative.direction === 'asc') sort = { field: 'value', direction: 'asc' };
    } else if (measure) {
      func = `${superlative.measure === 'amount' ? 'sum' : 'avg'}(${gqlField(measure)})`;
      if (superlative.direction === 'asc') sort = { field: 'value', direction: 'asc' };
    }
    if (!entitySort && (groupField || overTime)) top ??= superlative.measure === 'count' && /\btop\b/.test(text) ? 10 : 10;
    meaning = true;
  } else if (!func && measureField && groupField) {
    func = measureField.concept === 'amount' ? `sum(${gqlField(measureField.field)})` : `avg(${gqlField(measureField.field)})`;
  }
  if (!func && (groupField || overTime)) {
    // "latency by route", "revenue per country", "lcp by page": a named measure without a function.
    const concept = firstField((field) => field.numeric && (field.concept === 'duration' || field.concept === 'amount'));
    if (concept && source !== 'vitals') func = concept.field.concept === 'amount' ? `sum(${gqlField(concept.field.field)})` : `avg(${gqlField(concept.field.field)})`;
    // A web vital by page or over time is its 75th percentile, the value Core Web Vitals are judged by.
    else if (source === 'vitals' && conditions.has('name')) func = 'p75(value)';
  }
  if (!func && !sort && /\bhow (?:slow|fast|long)\b|\b(?:latency|response times?|load times?|durations?)\b/.test(text)) {
    // "how slow is /checkout", "latency of the api service": the average duration.
    const duration = defaultMeasure('duration');
    if (duration) func = `avg(${gqlField(duration)})`;
  }
  if (!func && !sort) {
    const revenue = firstField((field) => field.numeric && field.concept === 'amount');
    if (revenue && /\b(?:revenue|sales|spend|spent|gmv)\b/.test(text)) func = `sum(${gqlField(revenue.field.field)})`;
  }
  if (func && !groupField && !overTime && top !== undefined && !entitySort) {
    // "top 5 errors": the rows of the source's main field.
    if (MAIN_GROUP[source]) groupField = MAIN_GROUP[source];
  }
  if (!func && !sort && top !== undefined) limit = top;
  if (!func && superlative && !sort && !groupField) {
    limit = top;
  }

  if (!func && !sort && !groupField && !overTime && top === undefined) {
    // A question that opens with a field in the plural lists its values: "error types in staging", "routes with 500s".
    const lead = firstField((field) => !field.numeric && field.concept !== 'user');
    const opening = lead && text.slice(0, lead.index).split('').every((char, index) => used[index] === 1 || !/[a-z]/.test(char));
    const filler = lead && /^(?:(?:show|list|give|me|the|all|our|which|what|are|were)\s+)*$/.test(text.slice(0, lead.index).replace(/[^a-z\s]/g, ' ').replace(/\s+/g, ' ').trimStart());
    if (lead && (opening || filler) && /(?:s|es)$/.test(text.slice(lead.index, lead.end)) && !isKnownWord(source, lead.field.field)) {
      groupField = lead.field.field;
      func = 'count';
      take(lead.index, lead.end);
    }
  }
  if (groupField || func || sort) meaning = true;
  for (const field of fieldsOf) for (const match of scan(field.pattern)) take(match.index, match.index + match[0].length);
  const unknown = [...text.matchAll(/[a-z][a-z'-]+/g)]
    .filter((word) => isFree(word.index, word.index + word[0].length) && !FILLER.has(word[0]) && word[0].length > 2)
    .map((word) => word[0]);
  return {
    source,
    sourceSaid,
    filters,
    func,
    groupField,
    overTime,
    top: func ? top : undefined,
    sort,
    limit,
    range: time?.range ?? 'last:24h',
    rangeSaid: time !== undefined,
    meaning,
    unknown,
  };
}

/** Whether a field's values are the source's own words (severities, statuses), not stored values. */
function isKnownWord(source: string, field: string): boolean {
  return ['severity', 'level', 'status', 'outcome', 'rating', 'enabled', 'name'].includes(field) && ['logs', 'errors', 'issues', 'spans', 'vitals', 'sessions', 'alerts', 'alert_events'].includes(source);
}

function endsWithPattern(text: string, pattern: RegExp): boolean {
  return new RegExp(`(?:${pattern.source})\\s*(?:is|was|of|=)?\\s*$`).test(text);
}

function startsWithPattern(text: string, pattern: RegExp): boolean {
  return new RegExp(`^(?:${pattern.source})`).test(text);
}

function render(parts: Parts, mode: NlMode): string {
  const { source } = parts;
  let func = parts.func;
  if (!func && (mode === 'alert' || parts.groupField || parts.overTime)) func = 'count';
  // A sessions row may stand for many aggregated sessions.
  if (source === 'sessions' && func === 'count') func = 'sum(quantity)';

  const stages: string[] = [];
  if (func) {
    // An alert metric yields one value (docs/decisions.md "Alerts and SLOs"): no groups, so no top either.
    const groups: string[] = [];
    if (parts.groupField && mode === 'explorer') groups.push(gqlField(parts.groupField));
    if (parts.overTime && mode === 'explorer') groups.push(`time(${parts.overTime})`);
    stages.push(groups.length > 0 ? `${func} by ${groups.join(', ')}` : func);
    if (mode === 'explorer' && groups.length > 0) {
      if (parts.sort) stages.push(`sort ${parts.sort.field} ${parts.sort.direction}`);
      if (parts.top !== undefined) stages.push(parts.sort ? `limit ${parts.top}` : `top ${parts.top}`);
    }
  } else if (mode === 'explorer') {
    if (parts.sort) stages.push(`sort ${parts.sort.field} ${parts.sort.direction}`);
    if (parts.limit !== undefined) stages.push(`limit ${parts.limit}`);
  }
  // Alert rules are state without a time; issues are listed whatever their age unless a time is said.
  if (mode === 'explorer' && source !== 'alerts' && (parts.rangeSaid || source !== 'issues')) stages.push(parts.range);
  const head = [`from:${source}`, ...parts.filters.map((filter) => filter.text)].join(' ');
  return [head, ...stages].join(' | ');
}

const UNITS: Record<string, string> = { second: 's', sec: 's', minute: 'm', min: 'm', hour: 'h', hr: 'h', day: 'd', week: 'w', month: 'd' };

/** "last 3 days", "past hour", "today", "yesterday", "this week": the GQL range and where the phrase is. */
function timeRange(text: string, calendar: Calendar): { range: string; start: number; end: number } | undefined {
  const at = (match: RegExpExecArray, range: string) => ({ range, start: match.index, end: match.index + match[0].length });
  const counted = /\b(?:in |within |over |during |for )?(?:the )?(?:last|past|previous)\s+(\d+|one|two|three|four|five|six|seven|eight|nine|ten|twenty)\s*(seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?)\b/.exec(text);
  if (counted) {
    const count = /^\d+$/.test(counted[1]!) ? Number(counted[1]) : NUMBER_WORDS[counted[1]!]!;
    const unit = counted[2]!.replace(/s$/, '');
    return at(counted, unit === 'month' ? `last:${count * 30}d` : `last:${count}${UNITS[unit]}`);
  }
  const ago = /\b(?:since|from)\s+(\d+)\s*(minutes?|hours?|days?|weeks?)\s+ago\b/.exec(text);
  if (ago) return at(ago, `last:${ago[1]}${UNITS[ago[2]!.replace(/s$/, '')]}`);
  const single = /\b(?:in |within |over |during |for )?(?:the )?(?:last|past|previous)\s+(minute|hour|day|week|month)\b/.exec(text);
  if (single) return at(single, single[1] === 'month' ? 'last:30d' : `last:1${UNITS[single[1]!]}`);
  const day = (daysBefore: number) => calendar.dayStart(daysBefore);
  const yesterday = /\b(?:since )?yesterday\b/.exec(text);
  if (yesterday) return at(yesterday, yesterday[0].startsWith('since') ? `since:${day(1)}` : `since:${day(1)} until:${day(0)}`);
  const today = /\b(?:so far )?today\b|\bsince midnight\b/.exec(text);
  if (today) return at(today, `since:${day(0)}`);
  const week = /\bthis week\b/.exec(text);
  if (week) return at(week, `since:${day((calendar.weekday + 6) % 7)}`);
  const month = /\bthis month\b/.exec(text);
  if (month) return at(month, `since:${day(calendar.date - 1)}`);
  return undefined;
}

/** A field as GQL text: bare when it reads back as one name, quoted otherwise. */
function gqlField(field: string): string {
  return /^[$a-zA-Z_][\w.$]*$/.test(field) && !/^(?:from|where|last|since|until|limit|top|sort|fields|and|or|not|in|time)$/i.test(field) ? field : `"${field.replace(/"/g, '\\"')}"`;
}

/** GQL text of a value: a number, a bare word or path, or a quoted string. */
function gqlValue(value: string | number): string {
  if (typeof value === 'number') return String(value);
  if (value === 'true' || value === 'false') return value;
  return /^[\w./-]+$/.test(value) && !/^\d/.test(value) && !/^(?:and|or|not|in)$/i.test(value) ? value : `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

