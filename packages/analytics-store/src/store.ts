import type { Properties } from '@tlm/signals';

export type Dialect = 'duckdb' | 'clickhouse';

/**
 * Storage types of columns. `properties` is a flat property bag: JSON text in DuckDB; in ClickHouse a
 * `Map(LowCardinality(String), String)` of every value plus a `Map(LowCardinality(String), Float64)` of the numbers.
 */
export type ColumnType =
  | 'string'
  | 'nullable_string'
  | 'timestamp'
  | 'nullable_timestamp'
  | 'bool'
  | 'uint16'
  | 'uint32'
  | 'uint64'
  | 'float64'
  | 'properties'
  | 'json';

export interface Column<Row> {
  name: keyof Row & string;
  type: ColumnType;
}

/** One stored table: its row shape, its columns in insert order, and its DDL in each dialect. */
export interface TableDefinition<Row> {
  name: string;
  columns: readonly Column<Row>[];
  ddl: Record<Dialect, readonly string[]>;
  /**
   * `append` (telemetry) or `replace`: snapshots of state kept in the metadata store (issues, alert rules), where a
   * row replaces the one with the same primary key unless its `updated_at` is older (DuckDB INSERT ... ON CONFLICT;
   * ClickHouse ReplacingMergeTree(updated_at)).
   */
  mode: 'append' | 'replace';
  /** Column the retention purge cuts on; tables of settings (alert rules) have none. */
  timeColumn?: keyof Row & string;
  /**
   * Where a row names the person it is about (GDPR erasure by distinct id): a column, or keys of a bag column (a row
   * is about the person when any of them holds the distinct id).
   */
  person?: { column: keyof Row & string; keys?: readonly string[] };
}

/** Values in stored rows: timestamps as epoch milliseconds, property bags as flat objects. */
export type RowValue = string | number | null | Properties | Record<string, unknown> | unknown[];

export type QueryParams = Record<string, string | number | boolean | null>;
export type ResultRow = Record<string, unknown>;

export interface AnalyticsStore {
  readonly dialect: Dialect;
  /** Creates missing tables and columns; safe to run on every start. */
  migrate(tables: readonly TableDefinition<object>[]): Promise<void>;
  /** Inserts rows in one write; resolves when they are committed and readable. */
  insert<Row extends object>(table: TableDefinition<Row>, rows: readonly Row[]): Promise<void>;
  /** Runs a read with named parameters; counts come back as numbers, timestamps as ISO 8601 strings. */
  query(sql: string, params?: QueryParams): Promise<ResultRow[]>;
  /** Runs a statement that changes data (deletes for purges and erasure). */
  execute(sql: string, params?: QueryParams): Promise<void>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** JSON pointer of a flat bag key: DuckDB reads `/user.plan` as the key "user.plan", whatever characters it holds. */
export const jsonPointer = (key: string): string => `/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
