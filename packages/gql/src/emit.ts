import { clickhouseBagRead, jsonPointer, phraseMask, promotedKey, promotedRead, type Dialect, type PromotedColumns, type QueryParams, type ResultRow } from '@tlm/analytics-store';
import type { AggregateFunction, Duration } from './ast';
import { GqlQueryError } from './errors';
import { LIMITS, durationMs, type FieldRef, type Param, type Plan, type Predicate, type ReadAs, type SortPlan, type TimeBound } from './plan';
import type { ColumnInfo, SourceDefinition } from './sources';

/** Tenancy and retention, injected into every table access by the compiler (STYLE.md "Tenancy"). */
export interface Guard {
  projectId: string;
  /** The plan's retention: nothing older is read, whatever the query asks. */
  retentionDays: number;
  now: Date;
  /** Live tail: only rows the service received after this instant (sources with a `received_at` column). */
  receivedAfter?: Date;
}

/** How a selected column turns into a value of a result row. */
export type Decode = 'plain' | 'timestamp' | 'json' | 'bag' | 'bagValue';

export interface OutputColumn {
  /** The column alias in the SQL. */
  alias: string;
  /** The key in result rows. */
  key: string;
  decode: Decode;
  /** ClickHouse bags: the alias of the numeric twin (`properties_num`, or the number read of one key). */
  numbers?: string;
}

export interface CompiledQuery {
  sql: string;
  params: QueryParams;
  mode: 'search' | 'aggregate';
  table: string;
  columns: OutputColumn[];
  /** The SQL counts groups before the limit in a `total_groups` column. */
  countsGroups: boolean;
}

const DAY_MS = 86_400_000;
const QUANTILES: Partial<Record<AggregateFunction, string>> = { p50: '0.5', p75: '0.75', p90: '0.9', p95: '0.95', p99: '0.99' };
const FLIPPED = { '=': '!=', '>': '<=', '>=': '<', '<': '>=', '<=': '>' } as const;
const DUCKDB_INTERVALS: Record<Duration['unit'], string> = { s: 'to_seconds', m: 'to_minutes', h: 'to_hours', d: 'to_days', w: 'to_weeks' };
const CLICKHOUSE_INTERVALS: Record<Duration['unit'], string> = {
  s: 'toIntervalSecond',
  m: 'toIntervalMinute',
  h: 'toIntervalHour',
  d: 'toIntervalDay',
  w: 'toIntervalWeek',
};
const SECONDS_PER_UNIT: Record<Duration['unit'], number> = { s: 1, m: 60, h: 3_600, d: 86_400, w: 604_800 };

/**
 * Where buckets of an interval are counted from (docs/gql.md): the Unix epoch, and weeks from its first Monday. An
 * interval that divides a day starts its buckets at midnight whatever the origin, and a week's at a Monday, so those
 * need none.
 */
function bucketOrigin(interval: Duration): '1970-01-01 00:00:00' | '1970-01-05 00:00:00' | null {
  if (interval.unit === 'w') return interval.amount === 1 ? null : '1970-01-05 00:00:00';
  return 86_400 % (interval.amount * SECONDS_PER_UNIT[interval.unit]) === 0 ? null : '1970-01-01 00:00:00';
}

/** An expression reading a field, and whether it can be NULL (a missing key, an absent optional column). */
interface Read {
  sql: string;
  nullable: boolean;
}

/** `2024-05-01 10:00:00.000`: both engines read it as UTC into their timestamp types. */
const sqlTime = (date: Date): string => date.toISOString().replace('T', ' ').replace('Z', '');

/** The two engines differ in placeholders, functions and bag storage; everything else is shared. */
abstract class Emitter {
  readonly params: QueryParams = {};
  private readonly names = new Map<string, string>();

  constructor(
    readonly source: SourceDefinition,
    /** The table's promoted properties: bag keys whose value every stored row also holds in a column of its own. */
    protected readonly promoted: ReadonlyMap<string, PromotedColumns>,
  ) {}

  abstract placeholder(name: string, type: string): string;
  abstract table(): string;
  abstract column(column: ColumnInfo, purpose: 'filter' | 'output'): Read;
  /** Reads a column some rows name by a key instead of holding (ColumnInfo.lookup). */
  abstract lookedUp(column: ColumnInfo): string;
  /** Joins of the lookups read so far, after the table in FROM. */
  protected readonly lookupJoins: string[] = [];

  /** A column's output, through its lookup when it has one. */
  output(column: ColumnInfo): Read {
    return column.lookup ? { sql: this.lookedUp(column), nullable: true } : this.column(column, 'output');
  }

  /** Joins the looked-up table's rows of the project, once per column, and answers the join's alias. */
  protected joinLookup(column: ColumnInfo, table: string, project: string): string {
    const lookup = column.lookup!;
    const alias = `${column.name}_lookup`;
    const join = `LEFT JOIN (SELECT id AS lookup_key, ${lookup.column} AS lookup_value FROM ${table} WHERE project_id = ${project}) AS ${alias} ON ${alias}.lookup_key = ${lookup.key}`;
    if (!this.lookupJoins.includes(join)) this.lookupJoins.push(join);
    return alias;
  }

  /** The FROM clause: the source's table and the joins its lookups need. */
  from(): string {
    return [this.table(), ...this.lookupJoins].join(' ');
  }
  abstract bagText(bag: string, key: string, missingAsEmpty: boolean): Read;
  abstract bagNumber(bag: string, key: string): Read;
  abstract exists(field: FieldRef, negated: boolean): string;
  abstract startsWith(read: string, pattern: string): string;
  /** A column containing `text` (or, negated, not); only what the returned SQL reads is bound. */
  abstract search(column: string, text: string, negated: boolean): string;
  abstract countAll(): string;
  abstract countDistinct(read: string): string;
  abstract quantile(read: string, level: string): string;
  /** sum, avg, min, max over a read; over no rows they have no value (NULL), in both engines. */
  abstract numericAggregate(func: 'sum' | 'avg' | 'min' | 'max', read: string): string;
  abstract bucket(timeColumn: string, interval: Duration): string;
  abstract projectParamType: string;
  abstract timeParamType: string;
  abstract limitParamType: string;

  /** Binds a value (one name per distinct value and type); the only way query text reaches the SQL. */
  bind(value: string | number | boolean, type: string): string {
    const identity = `${type}\u0000${typeof value}\u0000${String(value)}`;
    let name = this.names.get(identity);
    if (!name) {
      name = `p${this.names.size + 1}`;
      this.names.set(identity, name);
      this.params[name] = value;
    }
    return this.placeholder(name, type);
  }

  bindNamed(name: string, value: string | number | boolean, type: string): string {
    this.params[name] = value;
    return this.placeholder(name, type);
  }

  /** `ordered`: the value is compared by <, <=, > or >= with the field read as results show it. */
  abstract paramType(param: Param, field: FieldRef, ordered: boolean): string;

  bindParam(param: Param, field: FieldRef, ordered = false): string {
    const type = this.paramType(param, field, ordered);
    return this.bind(param.type === 'timestamp' ? sqlTime(param.value) : param.value, type);
  }

  read(field: FieldRef, as: ReadAs, purpose: 'filter' | 'output' = 'filter'): Read {
    if (field.type === 'column') return this.column(field.column, purpose);
    if (field.type === 'wholeBag') return { sql: field.bag, nullable: false };
    return as === 'number' ? this.bagNumber(field.bag, field.key) : this.bagText(field.bag, field.key, false);
  }

  predicate(predicate: Predicate): string {
    switch (predicate.kind) {
      case 'const':
        return predicate.value ? 'TRUE' : 'FALSE';
      case 'and':
      case 'or': {
        const joiner = predicate.kind === 'and' ? ' AND ' : ' OR ';
        return predicate.items.map((item) => this.operand(item, predicate.kind)).join(joiner);
      }
      case 'search': {
        const parts = predicate.columns.map((column) => this.search(column.name, predicate.text, predicate.negated));
        if (predicate.negated) return parts.join(' AND ');
        return parts.length === 1 ? parts[0]! : `(${parts.join(' OR ')})`;
      }
      case 'prefix': {
        if (predicate.text === '') return this.exists(predicate.field, predicate.negated);
        const read = this.prefixRead(predicate.field);
        const test = this.startsWith(read.sql, this.bind(predicate.text, 'String'));
        if (!predicate.negated) return test;
        return read.nullable ? `coalesce(NOT ${test}, true)` : `NOT ${test}`;
      }
      case 'compare':
        return this.compare(predicate);
    }
  }

  /** One operand of AND / OR, parenthesized when it binds looser than its neighbours. */
  private operand(item: Predicate, within: 'and' | 'or'): string {
    const sql = this.predicate(item);
    return item.kind === 'or' && within === 'and' ? `(${sql})` : sql;
  }

  prefixRead(field: FieldRef): Read {
    if (field.type === 'bag') return this.bagText(field.bag, field.key, true);
    return this.read(field, 'string');
  }

  /** What a group named `alias` in the SELECT is grouped on. */
  groupKey(_field: FieldRef, alias: string): string {
    return alias;
  }

  private compare(predicate: Extract<Predicate, { kind: 'compare' }>): string {
    const { field, values, negated } = predicate;
    // A missing bag key reads as '' in ClickHouse's map, which never equals a non-empty value: the index-friendly form.
    const missingAsEmpty =
      field.type === 'bag' && predicate.readAs === 'string' && (predicate.op === '=' || predicate.op === 'in') && values.every((value) => value.value !== '');
    // An ordered comparison reads a column as results show it, so ClickHouse's '' for a missing text is no value below
    // every other, as DuckDB's NULL is not.
    const ordered = predicate.op !== '=' && predicate.op !== 'in';
    const read =
      field.type === 'bag' && predicate.readAs === 'string'
        ? this.bagText(field.bag, field.key, missingAsEmpty)
        : this.read(field, predicate.readAs, ordered ? 'output' : 'filter');
    const bound = values.map((value) => this.bindParam(value, field, ordered));
    let test: string;
    if (predicate.op === 'in' && bound.length > 1) test = `${read.sql} ${negated ? 'NOT IN' : 'IN'} (${bound.join(', ')})`;
    else {
      const op = predicate.op === 'in' ? '=' : predicate.op;
      test = `${read.sql} ${negated ? FLIPPED[op] : op} ${bound[0]}`;
    }
    // Negations include rows where the field is missing (`-route:/a` keeps logs without a route).
    return negated && read.nullable ? `coalesce(${test}, true)` : test;
  }

  aggregate(func: AggregateFunction, field: FieldRef | null): string {
    if (func === 'count') return this.countAll();
    const read = this.read(field!, func === 'count_distinct' ? 'string' : 'number', 'output').sql;
    if (func === 'count_distinct') return this.countDistinct(read);
    const level = QUANTILES[func];
    return level ? this.quantile(read, level) : this.numericAggregate(func as 'sum' | 'avg' | 'min' | 'max', read);
  }
}

class DuckDBEmitter extends Emitter {
  readonly projectParamType = 'VARCHAR';
  readonly timeParamType = 'TIMESTAMP';
  readonly limitParamType = 'INTEGER';

  placeholder(name: string): string {
    return `$${name}`;
  }
  table(): string {
    return this.source.table;
  }
  paramType(): string {
    return '';
  }
  column(column: ColumnInfo): Read {
    return { sql: column.name, nullable: column.nullable };
  }
  lookedUp(column: ColumnInfo): string {
    const alias = this.joinLookup(column, column.lookup!.table, this.placeholder('project_id'));
    return `coalesce(${column.name}, ${alias}.lookup_value)`;
  }
  // A promoted key's columns hold what these reads give, written by the same expressions at insert
  // (DuckDBStore.promote): reading them answers the same, without parsing each row's JSON.
  bagText(bag: string, key: string): Read {
    const promoted = this.promoted.get(promotedKey(bag, key));
    if (promoted) return { sql: `"${promoted.text}"`, nullable: true };
    return { sql: promotedRead(bag, this.bind(jsonPointer(key), 'String')).text, nullable: true };
  }
  bagNumber(bag: string, key: string): Read {
    const promoted = this.promoted.get(promotedKey(bag, key));
    if (promoted) return { sql: promoted.number ? `"${promoted.number}"` : `TRY_CAST("${promoted.text}" AS DOUBLE)`, nullable: true };
    return { sql: promotedRead(bag, this.bind(jsonPointer(key), 'String')).number, nullable: true };
  }
  bagJson(bag: string, key: string): string {
    return `json_extract(${bag}, ${this.bind(jsonPointer(key), 'String')})`;
  }
  exists(field: FieldRef, negated: boolean): string {
    const read = field.type === 'bag' ? this.bagText(field.bag, field.key) : this.read(field, 'string');
    return `${read.sql} ${negated ? 'IS NULL' : 'IS NOT NULL'}`;
  }
  startsWith(read: string, pattern: string): string {
    return `starts_with(${read}, ${pattern})`;
  }
  search(column: string, text: string, negated: boolean): string {
    const lowered = text.toLowerCase();
    const sql = `contains(lower(${column}), ${this.bind(lowered, 'String')})`;
    if (negated) return `NOT ${sql}`;
    // A row whose signature lacks a bit of the phrase's trigrams cannot contain it: that check reads eight bytes a
    // row, and only the rows passing it are lower-cased and scanned. Their answer is the scan's.
    const signature = this.source.textSignatures[column];
    const mask = signature ? phraseMask(lowered) : null;
    if (!signature || mask === null) return sql;
    const bits = `CAST(${this.bind(mask, 'UInt64')} AS UBIGINT)`;
    return `((${signature} & ${bits}) = ${bits} AND ${sql})`;
  }
  countAll(): string {
    return 'count(*)';
  }
  countDistinct(read: string): string {
    return `count(DISTINCT ${read})`;
  }
  quantile(read: string, level: string): string {
    return `quantile_cont(${read}, ${level})`;
  }
  numericAggregate(func: 'sum' | 'avg' | 'min' | 'max', read: string): string {
    return `${func}(${read})`;
  }
  bucket(timeColumn: string, interval: Duration): string {
    // DuckDB's default origin is 2000-01-03: its buckets of 7m, 5h, 2d or 2w would not start where ClickHouse's do.
    const origin = bucketOrigin(interval);
    return `time_bucket(${DUCKDB_INTERVALS[interval.unit]}(${this.bind(interval.amount, 'UInt32')}), ${timeColumn}${origin ? `, TIMESTAMP '${origin}'` : ''})`;
  }
}

/** ClickHouse `lower` folds ASCII only; the pattern is folded the same way so both sides agree. */
const lowerAscii = (text: string): string => text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
const escapeLike = (text: string): string => text.replace(/[\\%_]/g, (char) => `\\${char}`);

class ClickHouseEmitter extends Emitter {
  readonly projectParamType = 'UUID';
  readonly timeParamType = "DateTime64(3, 'UTC')";
  readonly limitParamType = 'UInt32';

  placeholder(name: string, type: string): string {
    return `{${name}:${type}}`;
  }
  table(): string {
    // Every table is a ReplacingMergeTree: a redelivered batch or an older snapshot collapses only under FINAL.
    return `${this.source.table} FINAL`;
  }
  paramType(param: Param, field: FieldRef, ordered: boolean): string {
    if (param.type === 'number') return 'Float64';
    if (param.type === 'bool') return 'Bool';
    if (param.type === 'timestamp') return this.timeParamType;
    // An ordered comparison reads a UUID column as its text (column(), 'output'), as DuckDB compares it.
    return field.type === 'column' && field.column.clickhouseType === 'UUID' && !ordered ? 'UUID' : 'String';
  }
  column(column: ColumnInfo, purpose: 'filter' | 'output'): Read {
    // Optional strings are stored as ''; results show them as null like DuckDB does.
    if (purpose === 'output' && column.nullable && column.kind === 'string') return { sql: `nullIf(${column.name}, '')`, nullable: true };
    if (purpose === 'output' && column.kind === 'json') return { sql: `nullIf(${column.name}, '')`, nullable: true };
    // As text: ClickHouse orders UUIDs by their two 64-bit halves, low half first, where DuckDB and people order the
    // text; groups tied on their value and sorts by id come out in the text's order in both.
    if (purpose === 'output' && column.clickhouseType === 'UUID') return { sql: `toString(${column.name})`, nullable: false };
    return { sql: column.name, nullable: column.nullable && column.kind !== 'string' };
  }
  lookedUp(column: ColumnInfo): string {
    const lookup = column.lookup!;
    const alias = this.joinLookup(column, `${lookup.table} FINAL`, this.placeholder('project_id', this.projectParamType));
    // Absent strings are '' in ClickHouse: a row naming no key holds the value itself.
    return `nullIf(if(${lookup.key} = '', ${column.name}, ${alias}.lookup_value), '')`;
  }
  // A promoted key's columns are MATERIALIZED by these reads (ClickHouseStore.promote): reading them answers the
  // same, without looking the key up in each row's map.
  bagText(bag: string, key: string, missingAsEmpty: boolean): Read {
    const promoted = this.promoted.get(promotedKey(bag, key));
    // A missing key is NULL in the column: a negation keeps the row by `coalesce`, as it keeps a '' from the map.
    if (promoted) return { sql: promoted.text, nullable: true };
    const name = this.bind(key, 'String');
    if (missingAsEmpty) return { sql: `${bag}[${name}]`, nullable: false };
    return { sql: clickhouseBagRead(bag, name).text, nullable: true };
  }
  bagNumber(bag: string, key: string): Read {
    const promoted = this.promoted.get(promotedKey(bag, key));
    if (promoted?.number) return { sql: promoted.number, nullable: true };
    return { sql: clickhouseBagRead(bag, this.bind(key, 'String')).number, nullable: true };
  }
  /** A value as it was sent: the number if it was sent as one (a text reading as a number stays a text). */
  bagSentNumber(bag: string, key: string): string {
    const name = this.bind(key, 'String');
    return `if(mapContains(${bag}_num, ${name}), ${bag}_num[${name}], NULL)`;
  }
  exists(field: FieldRef, negated: boolean): string {
    if (field.type === 'bag') {
      const promoted = this.promoted.get(promotedKey(field.bag, field.key));
      if (promoted) return `${promoted.text} ${negated ? 'IS NULL' : 'IS NOT NULL'}`;
      const test = `mapContains(${field.bag}, ${this.bind(field.key, 'String')})`;
      return negated ? `NOT ${test}` : test;
    }
    const column = (field as { column: ColumnInfo }).column;
    if (column.kind === 'string') return `${column.name} ${negated ? '=' : '!='} ''`;
    return `${column.name} ${negated ? 'IS NULL' : 'IS NOT NULL'}`;
  }
  override prefixRead(field: FieldRef): Read {
    // A UUID column's prefix is one of its text, as results show it.
    if (field.type === 'column' && field.column.clickhouseType === 'UUID') return this.column(field.column, 'output');
    return super.prefixRead(field);
  }
  /** A UUID column's groups are formed on its 16 bytes, and shown and sorted as its text (column()). */
  override groupKey(field: FieldRef, alias: string): string {
    return field.type === 'column' && field.column.clickhouseType === 'UUID' ? field.column.name : alias;
  }
  startsWith(read: string, pattern: string): string {
    return `startsWith(${read}, ${pattern})`;
  }
  search(column: string, text: string, negated: boolean): string {
    // lower(message) LIKE '%...%' is what the tokenbf_v1 index on lower(message) answers.
    const pattern = this.bind(`%${escapeLike(lowerAscii(text))}%`, 'String');
    return `lower(${column}) ${negated ? 'NOT LIKE' : 'LIKE'} ${pattern}`;
  }
  countAll(): string {
    return 'count()';
  }
  countDistinct(read: string): string {
    return `uniqExact(${read})`;
  }
  quantile(read: string, level: string): string {
    // Exact and interpolated as DuckDB's quantile_cont (ClickHouse's plain quantile samples 8,192 values); NULL over
    // no rows as there (-OrNull).
    return `quantileExactInclusiveOrNull(${level})(${read})`;
  }
  numericAggregate(func: 'sum' | 'avg' | 'min' | 'max', read: string): string {
    // Over no rows ClickHouse answers 0 (sum, min, max of a non-null column) or nan (avg) where DuckDB answers NULL; an
    // alert comparing "max below 10" must not fire on an idle service in one engine and not in the other.
    return `${func}OrNull(${read})`;
  }
  bucket(timeColumn: string, interval: Duration): string {
    // toStartOfInterval counts hours from each midnight, minutes and the other units from the epoch (weeks from a
    // Monday): hours that do not divide a day are counted as minutes.
    if (interval.unit === 'h' && bucketOrigin(interval) !== null) {
      return `toStartOfInterval(${timeColumn}, toIntervalMinute(${this.bind(interval.amount * 60, 'UInt32')}))`;
    }
    return `toStartOfInterval(${timeColumn}, ${CLICKHOUSE_INTERVALS[interval.unit]}(${this.bind(interval.amount, 'UInt32')}))`;
  }
}

function resolveBound(bound: TimeBound, now: number): number {
  return 'at' in bound ? bound.at.getTime() : now - bound.ago;
}

const NOTHING_PROMOTED: ReadonlyMap<string, PromotedColumns> = new Map();

/**
 * The time range a plan reads under a guard, in epoch milliseconds: from the later of its `since` and the retention
 * bound, to its `until` (exclusive) or, without one, `now` (rows stamped later are read too: `until` is then null).
 */
export function timeRange(plan: Plan, guard: Guard): { since: number; until: number | null; end: number } {
  const now = guard.now.getTime();
  const retentionStart = now - guard.retentionDays * DAY_MS;
  const since = Math.max(retentionStart, plan.since ? resolveBound(plan.since, now) : retentionStart);
  const until = plan.until ? Math.max(since, resolveBound(plan.until, now)) : null;
  return { since, until, end: until ?? now };
}

/** A part of a plan's time range to read alone: rows at or after `from`, before `before` (epoch milliseconds). */
export interface TimeSlice {
  from?: number;
  before?: number;
}

/**
 * How a DuckDB percentile is computed; both answer exactly what `quantile_cont` answers. `values`: `quantile_cont`
 * itself, which holds every value it reads in memory outside DuckDB's limit (about 16 bytes a row). `counts`: a grouped
 * count of each distinct value, within DuckDB's limit and spilled past it, then a running sum to the two ranks around
 * the percentile, interpolated as `quantile_cont` does; far cheaper for values of few distinct kinds, far dearer for
 * values that are mostly distinct (docs/performance.md "Percentiles from counts").
 */
export type PercentileForm = 'values' | 'counts';

export interface EmitOptions {
  /** Narrows the time range further (a search read newest part first, `runPlan`). */
  slice?: TimeSlice;
  /** DuckDB percentiles: `values` unless said (`percentileProbe` tells which suits the data). */
  percentiles?: PercentileForm;
}

/** The guard's conditions (project, time range, base filters) over a plan's source, and the range they read. */
function guarded(plan: Plan, emitter: Emitter, guard: Guard, slice: TimeSlice): { conditions: string[]; rangeStart: number; rangeEnd: number } {
  const source = plan.source;
  const conditions = [`project_id = ${emitter.bindNamed('project_id', guard.projectId, emitter.projectParamType)}`];
  const now = guard.now.getTime();
  let rangeStart = now;
  let rangeEnd = now;
  if (source.timeColumn) {
    const { since, until, end } = timeRange(plan, guard);
    rangeStart = since;
    rangeEnd = end;
    const bound = (name: string, operator: '>=' | '<', at: number) =>
      conditions.push(`${source.timeColumn} ${operator} ${emitter.bindNamed(name, sqlTime(new Date(at)), emitter.timeParamType)}`);
    bound('since', '>=', since);
    if (until !== null) bound('until', '<', until);
    if (slice.from !== undefined) bound('slice_from', '>=', slice.from);
    if (slice.before !== undefined) bound('slice_before', '<', slice.before);
  }
  if (guard.receivedAfter && source.columns.has('received_at')) {
    conditions.push(`received_at > ${emitter.bindNamed('received_after', sqlTime(guard.receivedAfter), emitter.timeParamType)}`);
  }
  for (const filter of source.baseFilters) conditions.push(`${filter.column} = ${filter.value ? 'true' : 'false'}`);
  return { conditions, rangeStart, rangeEnd };
}

/** An aggregate's groups as `expression AS g<i>`, with their output columns; a time bucket's count is checked. */
function groupOutputs(plan: Plan, emitter: Emitter, rangeStart: number, rangeEnd: number): { select: string[]; columns: OutputColumn[] } {
  const select: string[] = [];
  const columns: OutputColumn[] = [];
  plan.aggregate!.groups.forEach((group, index) => {
    const alias = `g${index}`;
    if (group.interval) {
      const buckets = (rangeEnd - rangeStart) / durationMs(group.interval);
      if (buckets > LIMITS.maxBuckets) {
        throw new GqlQueryError(
          `time(${group.interval.text}) makes ${Math.ceil(buckets)} buckets over the time range; at most ${LIMITS.maxBuckets} are allowed, so choose a longer interval or a shorter range`,
        );
      }
      select.push(`${emitter.bucket(plan.source.timeColumn!, group.interval)} AS ${alias}`);
      columns.push({ alias, key: group.key, decode: 'timestamp' });
    } else {
      const field = group.field!;
      select.push(`${emitter.read(field, 'string', 'output').sql} AS ${alias}`);
      columns.push({ alias, key: group.key, decode: field.type === 'column' ? decodeOf(field.column) : 'plain' });
    }
  });
  return { select, columns };
}

/** True when a plan's aggregate is a percentile. */
export const aggregatesPercentile = (plan: Plan): boolean => plan.mode === 'aggregate' && QUANTILES[plan.aggregate!.func] !== undefined;

/** Rows of a percentile's source the probe reads at most: the first non-null values of the range, wherever they lie. */
export const PERCENTILE_PROBE_ROWS = 65_536;

/**
 * A DuckDB statement answering `{sampled, distinct_values}` over the first PERCENTILE_PROBE_ROWS non-null values of a
 * percentile plan's field in the guard's range (groups and value together, as the counted form keeps them). It reads
 * no further than that, and leaves out the query's own filter, whose rows are a part of the range's. `percentileForm`
 * turns its answer into the form to emit.
 */
export function percentileProbe(plan: Plan, guard: Guard, promoted = NOTHING_PROMOTED): { sql: string; params: QueryParams } {
  const emitter = new DuckDBEmitter(plan.source, promoted);
  const { conditions, rangeStart, rangeEnd } = guarded(plan, emitter, guard, {});
  const { select } = groupOutputs(plan, emitter, rangeStart, rangeEnd);
  const value = emitter.read(plan.aggregate!.field!, 'number', 'output').sql;
  const keys = [...select.map((_, index) => `g${index}`), 'pv'].join(', ');
  const sample = `SELECT ${[...select, `${value} AS pv`].join(', ')} FROM ${emitter.from()} WHERE ${conditions.join(' AND ')} AND ${value} IS NOT NULL LIMIT ${PERCENTILE_PROBE_ROWS}`;
  return { sql: `SELECT sum(pn) AS sampled, count(*) AS distinct_values FROM (SELECT ${keys}, count(*) AS pn FROM (${sample}) GROUP BY ${keys})`, params: emitter.params };
}

/**
 * The counted form when the probe's values repeat, each kind of value at least twice on average (about 40,000 kinds
 * or fewer among the first PERCENTILE_PROBE_ROWS): there a running sum over the counts costs less than the values'
 * selection, and holds far less.
 */
export function percentileForm(probe: ResultRow | undefined): PercentileForm {
  const sampled = Number(probe?.['sampled'] ?? 0);
  return sampled > 0 && Number(probe?.['distinct_values']) * 2 <= sampled ? 'counts' : 'values';
}

/**
 * A percentile from counts (PercentileForm `counts`) in DuckDB: each group's count of each value, the running count up
 * to each value in order, and the values at the ranks `floor` and `ceil` of `(n - 1) * q`, interpolated as
 * `quantile_cont` does (`lo * (1 - d) + hi * d`, in DOUBLE, so the answers are bit for bit its own). A group whose
 * values are all missing keeps its row, with no value.
 */
function countedPercentile(groupSelect: string[], value: string, level: string, from: string, where: string): string {
  const groups = groupSelect.map((_, index) => `g${index}`);
  const partition = groups.length > 0 ? `PARTITION BY ${groups.join(', ')} ` : '';
  const counted = `SELECT ${[...groupSelect, `${value} AS pv`].join(', ')}, count(*) AS pn FROM ${from} WHERE ${where} GROUP BY ${[...groups, 'pv'].join(', ')}`;
  const ranked =
    `SELECT ${[...groups, 'pv'].join(', ')}, sum(pn) OVER (${partition}ORDER BY pv NULLS LAST ROWS UNBOUNDED PRECEDING) AS p_upto, ` +
    `(coalesce(sum(pn) FILTER (WHERE pv IS NOT NULL) OVER (${partition.trimEnd()}), 0) - 1)::DOUBLE * ${level}::DOUBLE AS p_rank FROM (${counted})`;
  const picked =
    `SELECT ${[...groups, 'min(pv) FILTER (WHERE p_upto > floor(p_rank)) AS p_lo', 'min(pv) FILTER (WHERE p_upto > ceil(p_rank)) AS p_hi', 'any_value(p_rank - floor(p_rank)) AS p_d'].join(', ')} ` +
    `FROM (${ranked})${groups.length > 0 ? ` GROUP BY ${groups.join(', ')}` : ''}`;
  const interpolated = 'CASE WHEN p_d = 0 THEN p_lo ELSE p_lo * (1 - p_d) + p_hi * p_d END AS agg';
  return `SELECT ${[...groups, interpolated, ...(groups.length > 0 ? ['count(*) OVER () AS total_groups'] : [])].join(', ')} FROM (${picked})`;
}

/**
 * Turns a plan into one SQL statement of the dialect, with the guard's project and retention bound applied;
 * `promoted` are the source table's promoted properties (AnalyticsStore.promotedColumns), read instead of the bag.
 */
export function emit(plan: Plan, dialect: Dialect, guard: Guard, promoted = NOTHING_PROMOTED, options: EmitOptions = {}): CompiledQuery {
  const source = plan.source;
  const emitter = dialect === 'duckdb' ? new DuckDBEmitter(source, promoted) : new ClickHouseEmitter(source, promoted);
  const { conditions, rangeStart, rangeEnd } = guarded(plan, emitter, guard, options.slice ?? {});

  const select: string[] = [];
  const columns: OutputColumn[] = [];
  let groupBy = '';
  let countsGroups = false;
  let counted: ((where: string) => string) | null = null;

  if (plan.mode === 'search') {
    if (plan.projection.length === 0) {
      for (const name of source.projection) {
        const column = source.columns.get(name);
        if (column) {
          const read = emitter.output(column);
          const alias = read.sql === name ? name : `f${columns.length}`;
          select.push(alias === name ? name : `${read.sql} AS ${alias}`);
          columns.push({ alias, key: name, decode: decodeOf(column) });
        } else {
          select.push(dialect === 'clickhouse' ? `${name}, ${name}_num` : name);
          columns.push({ alias: name, key: name, decode: 'bag', ...(dialect === 'clickhouse' ? { numbers: `${name}_num` } : {}) });
        }
      }
    } else {
      plan.projection.forEach(({ key, field }, index) => {
        const alias = `f${index}`;
        if (field.type === 'column') {
          select.push(`${emitter.output(field.column).sql} AS ${alias}`);
          columns.push({ alias, key, decode: decodeOf(field.column) });
        } else if (field.type === 'wholeBag') {
          select.push(dialect === 'clickhouse' ? `${field.bag} AS ${alias}, ${field.bag}_num AS ${alias}n` : `${field.bag} AS ${alias}`);
          columns.push({ alias, key, decode: 'bag', ...(dialect === 'clickhouse' ? { numbers: `${alias}n` } : {}) });
        } else if (emitter instanceof DuckDBEmitter) {
          select.push(`${emitter.bagJson(field.bag, field.key)} AS ${alias}`);
          columns.push({ alias, key, decode: 'json' });
        } else {
          const clickhouse = emitter as ClickHouseEmitter;
          select.push(`${clickhouse.bagText(field.bag, field.key, false).sql} AS ${alias}`, `${clickhouse.bagSentNumber(field.bag, field.key)} AS ${alias}n`);
          columns.push({ alias, key, decode: 'bagValue', numbers: `${alias}n` });
        }
      });
    }
  } else {
    const aggregate = plan.aggregate!;
    const groups = groupOutputs(plan, emitter, rangeStart, rangeEnd);
    columns.push(...groups.columns, { alias: 'agg', key: 'value', decode: 'plain' });
    countsGroups = aggregate.groups.length > 0;
    const level = QUANTILES[aggregate.func];
    if (dialect === 'duckdb' && options.percentiles === 'counts' && level) {
      // quantile_cont interpolates a column of integers in DOUBLE, as the counted form does with its values.
      const read = emitter.read(aggregate.field!, 'number', 'output').sql;
      const value = aggregate.field!.type === 'column' ? `CAST(${read} AS DOUBLE)` : read;
      counted = (where) => countedPercentile(groups.select, value, level, emitter.from(), where);
    } else {
      select.push(...groups.select, `${emitter.aggregate(aggregate.func, aggregate.field)} AS agg`);
      if (countsGroups) {
        select.push(`${emitter.countAll()} OVER () AS total_groups`);
        groupBy = ` GROUP BY ${aggregate.groups.map((group, index) => (group.field ? emitter.groupKey(group.field, `g${index}`) : `g${index}`)).join(', ')}`;
      }
    }
  }

  if (plan.where) conditions.push(plan.where.kind === 'or' ? `(${emitter.predicate(plan.where)})` : emitter.predicate(plan.where));

  let tail = groupBy;
  let outerOrder = '';
  const grouped = plan.mode === 'aggregate' && plan.aggregate!.groups.length > 0;
  if (plan.mode === 'search' || grouped) {
    const orderOf = (sorts: SortPlan[]) => sorts.flatMap((sort) => {
      const direction = sort.direction.toUpperCase();
      if ('value' in sort.target) return [`agg ${direction}`];
      if ('group' in sort.target) return [`g${sort.target.group} ${direction}`];
      const field = sort.target.field;
      if (field.type === 'bag') {
        // Numbers sort as numbers, everything else as text.
        return [`${emitter.bagNumber(field.bag, field.key).sql} ${direction}`, `${emitter.bagText(field.bag, field.key, false).sql} ${direction}`];
      }
      // As results show it: ClickHouse's '' for a missing text sorts last, as DuckDB's NULL does.
      return [`${emitter.read(field, 'string', 'output').sql} ${direction}`];
    });
    const limit = ` LIMIT ${emitter.bindNamed('limit', plan.limit, emitter.limitParamType)}`;
    // `top n` with a sort of its own: the n largest groups, then in the order asked for.
    tail += ` ORDER BY ${orderOf(plan.keep ?? plan.sort).join(', ')}${limit}`;
    if (plan.keep) outerOrder = ` ORDER BY ${orderOf(plan.sort).join(', ')}`;
  }
  const where = conditions.join(' AND ');
  const inner = counted ? `${counted(where)}${tail}` : `SELECT ${select.join(', ')} FROM ${emitter.from()} WHERE ${where}${tail}`;
  const sql = outerOrder ? `SELECT * FROM (${inner})${outerOrder}` : inner;
  return { sql, params: emitter.params, mode: plan.mode, table: source.table, columns, countsGroups };
}

function decodeOf(column: ColumnInfo): Decode {
  if (column.kind === 'timestamp') return 'timestamp';
  if (column.kind === 'json') return 'json';
  return 'plain';
}

/** ISO 8601 UTC with milliseconds whatever the engine returned (DECISIONS.md). */
function isoTime(value: unknown): unknown {
  if (value === null || value === undefined || value === '') return null;
  const text = String(value);
  const zoned = /[zZ]|[+-]\d{2}:?\d{2}$/.test(text) ? text : `${text.replace(' ', 'T')}Z`;
  const date = new Date(zoned);
  return Number.isNaN(date.getTime()) ? text : date.toISOString();
}

function parseJson(value: unknown): unknown {
  if (typeof value !== 'string') return value ?? null;
  if (value === '') return null;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

/** ClickHouse keeps every bag value as text plus the numbers in a twin map; the numbers win. */
function mergeBag(text: unknown, numbers: unknown): unknown {
  if (typeof text === 'string') return parseJson(text);
  const merged: Record<string, unknown> = { ...(text as Record<string, unknown> | null) };
  for (const [key, value] of Object.entries((numbers as Record<string, unknown> | null) ?? {})) merged[key] = Number(value);
  return merged;
}

function decodeValue(column: OutputColumn, row: ResultRow): unknown {
  const value = row[column.alias];
  switch (column.decode) {
    case 'plain':
      return value ?? null;
    case 'timestamp':
      return isoTime(value);
    case 'json':
      return parseJson(value);
    case 'bag':
      return column.numbers ? mergeBag(value, row[column.numbers]) : parseJson(value);
    case 'bagValue': {
      const number = column.numbers ? row[column.numbers] : null;
      return number !== null && number !== undefined ? Number(number) : (value ?? null);
    }
  }
}

/** Result rows keyed as the query wrote its fields, and the number of groups before the limit. */
export function decodeResults(compiled: CompiledQuery, rows: ResultRow[]): { results: Record<string, unknown>[]; total_groups: number } {
  const results = rows.map((row) => {
    const result: Record<string, unknown> = {};
    for (const column of compiled.columns) result[column.key] = decodeValue(column, row);
    return result;
  });
  const total = compiled.countsGroups ? Number(rows[0]?.['total_groups'] ?? 0) : results.length;
  return { results, total_groups: total };
}
