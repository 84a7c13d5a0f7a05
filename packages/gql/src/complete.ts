import { tokenize, type Token } from './lexer';
import { MAX_QUERY_LENGTH, MAX_TOKENS, expectations, parse, runGrammar, type Expectation } from './parse';
import { compileQuery } from './plan';
import { findSource, SOURCES, type SourceDefinition } from './sources';

/** The discovered-schema document of SPEC.md "Schema document" (only what autocomplete reads). */
export interface SchemaDocument {
  log_properties: { key: string; type: string; examples: unknown[]; volume: number }[];
  event_properties: { key: string; type: string; examples: unknown[]; volume: number }[];
  event_names: { name: string; volume: number }[];
}

export type SuggestionKind = 'source' | 'field' | 'operator' | 'value' | 'function';

export interface Suggestion {
  /** Replaces the word at the cursor (or is inserted at the cursor when there is none). */
  text: string;
  description: string;
  kind: SuggestionKind;
}

export interface Completion {
  suggestions: Suggestion[];
  valid: boolean;
  parsed: { source: string; filters: unknown[] };
}

const MAX_SUGGESTIONS = 50;
const PARTIAL_TYPES = new Set(['word', 'number', 'duration', 'datetime', 'string', 'unterminated']);
const OPERATORS: Suggestion[] = [
  { text: ':', description: 'equals (field:value, field:val* for a prefix, field:[a,b] for any of)', kind: 'operator' },
  { text: '=', description: 'equals', kind: 'operator' },
  { text: '!=', description: 'does not equal', kind: 'operator' },
  { text: '>', description: 'greater than', kind: 'operator' },
  { text: '>=', description: 'greater than or equal', kind: 'operator' },
  { text: '<', description: 'less than', kind: 'operator' },
  { text: '<=', description: 'less than or equal', kind: 'operator' },
  { text: 'in', description: 'any of a list: field in [a, b]', kind: 'operator' },
];
const FUNCTIONS: Suggestion[] = [
  { text: 'count', description: 'number of rows (add "by field" to group)', kind: 'function' },
  { text: 'count_distinct(', description: 'number of distinct values of a field', kind: 'function' },
  { text: 'sum(', description: 'sum of a numeric field', kind: 'function' },
  { text: 'avg(', description: 'average of a numeric field', kind: 'function' },
  { text: 'min(', description: 'smallest value of a numeric field', kind: 'function' },
  { text: 'max(', description: 'largest value of a numeric field', kind: 'function' },
  { text: 'p50(', description: 'median of a numeric field', kind: 'function' },
  { text: 'p75(', description: '75th percentile of a numeric field', kind: 'function' },
  { text: 'p90(', description: '90th percentile of a numeric field', kind: 'function' },
  { text: 'p95(', description: '95th percentile of a numeric field', kind: 'function' },
  { text: 'p99(', description: '99th percentile of a numeric field', kind: 'function' },
  { text: 'where', description: 'keep rows matching a condition', kind: 'function' },
  { text: 'last', description: 'time range ending now, e.g. last 24h', kind: 'function' },
  { text: 'since:', description: 'start of the time range (ISO 8601)', kind: 'function' },
  { text: 'until:', description: 'end of the time range (ISO 8601)', kind: 'function' },
  { text: 'sort', description: 'order results: sort field asc|desc', kind: 'function' },
  { text: 'limit', description: 'at most n rows', kind: 'function' },
  { text: 'top', description: 'the n largest groups (or first n rows)', kind: 'function' },
  { text: 'fields', description: 'columns of a search: fields a, b', kind: 'function' },
];
const DURATIONS: Suggestion[] = ['15m', '1h', '24h', '7d', '30d'].map((text) => ({ text, description: 'duration', kind: 'value' }));
const CONNECTIVES: Suggestion[] = [
  { text: 'AND', description: 'both conditions', kind: 'operator' },
  { text: 'OR', description: 'either condition', kind: 'operator' },
  { text: 'NOT', description: 'negates the next condition', kind: 'operator' },
];

/** The word being typed at the cursor, and the tokens before it. */
function splitAtCursor(text: string, cursor: number): { before: Token[]; partial: string } {
  const tokens = tokenize(text.slice(0, cursor));
  const last = tokens[tokens.length - 1];
  if (last && last.offset + last.text.length === cursor && (PARTIAL_TYPES.has(last.type) || last.type.startsWith('kw_'))) {
    const partial = last.type === 'string' || last.type === 'unterminated' ? last.text.replace(/^["']|["']$/g, '') : last.text;
    return { before: tokens.slice(0, -1), partial };
  }
  return { before: tokens, partial: '' };
}

function sourceOf(tokens: Token[]): SourceDefinition {
  for (let index = 0; index < tokens.length; index += 1) {
    if (tokens[index]!.type !== 'kw_from') continue;
    const next = tokens[index + 1]?.type === 'colon' ? tokens[index + 2] : tokens[index + 1];
    const source = next ? findSource(next.value) : undefined;
    if (source) return source;
  }
  return findSource('logs')!;
}

const COMPARISON_TYPES = new Set(['colon', 'eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'kw_in']);

/** The field whose value is being typed: `severity:`, `status = `, `route in [a, `. */
function fieldBeforeValue(tokens: Token[]): string | undefined {
  let index = tokens.length - 1;
  if (tokens[index]?.type === 'lbracket' || tokens[index]?.type === 'comma' || tokens[index]?.type === 'lparen') {
    while (index >= 0 && tokens[index]!.type !== 'lbracket' && tokens[index]!.type !== 'lparen') index -= 1;
    index -= 1;
  }
  while (index >= 0 && COMPARISON_TYPES.has(tokens[index]!.type)) index -= 1;
  if (tokens[index]?.type === 'kw_not') index -= 1;
  const field = tokens[index];
  return field && (field.type === 'word' || field.type === 'string' || field.type.startsWith('kw_')) ? field.value : undefined;
}

interface FieldSuggestion extends Suggestion {
  /** The field's name as a condition names it (`text` may quote it). */
  name: string;
  /** A column, or a property key of the schema document. */
  values: string[];
  /** The key in the source's default bag, for a property of the schema document. */
  property?: string;
}

function fieldsOf(source: SourceDefinition, schema: SchemaDocument | undefined): FieldSuggestion[] {
  const fields: FieldSuggestion[] = [];
  for (const column of source.columns.values()) {
    fields.push({
      text: column.name,
      name: column.name,
      description: `${column.kind} column of ${source.name}`,
      kind: 'field',
      values: column.kind === 'bool' ? ['true', 'false'] : (source.knownValues[column.name] ?? []),
    });
  }
  for (const [alias, target] of Object.entries(source.aliases)) {
    fields.push({ text: alias, name: alias, description: `same as ${target}`, kind: 'field', values: source.knownValues[target] ?? [] });
  }
  if (source.name === 'events' && schema) {
    const names = [...schema.event_names].sort((a, b) => b.volume - a.volume).map((event) => event.name);
    for (const field of fields) if (field.text === 'event_name' || field.text === 'event') field.values = names;
  }
  const properties = source.name === 'logs' ? schema?.log_properties : source.name === 'events' ? schema?.event_properties : undefined;
  for (const property of [...(properties ?? [])].sort((a, b) => b.volume - a.volume)) {
    const bare = !source.columns.has(property.key) && !source.aliases[property.key] && !source.bags.has(property.key);
    const name = bare ? property.key : `${source.defaultBag}.${property.key}`;
    fields.push({
      text: fieldText(name),
      name,
      description: `property (${property.type}), seen ${property.volume} times`,
      kind: 'field',
      values: property.examples.filter((example) => example !== null && typeof example !== 'object').map(String),
      property: property.key,
    });
  }
  for (const bag of source.bags.keys()) {
    fields.push({ text: `${bag}.`, name: `${bag}.`, description: `a key of the ${bag} property bag`, kind: 'field', values: [] });
  }
  return fields;
}

/** A field name as written in a query: quoted unless it reads as one plain word (`"order id"`, `"limit"`). */
function fieldText(name: string): string {
  const tokens = tokenize(name);
  return tokens.length === 1 && tokens[0]!.type === 'word' && tokens[0]!.text === name ? name : JSON.stringify(name);
}

/** Values are quoted when they would not lex as one word. */
function valueText(value: string): string {
  return /^[^\s"'()[\],|:=!<>-][^\s"'()[\],|:=!<>]*$/.test(value) && !value.includes('*') ? value : JSON.stringify(value);
}

/** A quoted suggestion matches what is typed inside its quotes too (`ord` and `"ord` both find `"order id"`). */
const startsWithFolded = (text: string, partial: string) => text.replace(/^"/, '').toLowerCase().startsWith(partial.toLowerCase());

/** Suggestions for the cursor position of a partial query (SPEC.md Dashboard API autocomplete). */
export function complete(text: string, cursor: number | undefined, schema?: SchemaDocument): Completion {
  if (text.length > MAX_QUERY_LENGTH) return { suggestions: [], valid: false, parsed: { source: 'logs', filters: [] } };
  const at = Math.max(0, Math.min(cursor ?? text.length, text.length));
  const { before, partial } = splitAtCursor(text, at);
  const source = sourceOf(tokenize(text));
  const suggestions: Suggestion[] = [];
  const { parser, failedAt } = runGrammar(before.length > MAX_TOKENS ? [] : before);
  if (failedAt === null && before.length <= MAX_TOKENS) {
    const wanted = new Set<Expectation>(expectations(parser).flatMap((expectation) => expectation.expected));
    const previous = before[before.length - 1];
    const fields = fieldsOf(source, schema);
    const offer = (items: Suggestion[]) => {
      for (const item of items) {
        if (partial && !startsWithFolded(item.text, partial)) continue;
        if (suggestions.some((existing) => existing.text === item.text && existing.kind === item.kind)) continue;
        suggestions.push({ text: item.text, description: item.description, kind: item.kind });
      }
    };
    if (wanted.has('a source name')) {
      offer(SOURCES.map((candidate) => ({ text: candidate.name, description: candidate.description, kind: 'source' })));
    }
    if (wanted.has('a value')) {
      const name = fieldBeforeValue(before);
      // `properties.route` names the property `route` as the bare name does (docs/gql.md "Field names").
      const bagPrefix = `${source.defaultBag}.`;
      const key = source.defaultBag && name?.startsWith(bagPrefix) ? name.slice(bagPrefix.length) : undefined;
      const field = fields.find((candidate) => candidate.name === name || (key !== undefined && candidate.property === key));
      offer((field?.values ?? []).map((value) => ({ text: valueText(value), description: `${name} value`, kind: 'value' as const })));
    }
    if (wanted.has('a duration such as 24h')) offer(DURATIONS);
    if (wanted.has("':' or an operator") && previous && !wanted.has('a value')) offer(OPERATORS);
    if (wanted.has('a condition') && (!previous || previous.type === 'pipe')) {
      if (!previous) offer(SOURCES.map((candidate) => ({ text: `from:${candidate.name}`, description: candidate.description, kind: 'source' })));
      offer(FUNCTIONS);
    }
    if (wanted.has('a field name') || wanted.has('a condition')) offer(fields);
    if (wanted.has("'by'")) offer([{ text: 'by', description: 'group the aggregate by fields or time(5m)', kind: 'function' }]);
    if (wanted.has("'asc' or 'desc'")) {
      offer([
        { text: 'asc', description: 'smallest first', kind: 'operator' },
        { text: 'desc', description: 'largest first', kind: 'operator' },
      ]);
    }
    if (wanted.has('AND or OR') && partial) offer(CONNECTIVES);
  }
  let valid = false;
  let parsed: Completion['parsed'] = { source: source.name, filters: [] };
  try {
    const query = parse(text);
    parsed = { source: query.source, filters: query.filters };
    compileQuery(text);
    valid = true;
  } catch {
    valid = false;
  }
  return { suggestions: suggestions.slice(0, MAX_SUGGESTIONS), valid, parsed };
}
