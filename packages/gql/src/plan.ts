import type { AggregateFunction, Comparison, Duration, Literal, Name, Node, Position } from './ast';
import { GqlQueryError, at } from './errors';
import { isPrefix, parseAst, parseTime, toQuery, type GqlQuery, type QueryAst } from './parse';
import { findSource, SOURCES, type ColumnInfo, type FieldKind, type SourceDefinition } from './sources';

export const LIMITS = {
  /** Rows of a search when the query names no limit. */
  defaultSearchRows: 100,
  /** Groups of an aggregate when the query names no limit. */
  defaultGroups: 1_000,
  /** Rows of a time series when the query names no limit. */
  defaultSeriesRows: 10_000,
  /** The most rows any query returns. */
  maxRows: 10_000,
  /** Time buckets a `by time(...)` may produce over its range. */
  maxBuckets: 10_000,
  /** The longest time bucket: 366 days. */
  maxBucketMs: 366 * 86_400_000,
  /** Values of one `in` list. */
  maxListValues: 1_000,
};

/** A field of the source: a column, a key of a property bag, or a whole bag (projection only). */
export type FieldRef =
  | { type: 'column'; column: ColumnInfo }
  | { type: 'bag'; bag: string; key: string }
  | { type: 'wholeBag'; bag: string };

/** A typed value that the emitters bind as a parameter. */
export type Param =
  | { type: 'string'; value: string }
  | { type: 'number'; value: number }
  | { type: 'timestamp'; value: Date }
  | { type: 'bool'; value: boolean };

/** How a field is read for a comparison: its column type, or a bag value as text or as a number. */
export type ReadAs = FieldKind;

/** Conditions in negation normal form: NOT is a flag on each leaf, so every engine sees plain predicates. */
export type Predicate =
  | { kind: 'and' | 'or'; items: Predicate[] }
  | { kind: 'const'; value: boolean }
  | { kind: 'compare'; field: FieldRef; readAs: ReadAs; op: Exclude<Comparison, '!='> | 'in'; values: Param[]; negated: boolean }
  | { kind: 'prefix'; field: FieldRef; text: string; negated: boolean }
  | { kind: 'search'; columns: ColumnInfo[]; text: string; negated: boolean };

/** A time bound: absolute, or this many milliseconds before now. */
export type TimeBound = { at: Date } | { ago: number };

export interface GroupPlan {
  /** The key in result rows: the field as written, or `time`. */
  key: string;
  field: FieldRef | null;
  /** Set for the time bucket. */
  interval: Duration | null;
}

export interface SortPlan {
  /** search: a field; aggregate: a group index or the value. */
  target: { field: FieldRef } | { group: number } | { value: true };
  direction: 'asc' | 'desc';
}

export interface Plan {
  source: SourceDefinition;
  mode: 'search' | 'aggregate';
  where: Predicate | null;
  since: TimeBound | null;
  until: TimeBound | null;
  /** search: the projected fields (key as written); empty means the source's default projection. */
  projection: { key: string; field: FieldRef }[];
  aggregate: { func: AggregateFunction; field: FieldRef | null; groups: GroupPlan[] } | null;
  sort: SortPlan[];
  limit: number;
  /**
   * aggregate with `top n` and a `sort` of its own: the n groups kept, largest value first, before `sort` orders them
   * (docs/gql.md: `top n` keeps the n largest values).
   */
  keep?: SortPlan[];
}

const NUMERIC_FUNCTIONS = new Set<AggregateFunction>(['sum', 'avg', 'min', 'max', 'p50', 'p75', 'p90', 'p95', 'p99']);
const DURATION_MS: Record<Duration['unit'], number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const isUuidColumn = (field: FieldRef): boolean => field.type === 'column' && field.column.clickhouseType === 'UUID';

export const durationMs = (duration: Duration): number => duration.amount * DURATION_MS[duration.unit];

/** Groups by their value, largest first, ties in the order of their group values. */
const largestFirst = (groups: GroupPlan[]): SortPlan[] => [
  { target: { value: true }, direction: 'desc' },
  ...groups.map((_, group) => ({ target: { group }, direction: 'asc' as const })),
];

/** The output key a group named `value` gets, so it cannot collide with the aggregate. */
export const VALUE_GROUP_KEY = 'group_value';

class Planner {
  private readonly multiline: boolean;

  constructor(
    private readonly ast: QueryAst,
    private readonly source: SourceDefinition,
  ) {
    this.multiline = ast.text.includes('\n');
  }

  fail(message: string, position?: Position): never {
    throw new GqlQueryError(position ? `${message} ${at(position, this.multiline)}` : message, position);
  }

  /** Resolves a name: alias, column, `bag.key`, then a key of the default bag (SPEC.md: bare names are properties). */
  field(name: Name, purpose: 'filter' | 'read' | 'project'): FieldRef {
    const source = this.source;
    const written = name.name;
    const resolved = source.aliases[written] ?? written;
    const column = source.columns.get(resolved);
    if (column) return { type: 'column', column };
    if (source.bags.has(resolved)) {
      if (purpose === 'project') return { type: 'wholeBag', bag: resolved };
      this.fail(`'${written}' is a property bag; name one of its keys, e.g. ${resolved}.plan,`, name.pos);
    }
    const dot = resolved.indexOf('.');
    if (dot > 0 && source.bags.has(resolved.slice(0, dot)) && dot < resolved.length - 1) {
      return { type: 'bag', bag: resolved.slice(0, dot), key: resolved.slice(dot + 1) };
    }
    if (source.defaultBag && resolved.length > 0) return { type: 'bag', bag: source.defaultBag, key: resolved };
    const known = [...source.columns.keys(), ...[...source.bags.keys()].map((bag) => `${bag}.*`)].join(', ');
    return this.fail(`unknown field '${written.slice(0, 60)}' on ${source.name} (fields: ${known})`, name.pos);
  }

  private kindOf(field: FieldRef): FieldKind | 'bag' {
    return field.type === 'column' ? field.column.kind : 'bag';
  }

  param(kind: FieldKind, literal: Literal, field: FieldRef, fieldName: Name): Param {
    const shown = `'${literal.text.slice(0, 60)}'`;
    switch (kind) {
      case 'string': {
        if (isUuidColumn(field)) {
          if (!UUID.test(literal.text)) this.fail(`${fieldName.name} holds UUIDs; ${shown} is not one`, literal.pos);
          // Stored in lower case; RFC 4122 reads either case, as ClickHouse's UUID type does.
          return { type: 'string', value: literal.text.toLowerCase() };
        }
        return { type: 'string', value: literal.text };
      }
      case 'number': {
        const value = literal.text.trim() === '' ? NaN : Number(literal.text);
        if (!Number.isFinite(value)) this.fail(`${fieldName.name} holds numbers; ${shown} is not a number`, literal.pos);
        return { type: 'number', value };
      }
      case 'timestamp': {
        const value = parseTime(literal.text);
        if (!value) this.fail(`${fieldName.name} holds times; ${shown} is not an ISO 8601 date or time`, literal.pos);
        return { type: 'timestamp', value };
      }
      case 'bool': {
        const text = literal.text.toLowerCase();
        if (text !== 'true' && text !== 'false') this.fail(`${fieldName.name} is true or false, not ${shown}`, literal.pos);
        return { type: 'bool', value: text === 'true' };
      }
      case 'json':
        return this.fail(`${fieldName.name} holds JSON documents and cannot be compared`, fieldName.pos);
    }
  }

  predicate(node: Node, negated: boolean): Predicate {
    switch (node.kind) {
      case 'and':
      case 'or': {
        const kind = (node.kind === 'and') !== negated ? 'and' : 'or';
        return junction(kind, node.items.map((item) => this.predicate(item, negated)));
      }
      case 'not':
        return this.predicate(node.item, !negated);
      case 'group':
        return this.predicate(node.item, negated);
      case 'search': {
        const text = node.bare ? node.text.replace(/\*$/, '') : node.text;
        if (this.source.fullText.length === 0) this.fail(`${this.source.name} has no text to search; use field:value`, node.pos);
        if (text === '') return { kind: 'const', value: !negated };
        const columns = this.source.fullText.map((name) => this.source.columns.get(name)!);
        return { kind: 'search', columns, text, negated };
      }
      case 'condition':
        return this.condition(node, negated);
      default:
        return this.fail(`unexpected ${node.kind} inside a condition`, node.pos);
    }
  }

  private condition(node: Extract<Node, { kind: 'condition' }>, negated: boolean): Predicate {
    const field = this.field(node.field, 'filter');
    const kind = this.kindOf(field);
    if (kind === 'json') this.fail(`${node.field.name} holds JSON documents and cannot be compared`, node.field.pos);
    const values = Array.isArray(node.value) ? node.value : [node.value];
    if (values.length > LIMITS.maxListValues) {
      this.fail(`a list holds at most ${LIMITS.maxListValues} values; this one has ${values.length}`, node.pos);
    }
    if (!Array.isArray(node.value) && node.op === 'colon' && isPrefix(node.value)) {
      if (kind !== 'string' && kind !== 'bag') this.fail(`a prefix match (val*) needs a text field; ${node.field.name} is not one`, node.pos);
      const text = isUuidColumn(field) ? node.value.text.slice(0, -1).toLowerCase() : node.value.text.slice(0, -1);
      if (text === '' && field.type === 'column' && !field.column.nullable) return { kind: 'const', value: !negated };
      return { kind: 'prefix', field, text, negated };
    }
    const op = node.op === 'colon' ? '=' : node.op === 'not in' ? 'in' : node.op;
    const flips = node.op === '!=' || node.op === 'not in';
    const readAs: ReadAs =
      kind === 'bag' ? (values.every((value) => value.kind === 'number') ? 'number' : 'string') : kind;
    return {
      kind: 'compare',
      field,
      readAs,
      op: op === '!=' ? '=' : op,
      values: values.map((value) => this.param(readAs, value, field, node.field)),
      negated: negated !== flips,
    };
  }

  count(literal: Literal): number {
    const value = Number(literal.text);
    if (!Number.isInteger(value) || value < 1 || value > LIMITS.maxRows) {
      this.fail(`a limit is a whole number from 1 to ${LIMITS.maxRows}, not ${literal.text.slice(0, 40)}`, literal.pos);
    }
    return value;
  }

  bound(value: Literal | Duration, what: string): TimeBound {
    if ('unit' in value) return { ago: this.duration(value) };
    const date = parseTime(value.text);
    if (!date) this.fail(`${what} needs an ISO 8601 date or time, not '${value.text.slice(0, 40)}'`, value.pos);
    return { at: date };
  }

  duration(duration: Duration): number {
    const ms = durationMs(duration);
    if (!Number.isFinite(ms) || duration.amount <= 0) this.fail(`a duration must be greater than zero, not ${duration.text.slice(0, 40)}`, duration.pos);
    return ms;
  }

  plan(): Plan {
    const { ast, source } = this;
    const filters = [...ast.filter.map((node) => this.predicate(node, false)), ...this.hiddenRows()];
    const where = simplify(junction('and', filters));
    if (!source.timeColumn) {
      const timed = ast.last ?? ast.since ?? ast.until;
      if (timed) this.fail(`${source.name} has no time column; remove the time range`, timed.pos);
    }
    const since = ast.last ? { ago: this.duration(ast.last.duration) } : ast.since ? this.bound(ast.since.value, 'since:') : null;
    const until = ast.until ? this.bound(ast.until.value, 'until:') : null;
    const aggregate = ast.aggregate ? this.aggregate(ast.aggregate) : null;
    const count = ast.limit ?? ast.top;
    const explicitLimit = count ? this.count(count.value) : null;
    if (!aggregate) {
      return {
        source,
        mode: 'search',
        where,
        since,
        until,
        projection: this.projection(),
        aggregate: null,
        sort: this.searchSort(),
        limit: explicitLimit ?? LIMITS.defaultSearchRows,
      };
    }
    if (ast.fields) this.fail(`'fields' chooses the columns of a search; an aggregate returns its groups and value`, ast.fields.pos);
    const series = aggregate.groups.some((group) => group.interval);
    return {
      source,
      mode: 'aggregate',
      where,
      since,
      until,
      projection: [],
      aggregate,
      sort: this.aggregateSort(aggregate.groups, series),
      limit: explicitLimit ?? (series ? LIMITS.defaultSeriesRows : LIMITS.defaultGroups),
      ...(ast.top && ast.sort ? { keep: largestFirst(aggregate.groups) } : {}),
    };
  }

  /** Keeps the source's hidden rows (ignored issues) out unless some condition names their column. */
  private hiddenRows(): Predicate[] {
    const hidden = this.source.hiddenUnlessFiltered;
    if (!hidden) return [];
    const pending: Node[] = [...this.ast.filter];
    for (let node = pending.pop(); node; node = pending.pop()) {
      if (node.kind === 'condition' && (this.source.aliases[node.field.name] ?? node.field.name) === hidden.column) return [];
      if (node.kind === 'and' || node.kind === 'or') pending.push(...node.items);
      if (node.kind === 'not' || node.kind === 'group') pending.push(node.item);
    }
    const column = this.source.columns.get(hidden.column)!;
    const values: Param[] = hidden.values.map((value) => ({ type: 'string', value }));
    return [{ kind: 'compare', field: { type: 'column', column }, readAs: column.kind, op: 'in', values, negated: true }];
  }

  private aggregate(node: NonNullable<QueryAst['aggregate']>): NonNullable<Plan['aggregate']> {
    let field: FieldRef | null = null;
    if (node.field) {
      field = this.field(node.field, 'read');
      const kind = this.kindOf(field);
      if (NUMERIC_FUNCTIONS.has(node.func) && kind !== 'number' && kind !== 'bag') {
        this.fail(`${node.func}() needs a numeric field; ${node.field.name} holds ${kind === 'json' ? 'JSON' : kind === 'string' ? 'text' : `${kind}s`}`, node.field.pos);
      }
      if (kind === 'json') this.fail(`${node.func}() cannot read ${node.field.name}, a JSON column`, node.field.pos);
    }
    const groups: GroupPlan[] = [];
    for (const item of node.groupBy) {
      if (item.kind === 'time') {
        if (!this.source.timeColumn) this.fail(`${this.source.name} has no time column to bucket by`, item.pos);
        if (groups.some((group) => group.interval)) this.fail(`a query has one time bucket`, item.pos);
        if (this.duration(item.interval) > LIMITS.maxBucketMs) this.fail(`a time bucket is at most 366 days, not ${item.interval.text.slice(0, 40)}`, item.interval.pos);
        groups.push({ key: 'time', field: null, interval: item.interval });
        continue;
      }
      const ref = this.field(item.field, 'read');
      if (this.kindOf(ref) === 'json') this.fail(`cannot group by ${item.field.name}, a JSON column`, item.field.pos);
      const key = item.field.name === 'value' ? VALUE_GROUP_KEY : item.field.name;
      if (groups.some((group) => group.key === key)) continue;
      groups.push({ key, field: ref, interval: null });
    }
    return { func: node.func, field, groups };
  }

  private projection(): Plan['projection'] {
    const seen = new Set<string>();
    const projection: Plan['projection'] = [];
    for (const name of this.ast.fields?.fields ?? []) {
      if (seen.has(name.name)) continue;
      seen.add(name.name);
      projection.push({ key: name.name, field: this.field(name, 'project') });
    }
    return projection;
  }

  /**
   * The sort as written, then the source's default (newest first) and the row id for rows it leaves tied: every
   * engine, and every run, lists the same rows in the same order, and a limit cuts the list in one place.
   */
  private searchSort(): SortPlan[] {
    const keys = this.ast.sort?.keys ?? [];
    const sorts: SortPlan[] = keys.map((key) => {
      const name = key.field.name.toLowerCase() === 'time' && this.source.timeColumn ? { ...key.field, name: this.source.timeColumn } : key.field;
      const field = this.field(name, 'read');
      if (this.kindOf(field) === 'json') this.fail(`cannot sort by ${key.field.name}, a JSON column`, key.field.pos);
      return { target: { field }, direction: key.direction };
    });
    const on = (name: string) => sorts.find((sort) => 'field' in sort.target && sort.target.field.type === 'column' && sort.target.field.column.name === name);
    const { column: defaultColumn, direction } = this.source.defaultSort;
    // The id follows the time's direction: `sort timestamp asc` lists the rows of one instant by ascending id.
    const timeDirection = on(defaultColumn)?.direction ?? direction;
    for (const [name, tieDirection] of [[defaultColumn, direction], ['id', timeDirection]] as const) {
      const column = this.source.columns.get(name);
      if (column && !on(name)) sorts.push({ target: { field: { type: 'column', column } }, direction: tieDirection });
    }
    return sorts;
  }

  /** The sort as written, then every group not in it in ascending order: groups tied on the sort come out alike everywhere. */
  private aggregateSort(groups: GroupPlan[], series: boolean): SortPlan[] {
    const keys = this.ast.sort?.keys ?? [];
    if (keys.length === 0) {
      if (this.ast.top || !series) return largestFirst(groups);
      const time = groups.findIndex((group) => group.interval);
      return [time, ...groups.keys()].filter((group, index, all) => all.indexOf(group) === index).map((group) => ({ target: { group }, direction: 'asc' }));
    }
    const sorts: SortPlan[] = keys.map((key) => {
      const written = key.field.name;
      if (written === 'value') return { target: { value: true }, direction: key.direction };
      const group = groups.findIndex((candidate) => candidate.key === written || (written.toLowerCase() === 'time' && candidate.interval));
      if (group < 0) this.fail(`an aggregate sorts by value or by one of its groups, not ${written.slice(0, 60)}`, key.field.pos);
      return { target: { group }, direction: key.direction };
    });
    for (const group of groups.keys()) {
      if (!sorts.some((sort) => 'group' in sort.target && sort.target.group === group)) sorts.push({ target: { group }, direction: 'asc' });
    }
    return sorts;
  }
}

function junction(kind: 'and' | 'or', items: Predicate[]): Predicate {
  const flat = items.flatMap((item) => (item.kind === kind ? item.items : [item]));
  return flat.length === 1 ? flat[0]! : { kind, items: flat };
}

/** Folds constants: `field:*` on a required column is always true, `""` matches everything. */
function simplify(predicate: Predicate): Predicate | null {
  const fold = (node: Predicate): Predicate => {
    if (node.kind !== 'and' && node.kind !== 'or') return node;
    const absorbing = node.kind === 'or';
    const items: Predicate[] = [];
    for (const item of node.items.map(fold)) {
      if (item.kind === 'const') {
        if (item.value === absorbing) return item;
        continue;
      }
      items.push(item);
    }
    if (items.length === 0) return { kind: 'const', value: !absorbing };
    return junction(node.kind, items);
  };
  const folded = fold(predicate);
  return folded.kind === 'const' && folded.value ? null : folded;
}

/** Checks a parsed query against the source catalog; throws GqlQueryError (422) for what cannot run. */
export function planQuery(ast: QueryAst): Plan {
  const name = ast.source?.name ?? 'logs';
  const source = findSource(name);
  if (!source) {
    const position = ast.source?.pos;
    const message = `unknown source '${name.slice(0, 60)}' (sources: ${SOURCES.map((candidate) => candidate.name).join(', ')})`;
    throw new GqlQueryError(position ? `${message} ${at(position, ast.text.includes('\n'))}` : message, position);
  }
  return new Planner(ast, source).plan();
}

/** A query as the dashboard shows it and the plan the emitters turn into SQL. */
export interface CompiledText {
  readonly query: GqlQuery;
  readonly plan: Plan;
}

/**
 * Texts compiled lately, least recently used first. Dashboards refresh the same panels and alert rules run the same
 * texts again and again, and parsing is most of a compile: remembering them took a `count` request's time before its
 * SQL from 0.32 to 0.25 ms in the server (docs/performance.md, GQL).
 */
const compiledTexts = new Map<string, CompiledText>();
const COMPILED_TEXTS_KEPT = 256;

/**
 * Parses and plans GQL text. The answer may be shared with earlier callers of the same text, so it is frozen: emit
 * and run it, copy it to change it. Errors are thrown each time, never remembered.
 */
export function compileQuery(text: string): CompiledText {
  const held = compiledTexts.get(text);
  if (held) {
    compiledTexts.delete(text);
    compiledTexts.set(text, held);
    return held;
  }
  const ast = parseAst(text);
  const compiled = deepFreeze({ query: toQuery(ast), plan: planQuery(ast) });
  compiledTexts.set(text, compiled);
  if (compiledTexts.size > COMPILED_TEXTS_KEPT) compiledTexts.delete(compiledTexts.keys().next().value as string);
  return compiled;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}

/**
 * Why a plan cannot be an alert metric or an SLO count, or undefined when it can: one aggregate value, no grouping and
 * no time range (the rule's window or the SLO's days supply it). Alert rules and the NL alert mode both ask this.
 */
export function metricProblem(plan: Plan): string | undefined {
  if (plan.mode !== 'aggregate' || !plan.aggregate) return 'must be an aggregate query such as "from:logs severity:error | count"';
  if (plan.since || plan.until) return 'must not name a time range; the window supplies it';
  if (plan.aggregate.groups.length > 0) return 'must yield one value: remove "by ..."';
  return undefined;
}
