import type { Token } from './lexer';

/** Where something starts in the query text: `offset` from 0, `line` and `column` from 1. */
export interface Position {
  offset: number;
  line: number;
  column: number;
}

export const positionOf = (token: Token): Position => ({ offset: token.offset, line: token.line, column: token.col });

/** A name as written: a field, a source. `end` is the offset just past it. */
export interface Name {
  name: string;
  pos: Position;
  end: number;
}

/** A value as written: `error`, `'two words'`, `42`, `24h`, `2024-05-01T10:00:00Z`. */
export interface Literal {
  kind: 'word' | 'string' | 'number';
  /** The unquoted text. */
  text: string;
  pos: Position;
}

export interface Duration {
  amount: number;
  unit: DurationUnit;
  text: string;
  pos: Position;
}
export type DurationUnit = 's' | 'm' | 'h' | 'd' | 'w';

export type Comparison = '=' | '!=' | '>' | '>=' | '<' | '<=';
export type AggregateFunction =
  | 'count'
  | 'count_distinct'
  | 'sum'
  | 'avg'
  | 'min'
  | 'max'
  | 'p50'
  | 'p75'
  | 'p90'
  | 'p95'
  | 'p99';

/** A parse-tree node. `depth` counts nested parentheses and negations, so limits are checked without recursion. */
export type Node = Condition | Search | Junction | Negation | Group | Clause;

export interface Condition {
  kind: 'condition';
  field: Name;
  op: Comparison | 'in' | 'not in' | 'colon';
  value: Literal | Literal[];
  pos: Position;
  depth: 0;
}
export interface Search {
  kind: 'search';
  text: string;
  /** A bare word (`timeout*`) rather than a quoted phrase. */
  bare: boolean;
  pos: Position;
  depth: 0;
}
export interface Junction {
  kind: 'and' | 'or';
  items: Node[];
  pos: Position;
  depth: number;
}
export interface Negation {
  kind: 'not';
  item: Node;
  pos: Position;
  depth: number;
}
export interface Group {
  kind: 'group';
  item: Node;
  pos: Position;
  depth: number;
}

export type Clause = From | Last | Bound | Count | Sort | Fields | Aggregate;
export interface From {
  kind: 'from';
  source: Name;
  pos: Position;
  depth: 0;
}
export interface Last {
  kind: 'last';
  duration: Duration;
  pos: Position;
  depth: 0;
}
export interface Bound {
  kind: 'since' | 'until';
  value: Literal | Duration;
  pos: Position;
  depth: 0;
}
export interface Count {
  kind: 'limit' | 'top';
  value: Literal;
  pos: Position;
  depth: 0;
}
export interface SortKey {
  field: Name;
  direction: 'asc' | 'desc';
}
export interface Sort {
  kind: 'sort';
  keys: SortKey[];
  pos: Position;
  depth: 0;
}
export interface Fields {
  kind: 'fields';
  fields: Name[];
  pos: Position;
  depth: 0;
}
export type GroupItem = { kind: 'field'; field: Name } | { kind: 'time'; interval: Duration; pos: Position };
export interface Aggregate {
  kind: 'aggregate';
  func: AggregateFunction;
  field: Name | null;
  groupBy: GroupItem[];
  pos: Position;
  depth: 0;
}

export interface Segment {
  where: boolean;
  expr: Node;
}

export const CLAUSE_KINDS = new Set(['from', 'last', 'since', 'until', 'limit', 'top', 'sort', 'fields', 'aggregate']);
export const isClause = (node: Node): node is Clause => CLAUSE_KINDS.has(node.kind);

// Postprocessors of grammar.ne. Each builds a new node and never mutates its inputs: nearley may share them
// between partial derivations.

type Data = any[];

export const literal = ([token]: Data): Literal => ({
  kind: token.type === 'string' ? 'string' : token.type === 'number' ? 'number' : 'word',
  text: token.value,
  pos: positionOf(token),
});

export const name = ([token]: Data): Name => ({ name: token.value, pos: positionOf(token), end: token.offset + token.text.length });

export const duration = ([token]: Data): Duration => ({
  amount: Number(token.text.slice(0, -1)),
  unit: token.text.slice(-1).toLowerCase() as DurationUnit,
  text: token.text.toLowerCase(),
  pos: positionOf(token),
});

export const segment = ([expr]: Data): Segment => ({ where: false, expr });
export const whereSegment = ([, expr]: Data): Segment => ({ where: true, expr });

function junction(kind: 'and' | 'or', left: Node, right: Node): Junction {
  const items = left.kind === kind ? [...left.items, right] : [left, right];
  return { kind, items, pos: left.pos, depth: Math.max(left.depth, right.depth) };
}
export const or = ([left, , right]: Data): Junction => junction('or', left, right);
export const andExplicit = ([left, , right]: Data): Junction => junction('and', left, right);
export const andImplicit = ([left, right]: Data): Junction => junction('and', left, right);

export const not = ([token, item]: Data): Negation => ({ kind: 'not', item, pos: positionOf(token), depth: item.depth + 1 });
export const group = ([token, item]: Data): Group => ({ kind: 'group', item, pos: positionOf(token), depth: item.depth + 1 });

const condition = (field: Name, op: Condition['op'], value: Literal | Literal[]): Condition => ({
  kind: 'condition',
  field,
  op,
  value,
  pos: field.pos,
  depth: 0,
});
const COMPARISONS: Record<string, Comparison> = { eq: '=', neq: '!=', gt: '>', gte: '>=', lt: '<', lte: '<=' };
export const comparison = ([token]: Data): Comparison => COMPARISONS[token.type]!;

export const colon = ([field, , value]: Data) => condition(field, 'colon', value);
export const colonList = ([field, , , values]: Data) => condition(field, 'in', values);
export const colonComparison = ([field, , op, value]: Data) => condition(field, op, value);
export const compare = ([field, op, value]: Data) => condition(field, op, value);
export const inList = ([field, , values]: Data) => condition(field, 'in', values);
export const notInList = ([field, , , values]: Data) => condition(field, 'not in', values);

export const list = ([value]: Data): unknown[] => [value];
export const append = ([items, , item]: Data): unknown[] => [...items, item];
export const bracketed = ([, items]: Data): unknown => items;

export const searchPhrase = ([token]: Data): Search => ({ kind: 'search', text: token.value, bare: false, pos: positionOf(token), depth: 0 });
export const searchWord = ([token]: Data): Search => ({ kind: 'search', text: token.value, bare: true, pos: positionOf(token), depth: 0 });

export const from = ([token, , source]: Data): From => ({ kind: 'from', source, pos: positionOf(token), depth: 0 });
export const last = ([token, , value]: Data): Last => ({ kind: 'last', duration: value, pos: positionOf(token), depth: 0 });
export const bound = ([token, , value]: Data): Bound => ({
  kind: token.type === 'kw_since' ? 'since' : 'until',
  value,
  pos: positionOf(token),
  depth: 0,
});
export const count = ([token, , value]: Data): Count => ({
  kind: token.type === 'kw_top' ? 'top' : 'limit',
  value,
  pos: positionOf(token),
  depth: 0,
});
export const sort = ([token, , keys]: Data): Sort => ({ kind: 'sort', keys, pos: positionOf(token), depth: 0 });
export const sortKey = ([field, direction]: Data): SortKey => ({
  field,
  direction: direction?.type === 'kw_desc' ? 'desc' : 'asc',
});
export const fields = ([token, , names]: Data): Fields => ({ kind: 'fields', fields: names, pos: positionOf(token), depth: 0 });

const aggregation = (token: Token, field: Name | null): Aggregate => ({
  kind: 'aggregate',
  func: token.value.toLowerCase() as AggregateFunction,
  field,
  groupBy: [],
  pos: positionOf(token),
  depth: 0,
});
export const aggregate = ([token]: Data): Aggregate => aggregation(token, null);
export const aggregateOf = ([token, , field]: Data): Aggregate => aggregation(token, field);
export const groupedBy = ([aggregation, , groupBy]: Data): Aggregate => ({ ...aggregation, groupBy });
export const groupField = ([field]: Data): GroupItem => ({ kind: 'field', field });
export const groupTime = ([token, , interval]: Data): GroupItem => ({ kind: 'time', interval, pos: positionOf(token) });
