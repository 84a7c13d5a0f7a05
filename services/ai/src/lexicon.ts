import { SOURCES, type SchemaDocument } from '@tlm/gql';
import { countryAliases } from './countries';

/** Values seen in a project's stored rows, per source and field (`errors` → `type` → `TypeError`, …): read by vocabulary.ts. */
export type ColumnValues = Record<string, Record<string, string[]>>;

/** A field of a source and the words that name it. */
export interface FieldWord {
  source: string;
  /** The field as GQL names it on that source: a column, or a bag key (`route`, `$browser`). */
  field: string;
  numeric: boolean;
  /** Regular-expression source matching the words (plurals and verb forms included). */
  pattern: RegExp;
  /** What the words mean beyond the field's name: duration, amount, user…, for synonyms such as "slowest". */
  concept?: Concept;
  /** How much the words say about the source, when the prompt names none. */
  weight: number;
}

/** A value a field holds, and how people write it. */
export interface ValueWord {
  source: string;
  field: string;
  value: string | number;
  pattern: RegExp;
  /** Matched against the prompt as written, not lower-cased (country codes: `US`, not "us"). */
  caseSensitive: boolean;
}

export type Concept = 'duration' | 'amount' | 'user' | 'route' | 'status_code' | 'release' | 'environment' | 'service' | 'type' | 'browser' | 'operation' | 'severity' | 'country';

/** Words that name a concept, and which fields hold it (by name): "latency" is the duration field of any source. */
const CONCEPTS: { concept: Concept; field: RegExp; words: string[]; numeric?: boolean; sources?: string[] }[] = [
  { concept: 'duration', field: /duration|latency|elapsed|response_?time|took/, numeric: true, words: ['duration', 'latency', 'response time', 'load time', 'slow', 'slowness', 'how long', 'took', 'time taken', 'speed'] },
  { concept: 'duration', field: /^value$/, numeric: true, sources: ['vitals'], words: ['duration', 'latency', 'load time', 'slow', 'speed', 'score'] },
  { concept: 'amount', field: /amount|revenue|price|total|spend|value$/, numeric: true, words: ['amount', 'revenue', 'sales', 'spend', 'spent', 'money', 'price', 'income', 'order value', 'purchase value', 'gmv'] },
  { concept: 'user', field: /^(?:user_?id|user\.id|userid|distinct_id|customer_?id)$/, words: ['user', 'people', 'person', 'visitor', 'customer', 'account', 'distinct id'] },
  { concept: 'user', field: /^user_count$/, numeric: true, sources: ['issues'], words: ['user', 'people', 'customer'] },
  { concept: 'amount', field: /^event_count$/, numeric: true, sources: ['issues'], words: ['event count', 'event', 'occurrence', 'count', 'frequency', 'times'] },
  { concept: 'route', field: /route|path|url|endpoint|pathname/, words: ['route', 'path', 'url', 'endpoint', 'page'] },
  { concept: 'status_code', field: /status_?code|http\.status/, numeric: true, words: ['status code', 'status', 'http status', 'response code', 'code'] },
  { concept: 'release', field: /^release(?:_last)?$/, words: ['release', 'version'] },
  { concept: 'environment', field: /^(?:environment|env)$/, words: ['environment', 'env'] },
  { concept: 'service', field: /^service(?:_name|\.name)?$/, words: ['service', 'app', 'application', 'microservice'] },
  { concept: 'type', field: /^type$/, sources: ['errors'], words: ['exception type', 'error type', 'exception class', 'type', 'kind', 'class'] },
  { concept: 'browser', field: /browser$/, words: ['browser'] },
  { concept: 'operation', field: /^op$/, sources: ['spans'], words: ['operation', 'op', 'span op'] },
  { concept: 'operation', field: /^name$/, sources: ['spans'], words: ['endpoint', 'transaction', 'span name', 'span'] },
  { concept: 'severity', field: /^(?:severity|level)$/, words: ['severity', 'level'] },
  { concept: 'type', field: /^event_name$/, words: ['name', 'event name', 'event type', 'kind of event'] },
  { concept: 'country', field: /country|country_code/, words: ['country', 'countries', 'nation'] },
];

/** Columns a person does not name by their column name in a question (bookkeeping, ids and raw payloads). */
const UNNAMED_COLUMNS = new Set(['id', 'received_at', 'updated_at', 'end_timestamp', 'events', 'frames', 'breadcrumbs', 'fingerprint_hash', 'span_id', 'parent_span_id', 'metric', 'resolved_in_release', 'short_id', 'fingerprint', 'rule_id', 'issue_id', 'session_id']);

/** Values whose meaning the source's words already carry, written in other ways: "open issues", "poor LCP". */
const VALUE_WORDS: Record<string, Record<string, Record<string, string[]>>> = {
  logs: { severity: { fatal: ['fatal', 'critical'], error: ['error', 'failed', 'failure'], warn: ['warn', 'warning'], info: ['info'], debug: ['debug'] } },
  errors: { level: { fatal: ['fatal', 'critical'], warning: ['warning', 'warn'] } },
  issues: {
    status: { unresolved: ['unresolved', 'open', 'active', 'ongoing'], resolved: ['resolved', 'fixed', 'closed'], ignored: ['ignored', 'muted'], regressed: ['regressed', 'regression'] },
    level: { fatal: ['fatal', 'critical'], warning: ['warning'] },
  },
  spans: { status: { error: ['error', 'failed', 'failing', 'failure'], ok: ['successful', 'succeeded'] } },
  vitals: {
    name: {
      lcp: ['lcp', 'largest contentful paint'],
      inp: ['inp', 'interaction to next paint'],
      cls: ['cls', 'layout shift', 'cumulative layout shift'],
      fcp: ['fcp', 'first contentful paint'],
      ttfb: ['ttfb', 'time to first byte'],
    },
    rating: { good: ['good'], poor: ['poor', 'bad'], 'needs-improvement': ['needs improvement', 'needs-improvement', 'need improvement', 'needing improvement', 'mediocre'] },
  },
  sessions: { outcome: { crashed: ['crashed', 'crash', 'crashing'], errored: ['errored'], abnormal: ['abnormal'], healthy: ['healthy'] } },
  alerts: { severity: { critical: ['critical'], warning: ['warning'], info: ['info'] }, enabled: { true: ['enabled', 'active'], false: ['disabled', 'inactive'] } },
  alert_events: { severity: { critical: ['critical'], warning: ['warning'], info: ['info'] } },
};

/** Other words for event names people use in questions, by the name's letters. */
const EVENT_SYNONYMS: Record<string, string[]> = {
  purchase: ['buy', 'bought', 'order', 'sale'],
  signup: ['sign up', 'register', 'registration', 'new account'],
  pageview: ['page view', 'view', 'visit'],
  login: ['log in', 'sign in', 'logged in'],
  checkout: ['check out'],
};

export interface Lexicon {
  fields: FieldWord[];
  values: ValueWord[];
  events: { name: string; pattern: RegExp }[];
  /** Sources holding rows (by the values read), or every source when nothing was read. */
  withData: Set<string>;
  schema: SchemaDocument;
}

const NO_VALUES: ColumnValues = {};
/** The latest lexicon built for a values object (vocabulary.ts reuses it for a while) and the schema it was built with. */
const built = new WeakMap<ColumnValues, { schema: string; lexicon: Lexicon }>();

/** The lexicon of a schema and values, built once while both stay the same. */
export function lexiconOf(schema: SchemaDocument, values: ColumnValues = NO_VALUES): Lexicon {
  const key = JSON.stringify(schema);
  const cached = built.get(values);
  if (cached?.schema === key) return cached.lexicon;
  const lexicon = buildLexicon(schema, values);
  built.set(values, { schema: key, lexicon });
  return lexicon;
}

/** The vocabulary of a project: the sources' columns, the schema document's properties and event names, stored values. */
function buildLexicon(schema: SchemaDocument, values: ColumnValues = {}): Lexicon {
  const fields: FieldWord[] = [];
  const valueWords: ValueWord[] = [];
  const addField = (source: string, field: string, numeric: boolean, weight: number) => {
    for (const concept of CONCEPTS) {
      if (concept.sources && !concept.sources.includes(source)) continue;
      if (concept.numeric !== undefined && concept.numeric !== numeric) continue;
      if (!concept.field.test(field.replace(/^\$/, '').toLowerCase())) continue;
      fields.push({ source, field, numeric, pattern: wordsPattern(concept.words), concept: concept.concept, weight });
    }
    fields.push({ source, field, numeric, pattern: wordsPattern(nameWords(field)), weight });
  };

  for (const source of SOURCES) {
    for (const [name, column] of source.columns) {
      if (UNNAMED_COLUMNS.has(name) || column.kind === 'timestamp' || column.kind === 'json') continue;
      addField(source.name, name, column.kind === 'number', name === 'distinct_id' ? 1.2 : 1);
    }
    for (const [field, known] of Object.entries(VALUE_WORDS[source.name] ?? {})) {
      for (const [value, words] of Object.entries(known)) {
        valueWords.push({ source: source.name, field, value, pattern: wordsPattern(words), caseSensitive: false });
      }
    }
  }
  const bagProperties: [string, SchemaDocument['log_properties']][] = [
    ['logs', schema.log_properties],
    ['events', schema.event_properties],
  ];
  for (const [source, properties] of bagProperties) {
    for (const property of properties) {
      if (property.key.startsWith('$') && !/browser|os|device/.test(property.key)) continue;
      addField(source, property.key, property.type === 'number', 1);
      for (const example of property.examples) if (typeof example === 'string') valueWords.push(...valueWordsOf(source, property.key, example));
    }
  }
  for (const [source, byField] of Object.entries(values)) {
    for (const [field, seen] of Object.entries(byField)) {
      if (!fields.some((entry) => entry.source === source && entry.field === field)) addField(source, field, false, 1);
      for (const value of seen) {
        if (!valueWords.some((entry) => entry.source === source && entry.field === field && entry.value === value)) valueWords.push(...valueWordsOf(source, field, value));
      }
    }
  }
  const events = schema.event_names.map(({ name }) => ({ name, pattern: eventPattern(name) }));
  // Sources with rows: those whose values were read, and logs and events when the schema document has seen some.
  const read = Object.keys(values);
  if (schema.log_properties.length > 0) read.push('logs');
  if (schema.event_names.length > 0) read.push('events');
  return { fields, values: valueWords, events, withData: new Set(Object.keys(values).length > 0 ? read : SOURCES.map((source) => source.name)), schema };
}

/** A stored value as words: on word boundaries, in the plural, and for countries by name and code. */
function valueWordsOf(source: string, field: string, value: string): ValueWord[] {
  // One letter, or only digits and punctuation (ids, counts): too easily found inside other words and numbers.
  if (value.length < 2 || value.length > 80 || !/[a-z]{2}|^\/|^v?\d+\.\d+/i.test(value)) return [];
  const words: ValueWord[] = [];
  const country = /country|nation/i.test(field) ? countryAliases(value) : { names: [] as string[] };
  // Two letters are matched as written: `US`, `IN`, `EU`, not the words "us", "in", "eu" of a sentence.
  const short = value.length <= 2;
  words.push({ source, field, value, pattern: wordsPattern([short ? value : value.toLowerCase()]), caseSensitive: short });
  if (country.names.length > 0) words.push({ source, field, value, pattern: wordsPattern(country.names), caseSensitive: false });
  if (country.code && country.code !== value) words.push({ source, field, value, pattern: wordsPattern([country.code]), caseSensitive: true });
  return words;
}

/** A field name as people write it: `duration_ms` → "duration ms", "duration"; `user.plan` → "user plan", "plan". */
function nameWords(field: string): string[] {
  const bare = field.replace(/^\$/, '').toLowerCase();
  const spaced = bare.replace(/[._-]+/g, ' ').trim();
  const unitless = spaced.replace(/ (?:ms|s|sec|seconds|id|name)$/, '');
  const last = spaced.split(' ').at(-1)!;
  return [...new Set([bare, spaced, unitless, spaced.includes(' ') && !/^(?:ms|s|id|name|count|code|last|first|minutes|at|seen)$/.test(last) ? last : unitless])];
}

const BEFORE = '(?<![\\w$@/.\\-])';
const AFTER = '(?![\\w@/\\-]|\\.\\w)';

/** Words or phrases on word boundaries; the last word of each may be plural or a verb form. */
export function wordsPattern(phrases: readonly string[]): RegExp {
  const alternatives = phrases.map(phraseSource);
  return new RegExp(`${BEFORE}(?:${alternatives.join('|')})${AFTER}`, 'g');
}

function phraseSource(phrase: string): string {
  const words = phrase.split(/\s+/).filter((word) => word.length > 0);
  return words.map((word, index) => (index === words.length - 1 ? inflected(word) : escapeRegExp(word))).join('[\\s_-]+');
}

/** A word and its plural, past and -ing forms: purchase → purchases, purchased, purchasing; country → countries. */
function inflected(word: string): string {
  const stem = escapeRegExp(word);
  if (!/[a-z]$/.test(word) || word.length < 3) return `${stem}(?:s)?`;
  const forms = [`${stem}(?:s|es|ed|d|ing|'s)?`];
  if (word.endsWith('e')) forms.push(`${escapeRegExp(word.slice(0, -1))}ing`);
  if (word.endsWith('y')) forms.push(`${escapeRegExp(word.slice(0, -1))}ies`);
  if (/[^aeiou][aeiou][bdglmnprt]$/.test(word)) forms.push(`${stem}${word.at(-1)}(?:ed|ing)`);
  return `(?:${forms.join('|')})`;
}

/**
 * An event name in the forms people write it: `signup` as "signups", "sign-ups", "signed up"; `checkout_completed`
 * as "checkout completed"; `pageview` as "page views"; with the synonyms of EVENT_SYNONYMS.
 */
function eventPattern(name: string): RegExp {
  const lower = name.toLowerCase();
  const words = lower.split(/[\s_.:-]+|(?<=[a-z])(?=[A-Z])/).filter((word) => word.length > 0);
  const phrases = [phraseSource(words.join(' '))];
  const particle = /^([a-z]{3,}?)(up|in|out|view)$/.exec(words.join(''));
  if (particle) phrases.push(`${inflectedVerb(particle[1]!)}[\\s-]?${particle[2]}s?`);
  for (const synonym of EVENT_SYNONYMS[words.join('')] ?? []) phrases.push(phraseSource(synonym));
  return new RegExp(`${BEFORE}(?:${phrases.join('|')})${AFTER}`, 'g');
}

function inflectedVerb(verb: string): string {
  const stem = escapeRegExp(verb);
  return `(?:${stem}(?:s|ed|ing)?|${stem}${verb.at(-1)}(?:ed|ing))`;
}

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
