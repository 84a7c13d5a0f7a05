import type { Properties } from '@tlm/signals';
import type { StreamPosition } from './tables/stream';

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
  | 'json'
  /** A text's trigram signature (textSignature.ts): DuckDB only; rows without one get every bit, so scans test them. */
  | 'text_signature';

export interface Column<Row> {
  name: keyof Row & string;
  type: ColumnType;
  /** A column only this dialect's table has (a DuckDB search aid that ClickHouse's indexes make needless). */
  only?: Dialect;
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
  /**
   * Inserts rows of an append table from the JSON arrays of their records as the bus journaled them (`encoded`,
   * UTF-8, in order), each column copied from the record's field `fields` names for it, and the other columns from
   * `computed`, row for row in the same order: the same rows `insert` writes, without serialising them again. Each
   * computed row holds its record's `id` too; the insert fails, storing nothing, where one does not match. Stores
   * that cannot read the JSON themselves leave this out.
   */
  insertRecords?<Row extends object>(table: TableDefinition<Row>, fields: RecordFields, encoded: readonly Buffer[], computed: readonly object[]): Promise<void>;
  /** Runs a read with named parameters; counts come back as numbers, timestamps as ISO 8601 strings. */
  query(sql: string, params?: QueryParams): Promise<ResultRow[]>;
  /** Runs a statement that changes data (deletes for purges and erasure). */
  execute(sql: string, params?: QueryParams): Promise<void>;
  ping(): Promise<void>;
  close(): Promise<void>;
  /**
   * The promoted properties of a table that queries may read (every stored row holds its value in the column), by
   * `promotedKey(bag, key)`. Stores that keep none leave this out, and queries read the bag.
   */
  promotedColumns?(table: string): ReadonlyMap<string, PromotedColumns>;
  /**
   * Keeps a bag's key of an append table in a column of its own from now on, fills it for the rows already stored,
   * then lets queries read it (docs/performance.md "Promoted properties"). Idempotent; resumes an unfinished fill.
   */
  promote?<Row extends object>(table: TableDefinition<Row>, bag: string, key: string, numeric: boolean): Promise<PromotedProperty>;
}

/** The record's field each of a table's columns is copied from (RecordMapping). */
export type RecordFields = Readonly<Record<string, string>>;

/**
 * How a table's row is made from the bus's record of it, for AnalyticsStore.insertRecords: columns copied from the
 * record's fields, and the rest computed. The table's own row function makes the same row (a test holds them equal).
 */
export interface RecordMapping<R, Known = StreamPosition | undefined> {
  fields: RecordFields;
  /**
   * The columns not copied from a field, and the record's `id` (AnalyticsStore.insertRecords checks it), from the
   * record and what its writer knows of it beside (its stream position; an error's issue and stack).
   */
  computed(record: R, known: Known): object;
}

/** The columns a promoted key's value is read from. */
export interface PromotedColumns {
  /** The value as the bag's text read gives it (DuckDB `json_extract_string`). */
  text: string;
  /** The value as a number (NULL where it reads as none); kept for keys that hold numbers. */
  number: string | null;
}

/** A bag key kept also as a column of its own, written at insert and filled for older rows. */
export interface PromotedProperty {
  table: string;
  bag: string;
  key: string;
  column: string;
  /** The column of the value as a number, for a key that holds numbers; null otherwise. */
  numberColumn: string | null;
  /** The column holds the key's value in every stored row: queries read it instead of the bag. */
  ready: boolean;
}

/** Refuses a promotion a table cannot take: only append tables' property bags are promoted. */
export function assertPromotable(table: TableDefinition<object>, bag: string): void {
  if (table.mode !== 'append') throw new Error(`only append tables take promoted properties, not ${table.name}`);
  if (!table.columns.some((column) => column.name === bag && column.type === 'properties')) {
    throw new Error(`${table.name} has no property bag ${bag}`);
  }
}

/** A promotion as the stores record it: a row of their `promoted_properties` table. */
export function promotionOf(row: ResultRow): PromotedProperty {
  return {
    table: String(row['table_name']),
    bag: String(row['bag']),
    key: String(row['key']),
    column: String(row['column_name']),
    numberColumn: row['number_column'] == null ? null : String(row['number_column']),
    ready: row['ready'] === true,
  };
}

/** The columns of the ready promotions among `promotions`, by `promotedKey` (AnalyticsStore.promotedColumns). */
export function readyColumns(promotions: readonly PromotedProperty[]): Map<string, PromotedColumns> {
  return new Map(promotions.filter((promotion) => promotion.ready).map((promotion) => [promotedKey(promotion.bag, promotion.key), { text: promotion.column, number: promotion.numberColumn }]));
}

/** A promotion's name among a store's: its table, bag and key. */
export const promotionName = (table: string, bag: string, key: string): string => `${table}\u0000${promotedKey(bag, key)}`;

/** Where `promotedColumns` files a bag's key. */
export const promotedKey = (bag: string, key: string): string => `${bag}\u0000${key}`;

/** JSON pointer of a flat bag key: DuckDB reads `/user.plan` as the key "user.plan", whatever characters it holds. */
export const jsonPointer = (key: string): string => `/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
