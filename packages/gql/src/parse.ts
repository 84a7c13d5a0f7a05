import nearley from 'nearley';
import {
  isClause,
  type Aggregate,
  type Bound,
  type Clause,
  type Comparison,
  type Count,
  type Duration,
  type Fields,
  type Last,
  type Literal,
  type Name,
  type Node,
  type Position,
  type Segment,
  type Sort,
} from './ast';
import { GqlQueryError, GqlSyntaxError, at } from './errors';
import grammar from './grammar';
import { lexer, tokenize, type Token } from './lexer';

/** Longer queries are refused before parsing (422): GQL is typed by people, and the parser's work grows with it. */
export const MAX_QUERY_LENGTH = 16_384;
export const MAX_TOKENS = 4_000;
/** Parentheses and negations nested deeper than this are refused (422). */
export const MAX_NESTING = 32;
export const DEFAULT_SOURCE = 'logs';

/** A query after parsing: every clause at most once, the conditions as the top-level conjuncts. */
export interface QueryAst {
  text: string;
  source: Name | null;
  filter: Node[];
  last: Last | null;
  since: Bound | null;
  until: Bound | null;
  aggregate: Aggregate | null;
  sort: Sort | null;
  limit: Count | null;
  top: Count | null;
  fields: Fields | null;
}

const compiledGrammar = nearley.Grammar.fromCompiled(grammar);

interface ParserItem {
  rule: { name: string; symbols: unknown[] };
  dot: number;
  wantedBy: ParserItem[];
}

interface ParserState {
  table: { states: ParserItem[] }[];
  current: number;
  results: Segment[][];
}

/** Runs the grammar over tokens; `failedAt` is the index of the first token no parse accepts. */
export function runGrammar(tokens: Token[]): { parser: ParserState; failedAt: number | null } {
  lexer.load(tokens);
  const parser = new nearley.Parser(compiledGrammar) as unknown as nearley.Parser & ParserState;
  // nearley renders a long diagnostic before throwing; the message is rebuilt from the parse table instead.
  const quiet = parser as unknown as { reportError: () => string; reportLexerError: () => string };
  quiet.reportError = () => '';
  quiet.reportLexerError = () => '';
  try {
    parser.feed('');
    return { parser, failedAt: null };
  } catch (error) {
    const token = (error as { token?: Token }).token;
    return { parser, failedAt: token ? tokens.indexOf(token) : parser.current };
  }
}

/** What the query may continue with, in a person's words; also the categories autocomplete offers. */
export type Expectation =
  | 'a field name'
  | 'a value'
  | 'a source name'
  | 'a duration such as 24h'
  | 'a date such as 2024-05-01T00:00:00Z'
  | 'a whole number'
  | "':' or an operator"
  | 'a condition'
  | "'|'"
  | "'('"
  | "')'"
  | "'['"
  | "']'"
  | "','"
  | "'by'"
  | "'asc' or 'desc'"
  | 'AND or OR';

/** Rules that stand for one thing a person types. */
const NAMED_RULES: Record<string, Expectation> = {
  field: 'a field name',
  value: 'a value',
  sourceName: 'a source name',
  durationValue: 'a duration such as 24h',
  boundValue: 'a date such as 2024-05-01T00:00:00Z',
  integer: 'a whole number',
  comparison: "':' or an operator",
  condition: 'a condition',
  clause: 'a condition',
  atom: 'a condition',
  unary: 'a condition',
};

/** Tokens that continue a rule already under way. */
const CONTINUATIONS: Record<string, Expectation> = {
  colon: "':' or an operator",
  kw_in: "':' or an operator",
  kw_not: "':' or an operator",
  pipe: "'|'",
  lparen: "'('",
  rparen: "')'",
  lbracket: "'['",
  rbracket: "']'",
  comma: "','",
  kw_by: "'by'",
  kw_asc: "'asc' or 'desc'",
  kw_desc: "'asc' or 'desc'",
  kw_or: 'AND or OR',
  kw_and: 'AND or OR',
};

/** Names what a state expecting a terminal is after: the nearest named rule it was predicted for. */
function describeItem(item: ParserItem, type: string): Expectation[] {
  if (item.dot > 0) {
    if (item.rule.name === 'clause' && type === 'colon') return [];
    const continuation = CONTINUATIONS[type];
    return continuation ? [continuation] : [];
  }
  const found = new Set<Expectation>();
  const visited = new Set<ParserItem>();
  const pending = [item];
  while (pending.length > 0) {
    const current = pending.pop()!;
    if (visited.has(current)) continue;
    visited.add(current);
    if (current.dot > 0) continue;
    const named = NAMED_RULES[current.rule.name];
    if (named) found.add(named);
    else pending.push(...current.wantedBy);
  }
  return [...found];
}

/** Terminal expectations after the last accepted token: token types and what they stand for. */
export function expectations(parser: ParserState): { type: string; expected: Expectation[] }[] {
  const column = parser.table[parser.current];
  const found: { type: string; expected: Expectation[] }[] = [];
  for (const state of column?.states ?? []) {
    const symbol = state.rule.symbols[state.dot] as { type?: string } | string | undefined;
    if (symbol && typeof symbol === 'object' && symbol.type) found.push({ type: symbol.type, expected: describeItem(state, symbol.type) });
  }
  return found;
}

/** Parses GQL text into its clauses and conditions; throws GqlSyntaxError (400) or GqlQueryError (422). */
export function parseAst(text: string): QueryAst {
  if (text.length > MAX_QUERY_LENGTH) {
    throw new GqlQueryError(`the query is ${text.length} characters long; at most ${MAX_QUERY_LENGTH} are allowed`);
  }
  const tokens = tokenize(text);
  if (tokens.length > MAX_TOKENS) {
    throw new GqlQueryError(`the query has ${tokens.length} terms; at most ${MAX_TOKENS} are allowed`, startOf(tokens[MAX_TOKENS]!));
  }
  if (tokens.length === 0) return build([], text);
  const { parser, failedAt } = runGrammar(tokens);
  if (failedAt !== null) throw syntaxError(text, tokens, failedAt, parser);
  const [segments] = parser.results;
  if (!segments) throw syntaxError(text, tokens, tokens.length, parser);
  return build(segments, text);
}

const startOf = (token: Token): Position => ({ offset: token.offset, line: token.line, column: token.col });

function endOf(text: string): Position {
  const lines = text.split('\n');
  return { offset: text.length, line: lines.length, column: lines[lines.length - 1]!.length + 1 };
}

function joinWords(words: string[]): string {
  if (words.length <= 1) return words[0] ?? '';
  return `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}`;
}

const TWO_PART = new Set(['colon', 'eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'kw_in', 'lparen', 'comma']);
const AGGREGATE_WORDS = new Set(['kw_count', 'kw_count_distinct', 'kw_sum', 'kw_avg', 'kw_min', 'kw_max', 'kw_p50', 'kw_p75', 'kw_p90', 'kw_p95', 'kw_p99']);

/** The words before a failure, as written: `count by`, `severity:`, `p95(duration) by`. */
function contextBefore(text: string, tokens: Token[], index: number): string {
  const previous = tokens[index - 1];
  if (!previous) return '';
  let first = index - 1;
  if (previous.type === 'kw_by') {
    for (let scan = index - 2; scan >= 0 && scan >= index - 6; scan -= 1) {
      if (AGGREGATE_WORDS.has(tokens[scan]!.type)) {
        first = scan;
        break;
      }
      if (tokens[scan]!.type === 'pipe') break;
    }
  } else if (TWO_PART.has(previous.type) && index >= 2 && tokens[index - 2]!.type !== 'pipe') {
    first = index - 2;
  }
  const end = previous.offset + previous.text.length;
  const context = text.slice(tokens[first]!.offset, end).replace(/\s+/g, ' ');
  return context.length > 40 ? `…${context.slice(-39)}` : context;
}

function shown(token: Token): string {
  const text = token.text.length > 30 ? `${token.text.slice(0, 29)}…` : token.text;
  return `'${text}'`;
}

function syntaxError(text: string, tokens: Token[], index: number, parser: ParserState): GqlSyntaxError {
  const multiline = text.includes('\n');
  const token = tokens[index];
  if (token?.type === 'unterminated') {
    return new GqlSyntaxError(`unterminated string starting ${at(startOf(token), multiline)}`, startOf(token), ['a closing quote']);
  }
  if (token?.type === 'error') {
    return new GqlSyntaxError(`unexpected character '${token.text[0]}' ${at(startOf(token), multiline)}`, startOf(token));
  }
  const position = token ? startOf(token) : endOf(text);
  const expected = [...new Set(expectations(parser).flatMap((expectation) => expectation.expected))];
  let wanted: string[] = expected;
  if (expected.includes('a value')) wanted = expected.filter((word) => word !== "'['" && word !== "':' or an operator");
  if (expected.includes('a field name')) wanted = wanted.filter((word) => word !== "':' or an operator");
  const context = contextBefore(text, tokens, index);
  const after = context ? ` after '${context}'` : '';
  if (!token && wanted.includes("')'")) {
    const open = unclosedParenthesis(tokens);
    const opened = open ? ` to close the '(' ${at(startOf(open), multiline)}` : '';
    return new GqlSyntaxError(`expected ')' ${at(position, multiline)}${opened}`, position, ["')'"]);
  }
  if (token && wanted.includes('a condition')) {
    return new GqlSyntaxError(`unexpected ${shown(token)} ${at(position, multiline)}`, position, wanted);
  }
  if (!token && wanted.includes('a condition')) wanted = ['a condition'];
  if (wanted.length === 0) return new GqlSyntaxError(`unexpected ${token ? shown(token) : 'end of query'} ${at(position, multiline)}`, position);
  return new GqlSyntaxError(`expected ${joinWords(wanted)}${after} ${at(position, multiline)}`, position, wanted);
}

function unclosedParenthesis(tokens: Token[]): Token | undefined {
  const open: Token[] = [];
  for (const token of tokens) {
    if (token.type === 'lparen') open.push(token);
    else if (token.type === 'rparen') open.pop();
  }
  return open[open.length - 1];
}

type ClauseSlot = 'source' | 'last' | 'since' | 'until' | 'aggregate' | 'sort' | 'limit' | 'top' | 'fields';

const CLAUSE_NAMES: Record<Clause['kind'], string> = {
  from: "'from:'",
  last: "'last'",
  since: "'since:'",
  until: "'until:'",
  limit: "'limit'",
  top: "'top'",
  sort: "'sort'",
  fields: "'fields'",
  aggregate: 'an aggregate function',
};

/** Assembles segments into one query and checks what the grammar cannot: each clause once, clauses at the top. */
function build(segments: Segment[], text: string): QueryAst {
  const multiline = text.includes('\n');
  const ast: QueryAst = {
    text,
    source: null,
    filter: [],
    last: null,
    since: null,
    until: null,
    aggregate: null,
    sort: null,
    limit: null,
    top: null,
    fields: null,
  };
  const place = (clause: Clause) => {
    const slot: ClauseSlot = clause.kind === 'from' ? 'source' : clause.kind;
    if (ast[slot] !== null) {
      const message =
        clause.kind === 'aggregate'
          ? `a query has one aggregate function; found a second ${at(clause.pos, multiline)}`
          : `${CLAUSE_NAMES[clause.kind]} appears twice; the second is ${at(clause.pos, multiline)}`;
      throw new GqlSyntaxError(message, clause.pos);
    }
    if (clause.kind === 'from') ast.source = clause.source;
    else (ast as unknown as Record<string, Clause>)[slot] = clause;
  };
  for (const segment of segments) {
    for (const node of conjunctsOf(hoistClauses(segment.expr, multiline))) {
      if (isClause(node)) place(node);
      else {
        checkCondition(node, multiline);
        ast.filter.push(node);
      }
    }
  }
  if (ast.last && ast.since) {
    throw new GqlSyntaxError(`use either 'last' or 'since:', not both ${at(ast.since.pos, multiline)}`, ast.since.pos);
  }
  if (ast.limit && ast.top) {
    throw new GqlSyntaxError(`use either 'limit' or 'top', not both ${at(ast.top.pos, multiline)}`, ast.top.pos);
  }
  return ast;
}

const conjunctsOf = (node: Node): Node[] => (node.kind === 'and' ? node.items : [node]);

/**
 * `from:errors a OR b last:1h` means the source and range apply to the whole condition, as people read it: clauses
 * leading the first OR branch or trailing the last one belong to the segment. Anywhere else inside OR they are refused.
 */
function hoistClauses(expr: Node, multiline: boolean): Node {
  if (expr.kind !== 'or') return expr;
  const first = conjunctsOf(expr.items[0]!);
  const last = conjunctsOf(expr.items[expr.items.length - 1]!);
  let lead = 0;
  while (lead < first.length && isClause(first[lead]!)) lead += 1;
  let trail = 0;
  while (trail < last.length && isClause(last[last.length - 1 - trail]!)) trail += 1;
  if (lead === 0 && trail === 0) return expr;
  const branch = (items: Node[], side: Node): Node => {
    if (items.length === 0) throw new GqlSyntaxError(`OR needs a condition on each side ${at(side.pos, multiline)}`, side.pos);
    return items.length === 1 ? items[0]! : { kind: 'and', items, pos: items[0]!.pos, depth: Math.max(...items.map((item) => item.depth)) };
  };
  const items = [...expr.items];
  items[0] = branch(first.slice(lead), expr.items[0]!);
  items[items.length - 1] = branch(last.slice(0, last.length - trail), expr.items[items.length - 1]!);
  const condition: Node = { kind: 'or', items, pos: expr.pos, depth: expr.depth };
  return { kind: 'and', items: [...first.slice(0, lead), condition, ...last.slice(last.length - trail)], pos: expr.pos, depth: expr.depth };
}

/** Nesting limit, no clauses inside OR / NOT / parentheses, wildcards only at the end, finite numbers. */
function checkCondition(root: Node, multiline: boolean): void {
  if (root.depth > MAX_NESTING) {
    throw new GqlQueryError(`conditions are nested ${root.depth} levels deep; at most ${MAX_NESTING} are allowed`, root.pos);
  }
  const pending: Node[] = [root];
  while (pending.length > 0) {
    const node = pending.pop()!;
    if (isClause(node)) {
      throw new GqlSyntaxError(
        `${CLAUSE_NAMES[node.kind]} cannot be inside OR, NOT or parentheses ${at(node.pos, multiline)}`,
        node.pos,
      );
    }
    if (node.kind === 'and' || node.kind === 'or') pending.push(...node.items);
    else if (node.kind === 'not' || node.kind === 'group') pending.push(node.item);
    else if (node.kind === 'condition') {
      for (const literal of Array.isArray(node.value) ? node.value : [node.value]) checkLiteral(literal, node.op, multiline);
    }
  }
}

function checkLiteral(literal: Literal, op: string, multiline: boolean): void {
  if (literal.kind === 'number' && !Number.isFinite(Number(literal.text))) {
    throw new GqlQueryError(`the number ${literal.text.slice(0, 40)} is out of range ${at(literal.pos, multiline)}`, literal.pos);
  }
  if (literal.kind === 'word' && literal.text.includes('*')) {
    const star = literal.text.indexOf('*');
    if (op !== 'colon' || star !== literal.text.length - 1) {
      const position = { ...literal.pos, offset: literal.pos.offset + star, column: literal.pos.column + star };
      throw new GqlSyntaxError(
        `'*' matches a prefix only at the end of a value after ':' (field:val*); quote it to search for '*' ${at(position, multiline)}`,
        position,
      );
    }
  }
}

// The dashboard's query shape (SPEC.md "Dashboard API"), extended with time range, sort, limit, fields, interval.

export type FilterOp = Comparison | 'in' | 'not in' | 'prefix' | 'search';
export type FilterValue = string | number | (string | number)[];
/** One condition; `field` is `_text` for free-text search. */
export interface FieldFilter {
  field: string;
  op: FilterOp;
  value: FilterValue;
}
/** OR, AND (inside an OR) and NOT over conditions. */
export interface FilterGroup {
  op: 'and' | 'or' | 'not';
  filters: Filter[];
}
export type Filter = FieldFilter | FilterGroup;

export interface PipelineStage {
  type: 'aggregate';
  func: string;
  field: string | null;
  group_by: string[];
}

export interface GqlQuery {
  source: string;
  mode: 'search' | 'aggregate';
  filters: Filter[];
  pipeline: PipelineStage[];
  /** `last` is a duration (`24h`); `since`/`until` are ISO 8601 times or durations before now. */
  time_range: { last?: string; since?: string; until?: string } | null;
  sort: { field: string; direction: 'asc' | 'desc' }[];
  limit: number | null;
  fields: string[] | null;
  /** Time-series bucket of `by time(5m)`. */
  interval: string | null;
}

export const FULL_TEXT_FIELD = '_text';

export const literalValue = (literal: Literal): string | number =>
  literal.kind === 'number' ? Number(literal.text) : literal.text;

/** `field:val*` is a prefix match; `field:*` means the field is present. */
export const isPrefix = (literal: Literal): boolean => literal.kind === 'word' && literal.text.endsWith('*');

const NEGATED: Partial<Record<FilterOp, FilterOp>> = { '=': '!=', '!=': '=', in: 'not in', 'not in': 'in' };

function toFilter(node: Node): Filter {
  switch (node.kind) {
    case 'condition': {
      if (Array.isArray(node.value)) return { field: node.field.name, op: node.op === 'not in' ? 'not in' : 'in', value: node.value.map(literalValue) };
      if (node.op !== 'colon') return { field: node.field.name, op: node.op as Comparison, value: literalValue(node.value) };
      if (isPrefix(node.value)) return { field: node.field.name, op: 'prefix', value: node.value.text.slice(0, -1) };
      return { field: node.field.name, op: '=', value: literalValue(node.value) };
    }
    case 'search':
      return { field: FULL_TEXT_FIELD, op: 'search', value: node.bare ? node.text.replace(/\*$/, '') : node.text };
    case 'and':
    case 'or':
      return { op: node.kind, filters: node.items.map(toFilter) };
    case 'group':
      return toFilter(node.item);
    case 'not': {
      const inner = toFilter(node.item);
      if ('field' in inner && NEGATED[inner.op]) return { ...inner, op: NEGATED[inner.op]! };
      if (!('field' in inner) && inner.op === 'not') return inner.filters[0]!;
      return { op: 'not', filters: [inner] };
    }
    default:
      throw new Error(`clause ${node.kind} inside a condition`);
  }
}

function timeText(value: Literal | Duration): string {
  if ('unit' in value) return value.text;
  const parsed = parseTime(value.text);
  return parsed ? parsed.toISOString() : value.text;
}

/** ISO 8601 date or date-time; no zone means UTC. Undefined when it is not a valid time. */
export function parseTime(text: string): Date | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?)?\s*([Zz]|[+-]\d{2}:?\d{2})?$/.exec(text.trim());
  if (!match) return undefined;
  const [, year, month, day, hour = '00', minute = '00', second = '00', fraction = '0', zone = 'Z'] = match;
  const zoneText = zone.toUpperCase() === 'Z' ? 'Z' : `${zone.slice(0, 3)}:${zone.slice(-2)}`;
  const iso = `${year}-${month}-${day}T${hour}:${minute}:${second}.${fraction.padEnd(3, '0').slice(0, 3)}${zoneText}`;
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return undefined;
  // Date rolls 2024-02-31 over to March; a time that does not exist is refused instead.
  if (zoneText === 'Z' && date.toISOString().slice(0, 19) !== iso.slice(0, 19)) return undefined;
  return date;
}

/** The dashboard's query shape of a parsed query. */
export function toQuery(ast: QueryAst): GqlQuery {
  const timeRange: GqlQuery['time_range'] = {};
  if (ast.last) timeRange.last = ast.last.duration.text;
  if (ast.since) timeRange.since = timeText(ast.since.value);
  if (ast.until) timeRange.until = timeText(ast.until.value);
  const aggregate = ast.aggregate;
  const time = aggregate?.groupBy.find((item) => item.kind === 'time');
  const sort = ast.sort?.keys.map((key) => ({ field: key.field.name, direction: key.direction })) ?? [];
  if (ast.top && aggregate && sort.length === 0) sort.push({ field: 'value', direction: 'desc' });
  const count = ast.limit ?? ast.top;
  return {
    source: ast.source ? ast.source.name.toLowerCase() : DEFAULT_SOURCE,
    mode: aggregate ? 'aggregate' : 'search',
    filters: ast.filter.map(toFilter),
    pipeline: aggregate
      ? [
          {
            type: 'aggregate',
            func: aggregate.func,
            field: aggregate.field?.name ?? null,
            group_by: aggregate.groupBy.flatMap((item) => (item.kind === 'field' ? [item.field.name] : [])),
          },
        ]
      : [],
    time_range: Object.keys(timeRange).length > 0 ? timeRange : null,
    sort,
    limit: count ? Number(count.value.text) : null,
    fields: ast.fields?.fields.map((field) => field.name) ?? null,
    interval: time?.kind === 'time' ? time.interval.text : null,
  };
}

/** Parses GQL into the dashboard's query shape. */
export function parse(text: string): GqlQuery {
  return toQuery(parseAst(text));
}
