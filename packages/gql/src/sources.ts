import {
  alertEventsTable,
  alertsTable,
  errorsTable,
  eventsTable,
  issuesTable,
  logsTable,
  sessionsTable,
  spansTable,
  vitalsTable,
  type ColumnType,
  type TableDefinition,
} from '@tlm/analytics-store';

/** What a column holds, as GQL sees it. */
export type FieldKind = 'string' | 'number' | 'timestamp' | 'bool' | 'json';

export interface ColumnInfo {
  name: string;
  kind: FieldKind;
  /** NULL when absent in DuckDB (nullable_*); ClickHouse stores absent strings as ''. */
  nullable: boolean;
  /** The ClickHouse type of the column, read from the table's DDL: `UUID`, `LowCardinality(String)`, ... */
  clickhouseType: string;
  /** Where the value is when the row names it instead of holding it (SourceOptions.lookups). */
  lookup?: ColumnLookup;
}

/**
 * A column whose value may live in another table of the project, named by a key column of the row: a row holds either
 * the value or the key (errors name their stack, whose `frames` the `stacks` table holds). Read only in outputs.
 */
export interface ColumnLookup {
  table: string;
  /** The column of this table naming the other table's `id`. */
  key: string;
  /** The other table's column holding the value. */
  column: string;
}

/** A property bag: stored flat, nested keys are dotted keys (`user.plan`). */
export interface BagInfo {
  name: string;
}

export interface SourceDefinition {
  /** The GQL name after `from:`. */
  name: string;
  description: string;
  table: string;
  /** Orders results and carries the retention bound; null for sources that are state, not telemetry. */
  timeColumn: string | null;
  /** Rows are only ever added (and purged): no row's values, its time among them, change once stored. */
  appendOnly: boolean;
  columns: Map<string, ColumnInfo>;
  bags: Map<string, BagInfo>;
  /** Where bare names that are not columns resolve (`route:/checkout` means `properties.route`); null: unknown field. */
  defaultBag: string | null;
  /** Columns searched by quoted or bare text. */
  fullText: string[];
  /** Full-text columns whose trigram signature another column holds (DuckDB; textSignature in the store). */
  textSignatures: Record<string, string>;
  /** Other names people use for columns. */
  aliases: Record<string, string>;
  /** Conditions every query of the source carries, e.g. hiding deleted alert rules. */
  baseFilters: { column: string; value: boolean }[];
  /** Rows hidden unless the query filters on the column itself, e.g. ignored issues (`status:ignored` shows them). */
  hiddenUnlessFiltered: { column: string; values: string[] } | null;
  /** Columns of a search result when the query has no `fields`. */
  projection: string[];
  defaultSort: { column: string; direction: 'asc' | 'desc' };
  /** Values worth suggesting for a column. */
  knownValues: Record<string, string[]>;
}

/** Columns a query never sees: the tenancy key and storage bookkeeping. */
const HIDDEN_COLUMNS = new Set(['project_id', 'retention_days', 'stream_partition', 'stream_offset', 'stack_id', 'message_trigrams']);

const KINDS: Record<ColumnType, FieldKind | 'bag'> = {
  string: 'string',
  nullable_string: 'string',
  timestamp: 'timestamp',
  nullable_timestamp: 'timestamp',
  bool: 'bool',
  uint16: 'number',
  uint32: 'number',
  uint64: 'number',
  float64: 'number',
  properties: 'bag',
  json: 'json',
  text_signature: 'number',
};

/** `name Type,` lines of a ClickHouse CREATE TABLE: the storage type of every column. */
export function clickhouseColumnTypes(ddl: string): Map<string, string> {
  const types = new Map<string, string>();
  for (const line of ddl.split('\n')) {
    const match = /^\s+([a-z_][a-z0-9_]*)\s+(.+?),?\s*$/i.exec(line);
    if (match && match[1] !== 'INDEX') types.set(match[1]!, match[2]!);
  }
  return types;
}

export interface SourceOptions {
  name: string;
  description: string;
  table: TableDefinition<never>;
  timeColumn: string | null;
  defaultBag?: string;
  fullText?: string[];
  textSignatures?: Record<string, string>;
  aliases?: Record<string, string>;
  baseFilters?: { column: string; value: boolean }[];
  hiddenUnlessFiltered?: { column: string; values: string[] };
  /** Columns left out of the default search projection (still selectable with `fields`). */
  hideInSearch?: string[];
  /** Columns whose value a row may hold in another table instead (ColumnLookup). */
  lookups?: Record<string, ColumnLookup>;
  defaultSort?: { column: string; direction: 'asc' | 'desc' };
  knownValues?: Record<string, string[]>;
}

/** A source over a table: GQL's catalog uses it, and so do reads that are not GQL queries (replay, profiles). */
export function defineSource(options: SourceOptions): SourceDefinition {
  const table = options.table as unknown as TableDefinition<object>;
  const clickhouseTypes = clickhouseColumnTypes(table.ddl.clickhouse[0] ?? '');
  const columns = new Map<string, ColumnInfo>();
  const bags = new Map<string, BagInfo>();
  // A base filter's column (the alerts' tombstone flag) is bookkeeping: never a field, only the filter itself.
  const filtered = new Set((options.baseFilters ?? []).map((filter) => filter.column));
  for (const column of table.columns) {
    if (HIDDEN_COLUMNS.has(column.name) || filtered.has(column.name)) continue;
    const kind = KINDS[column.type];
    if (kind === 'bag') bags.set(column.name, { name: column.name });
    else {
      const lookup = options.lookups?.[column.name];
      columns.set(column.name, {
        name: column.name,
        kind,
        nullable: column.type.startsWith('nullable_'),
        clickhouseType: clickhouseTypes.get(column.name) ?? 'String',
        ...(lookup ? { lookup } : {}),
      });
    }
  }
  const hidden = new Set([...(options.hideInSearch ?? []), ...(options.baseFilters ?? []).map((filter) => filter.column)]);
  const timeColumn = options.timeColumn;
  return {
    name: options.name,
    description: options.description,
    table: table.name,
    timeColumn,
    appendOnly: table.mode === 'append',
    columns,
    bags,
    defaultBag: options.defaultBag ?? null,
    fullText: options.fullText ?? [],
    textSignatures: options.textSignatures ?? {},
    // No prototype: a field written `constructor` or `__proto__` is a field like any other, never Object's.
    aliases: Object.assign(Object.create(null) as Record<string, string>, options.aliases),
    baseFilters: options.baseFilters ?? [],
    hiddenUnlessFiltered: options.hiddenUnlessFiltered ?? null,
    projection: table.columns.map((column) => column.name).filter((name) => !HIDDEN_COLUMNS.has(name) && !hidden.has(name)),
    defaultSort: options.defaultSort ?? { column: timeColumn ?? 'id', direction: 'desc' },
    knownValues: options.knownValues ?? {},
  };
}

export const SEVERITIES = ['debug', 'info', 'warn', 'error', 'fatal'];
export const ISSUE_STATUSES = ['unresolved', 'resolved', 'ignored', 'regressed'];
const ERROR_LEVELS = ['fatal', 'error', 'warning', 'info', 'debug'];
const ALERT_SEVERITIES = ['info', 'warning', 'critical'];
const SPAN_STATUSES = ['ok', 'error'];
const SPAN_KINDS = ['internal', 'server', 'client', 'producer', 'consumer'];
const VITAL_NAMES = ['lcp', 'inp', 'cls', 'fcp', 'ttfb'];
const VITAL_RATINGS = ['good', 'needs-improvement', 'poor'];
const SESSION_STATUSES = ['ok', 'exited', 'crashed', 'abnormal', 'errored', 'unhandled'];
const SESSION_OUTCOMES = ['healthy', 'errored', 'abnormal', 'crashed'];

/** Every GQL source; adding one is one entry here. */
export const SOURCES: readonly SourceDefinition[] = [
  defineSource({
    name: 'logs',
    description: 'log entries',
    table: logsTable as TableDefinition<never>,
    timeColumn: 'timestamp',
    defaultBag: 'properties',
    fullText: ['message'],
    textSignatures: { message: 'message_trigrams' },
    aliases: { level: 'severity' },
    hideInSearch: ['received_at'],
    knownValues: { severity: SEVERITIES },
  }),
  defineSource({
    name: 'events',
    description: 'product-analytics events',
    table: eventsTable as TableDefinition<never>,
    timeColumn: 'timestamp',
    defaultBag: 'properties',
    fullText: ['event_name'],
    aliases: { event: 'event_name' },
    hideInSearch: ['received_at'],
  }),
  defineSource({
    name: 'errors',
    description: 'captured errors, one row per occurrence',
    table: errorsTable as TableDefinition<never>,
    timeColumn: 'timestamp',
    defaultBag: 'tags',
    fullText: ['value', 'type'],
    aliases: { message: 'value' },
    hideInSearch: ['received_at', 'frames', 'breadcrumbs'],
    // Rows with frames name their stack, but for rows written before the `stacks` table existed (docs/decisions.md
    // "Stacks are stored once").
    lookups: { frames: { table: 'stacks', key: 'stack_id', column: 'frames' } },
    knownValues: { level: ERROR_LEVELS },
  }),
  defineSource({
    name: 'issues',
    description: 'errors grouped by fingerprint',
    table: issuesTable as TableDefinition<never>,
    timeColumn: 'last_seen',
    fullText: ['title', 'culprit'],
    hideInSearch: ['updated_at'],
    // SPEC.md Issue status: ignoring hides an issue from the default list.
    hiddenUnlessFiltered: { column: 'status', values: ['ignored'] },
    knownValues: { status: ISSUE_STATUSES, level: ERROR_LEVELS },
  }),
  defineSource({
    name: 'alerts',
    description: 'alert rules',
    table: alertsTable as TableDefinition<never>,
    timeColumn: null,
    fullText: ['name'],
    baseFilters: [{ column: 'deleted', value: false }],
    hideInSearch: ['updated_at'],
    defaultSort: { column: 'created_at', direction: 'desc' },
    knownValues: { severity: ALERT_SEVERITIES, comparator: ['gt', 'gte', 'lt', 'lte'] },
  }),
  defineSource({
    name: 'alert_events',
    description: 'firings of alert rules',
    table: alertEventsTable as TableDefinition<never>,
    timeColumn: 'triggered_at',
    fullText: ['rule_name'],
    knownValues: { severity: ALERT_SEVERITIES },
  }),
  defineSource({
    name: 'spans',
    description: 'trace spans, one row per span; timestamp is the start',
    table: spansTable as TableDefinition<never>,
    timeColumn: 'timestamp',
    defaultBag: 'attributes',
    fullText: ['name'],
    aliases: { duration: 'duration_ms' },
    hideInSearch: ['received_at'],
    knownValues: { status: SPAN_STATUSES, kind: SPAN_KINDS },
  }),
  defineSource({
    name: 'vitals',
    description: 'web vitals (LCP, INP, CLS, FCP, TTFB) with their rating',
    table: vitalsTable as TableDefinition<never>,
    timeColumn: 'timestamp',
    defaultBag: 'properties',
    fullText: ['route'],
    hideInSearch: ['received_at'],
    knownValues: { name: VITAL_NAMES, rating: VITAL_RATINGS },
  }),
  defineSource({
    name: 'sessions',
    description: 'release-health sessions: one row per session (its latest state) or per aggregated count (quantity)',
    table: sessionsTable as TableDefinition<never>,
    timeColumn: 'started',
    defaultBag: 'properties',
    fullText: ['release'],
    hideInSearch: ['updated_at', 'received_at'],
    knownValues: { status: SESSION_STATUSES, outcome: SESSION_OUTCOMES },
  }),
];

const BY_NAME = new Map(SOURCES.map((source) => [source.name, source]));

export function findSource(name: string): SourceDefinition | undefined {
  return BY_NAME.get(name.toLowerCase());
}
