import { createHash } from 'node:crypto';
import { createClient, type ClickHouseClient, type ClickHouseClientConfigOptions } from '@clickhouse/client';
import { Type } from '@sinclair/typebox';
import { shared } from '@tlm/core';
import type { Properties } from '@tlm/signals';
import {
  assertPromotable,
  promotionName,
  promotionOf,
  readyColumns,
  type AnalyticsStore,
  type ColumnType,
  type PromotedColumns,
  type PromotedProperty,
  type QueryParams,
  type ResultRow,
  type TableDefinition,
} from './store';

export const clickhouseConfig = {
  CLICKHOUSE_URL: Type.String({ format: 'uri', pattern: '^https?://', description: 'ClickHouse HTTP endpoint, e.g. http://clickhouse:8123; selects the ClickHouse store.' }),
  CLICKHOUSE_DATABASE: Type.String({ default: 'tlm', description: 'Database holding the analytics tables (created if missing).' }),
  CLICKHOUSE_USER: Type.String({ default: 'default', description: 'ClickHouse user.' }),
  CLICKHOUSE_PASSWORD: Type.String({ default: '', secret: true, description: 'ClickHouse password.' }),
};

/** Settings on every request: ISO times in and out, 64-bit integers as JSON numbers. */
export const CLICKHOUSE_SETTINGS = {
  date_time_input_format: 'best_effort',
  date_time_output_format: 'iso',
  output_format_json_quote_64bit_integers: 0,
} as const;

/** ClickHouse takes property bags as two maps: every value as text, and the numeric ones typed. */
function propertyMaps(properties: Properties): { text: Record<string, string>; numbers: Record<string, number> } {
  const text: Record<string, string> = {};
  const numbers: Record<string, number> = {};
  for (const [key, value] of Object.entries(properties)) {
    if (typeof value === 'number') numbers[key] = value;
    text[key] = typeof value === 'string' ? value : JSON.stringify(value);
  }
  return { text, numbers };
}

const encoders: Record<ColumnType, (value: unknown) => unknown> = {
  string: (value) => value,
  nullable_string: (value) => value ?? '',
  timestamp: (value) => new Date(value as number).toISOString(),
  nullable_timestamp: (value) => (value == null ? null : new Date(value as number).toISOString()),
  bool: (value) => value,
  uint16: (value) => value,
  uint32: (value) => value,
  uint64: (value) => value,
  float64: (value) => value,
  properties: (value) => value,
  json: (value) => (value == null ? '' : JSON.stringify(value)),
  text_signature: (value) => value,
};

/** The JSONEachRow object sent for one row; a `properties` column also fills its `_num` twin. */
export function clickhouseRow<Row extends object>(table: TableDefinition<Row>, row: Row): Record<string, unknown> {
  const encoded: Record<string, unknown> = {};
  for (const column of table.columns) {
    if (column.only && column.only !== 'clickhouse') continue;
    const value = row[column.name];
    if (column.type === 'properties') {
      const maps = propertyMaps(value as Properties);
      encoded[column.name] = maps.text;
      encoded[`${column.name}_num`] = maps.numbers;
    } else {
      encoded[column.name] = encoders[column.type](value);
    }
  }
  return encoded;
}

/** ClickHouse's `max_partitions_per_insert_block` default: an INSERT whose rows span more partitions fails whole. */
export const MAX_PARTITIONS_PER_INSERT = 100;

const DAY_MS = 86_400_000;

/**
 * A table's rows cut into inserts of at most MAX_PARTITIONS_PER_INSERT days of the time column (the tables are
 * partitioned by day or by month of it), in their order within a day. A backfill spanning years is accepted at
 * ingest and would otherwise fail every redelivery and stop its partition of the bus.
 */
export function insertBlocks<Row extends object>(table: TableDefinition<Row>, rows: readonly Row[]): Row[][] {
  if (table.timeColumn === undefined) return [rows.slice()];
  const column = table.timeColumn;
  const byDay = new Map<number, Row[]>();
  for (const row of rows) {
    const day = Math.floor((row[column] as number) / DAY_MS);
    const dayRows = byDay.get(day);
    if (dayRows) dayRows.push(row);
    else byDay.set(day, [row]);
  }
  if (byDay.size <= MAX_PARTITIONS_PER_INSERT) return [rows.slice()];
  const blocks: Row[][] = [];
  let block: Row[] = [];
  let days = 0;
  for (const dayRows of byDay.values()) {
    if (days === MAX_PARTITIONS_PER_INSERT) {
      blocks.push(block);
      block = [];
      days = 0;
    }
    block.push(...dayRows);
    days += 1;
  }
  blocks.push(block);
  return blocks;
}

/**
 * How ClickHouse reads a bag's key as text and as a number, `name` being the key as SQL (a literal or a parameter):
 * GQL's emitter reads bags with these, and a promoted key's columns are MATERIALIZED by them. Numbers sent as text
 * ("200") are kept in the text map only, and read as numbers too.
 */
export const clickhouseBagRead = (bag: string, name: string) => ({
  text: `if(mapContains(${bag}, ${name}), ${bag}[${name}], NULL)`,
  number: `if(mapContains(${bag}_num, ${name}), ${bag}_num[${name}], toFloat64OrNull(${bag}[${name}]))`,
});

/** A ClickHouse string literal: backslashes and quotes escaped, as ClickHouse reads them. */
export const clickhouseString = (text: string): string => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/**
 * The record of promoted properties, in the database itself: the maintenance service promotes, and every service's
 * store reads which columns are ready from here. A promotion's newest record wins (`updated_at`).
 */
export const PROMOTIONS_DDL = `CREATE TABLE IF NOT EXISTS promoted_properties
(
    table_name String,
    bag String,
    key String,
    column_name String,
    number_column Nullable(String),
    ready Bool,
    updated_at DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(updated_at)
ORDER BY (table_name, bag, key)`;

/**
 * A promotion of a bag's key, not filled yet. Its columns are named after a hash of the key, so two processes that
 * promote the same key at once add the same columns.
 */
export function clickhousePromotion(table: string, bag: string, key: string, numeric: boolean): PromotedProperty {
  const column = `${bag}__h${createHash('sha256').update(key).digest('hex').slice(0, 16)}`;
  return { table, bag, key, column, numberColumn: numeric ? `${column}_number` : null, ready: false };
}

/**
 * The statements that add a promotion's columns. MATERIALIZED columns are computed by ClickHouse from the bag at
 * every insert, and for the parts written before, at each read until `MATERIALIZE COLUMN` has written them: the
 * column answers the same as the bag from the moment it exists.
 */
export function promotionColumnsDdl(promotion: PromotedProperty): string[] {
  const read = clickhouseBagRead(promotion.bag, clickhouseString(promotion.key));
  const statements = [`ALTER TABLE ${promotion.table} ADD COLUMN IF NOT EXISTS ${promotion.column} Nullable(String) MATERIALIZED ${read.text}`];
  if (promotion.numberColumn) {
    statements.push(`ALTER TABLE ${promotion.table} ADD COLUMN IF NOT EXISTS ${promotion.numberColumn} Nullable(Float64) MATERIALIZED ${read.number}`);
  }
  return statements;
}

/**
 * The statements that write a promotion's columns into one partition's parts stored before it (a mutation per
 * column). A partition at a time: ClickHouse runs a table's mutations in order, so a purge's DELETE waits for one
 * partition's fill at most, not for the whole table's.
 */
export function promotionFillDdl(promotion: PromotedProperty, partitionId: string): string[] {
  return [promotion.column, ...(promotion.numberColumn ? [promotion.numberColumn] : [])].map(
    (column) => `ALTER TABLE ${promotion.table} MATERIALIZE COLUMN ${column} IN PARTITION ID ${clickhouseString(partitionId)}`,
  );
}

/** The partitions of a table that hold parts now. */
const PARTITIONS_SQL = `SELECT DISTINCT partition_id FROM system.parts
WHERE database = currentDatabase() AND table = {table:String} AND active ORDER BY partition_id`;

/** The unfinished mutations of a table that name a column, and why the last attempt of one failed. */
const UNFINISHED_FILLS_SQL = `SELECT count() AS unfinished, max(latest_fail_reason) AS failure FROM system.mutations
WHERE database = currentDatabase() AND table = {table:String} AND NOT is_done AND position(command, {column:String}) > 0`;

/**
 * How often a store reads which promotions are ready: one made by another process (the maintenance service) reaches
 * this one's queries within it. Until then its queries read the bag, which answers the same.
 */
const PROMOTIONS_REFRESH_MS = 30_000;
/**
 * How often a running fill is checked for its end: first after FIRST_FILL_POLL_MS, then twice as long each time, up to
 * FILL_POLL_MS, so the fill of a small partition is seen done within milliseconds and a long one costs a read a second.
 */
const FIRST_FILL_POLL_MS = 25;
const FILL_POLL_MS = 1_000;

const NO_COLUMNS: ReadonlyMap<string, PromotedColumns> = new Map();

export interface ClickHouseConnectOptions {
  /** The server's HTTP address, e.g. http://clickhouse:8123. */
  url?: string;
  database: string;
  username?: string;
  password?: string;
  /**
   * Makes the connection each client talks through instead of HTTP to `url`: an engine in this process (the live
   * suite runs on chDB, ClickHouse as a library, where no server is installed).
   */
  connection?: () => NonNullable<ClickHouseClientConfigOptions['connection']>;
}

export class ClickHouseStore implements AnalyticsStore {
  readonly dialect = 'clickhouse';
  /** The ready promotions of each table, by `promotedKey`, as last read from `promoted_properties`. */
  private readyColumns = new Map<string, ReadonlyMap<string, PromotedColumns>>();
  /** Promotions this process is making, so a second ask waits for the first. */
  private readonly filling = new Map<string, Promise<PromotedProperty>>();
  private refreshTimer: NodeJS.Timeout | undefined;
  private closed = false;

  private constructor(private readonly client: ClickHouseClient) {}

  static async connect(options: ClickHouseConnectOptions): Promise<ClickHouseStore> {
    const { url, username, password } = options;
    const admin = createClient({ url, username, password, connection: options.connection?.() });
    try {
      await admin.command({ query: `CREATE DATABASE IF NOT EXISTS ${quoteIdentifier(options.database)}` });
    } finally {
      await admin.close();
    }
    const client = createClient({
      url,
      username,
      password,
      database: options.database,
      clickhouse_settings: CLICKHOUSE_SETTINGS,
      connection: options.connection?.(),
    });
    const store = new ClickHouseStore(client);
    try {
      await client.command({ query: PROMOTIONS_DDL });
      await store.loadPromotions();
    } catch (error) {
      await client.close();
      throw error;
    }
    store.refreshTimer = setInterval(() => {
      // A failed read keeps the promotions known so far; queries that miss a newer one read the bag instead.
      store.loadPromotions().catch(() => undefined);
    }, PROMOTIONS_REFRESH_MS);
    store.refreshTimer.unref();
    return store;
  }

  static fromConfig(config: { CLICKHOUSE_URL: string; CLICKHOUSE_DATABASE: string; CLICKHOUSE_USER: string; CLICKHOUSE_PASSWORD: string }) {
    return ClickHouseStore.connect({
      url: config.CLICKHOUSE_URL,
      database: config.CLICKHOUSE_DATABASE,
      username: config.CLICKHOUSE_USER,
      password: config.CLICKHOUSE_PASSWORD,
    });
  }

  async migrate(tables: readonly TableDefinition<object>[]): Promise<void> {
    for (const table of tables) for (const statement of table.ddl.clickhouse) await this.client.command({ query: statement });
  }

  async insert<Row extends object>(table: TableDefinition<Row>, rows: readonly Row[]): Promise<void> {
    if (rows.length === 0) return;
    for (const block of insertBlocks(table, rows)) {
      await this.client.insert({ table: table.name, values: block.map((row) => clickhouseRow(table, row)), format: 'JSONEachRow' });
    }
  }

  async query(sql: string, params: QueryParams = {}): Promise<ResultRow[]> {
    const result = await this.client.query({ query: sql, query_params: params, format: 'JSONEachRow' });
    return result.json<ResultRow>();
  }

  async execute(sql: string, params: QueryParams = {}): Promise<void> {
    await this.client.command({ query: sql, query_params: params });
  }

  async ping(): Promise<void> {
    const result = await this.client.ping();
    if (!result.success) throw result.error;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.refreshTimer);
    await this.client.close();
  }

  promotedColumns(table: string): ReadonlyMap<string, PromotedColumns> {
    return this.readyColumns.get(table) ?? NO_COLUMNS;
  }

  /**
   * Adds the key's MATERIALIZED columns, records the promotion, writes the columns into the parts stored before
   * (`MATERIALIZE COLUMN`, mutations ClickHouse runs in the background, a partition at a time) and, once they have
   * ended, records it ready so that queries read the columns. Idempotent; a promotion whose fill did not end is
   * waited for again.
   */
  async promote<Row extends object>(definition: TableDefinition<Row>, bag: string, key: string, numeric: boolean): Promise<PromotedProperty> {
    const table = definition as unknown as TableDefinition<object>;
    assertPromotable(table, bag);
    return shared(this.filling, promotionName(table.name, bag, key), () => this.promoteOnce(table.name, bag, key, numeric));
  }

  private async promoteOnce(table: string, bag: string, key: string, numeric: boolean): Promise<PromotedProperty> {
    const held = (await this.promotions({ table, bag, key }))[0];
    if (held?.ready) return held;
    const promotion = held ?? clickhousePromotion(table, bag, key, numeric);
    if (!held) {
      // Columns first: a promotion on record always has its columns, and adding them again changes nothing.
      for (const statement of promotionColumnsDdl(promotion)) await this.client.command({ query: statement });
      await this.record(promotion);
    }
    // A fill begun before (by a process that stopped meanwhile) is waited for first; its partitions are filled again.
    await this.filled(promotion);
    const partitions = await this.query(PARTITIONS_SQL, { table });
    for (const { partition_id: partition } of partitions) {
      for (const statement of promotionFillDdl(promotion, String(partition))) await this.client.command({ query: statement });
      await this.filled(promotion);
    }
    const ready = { ...promotion, ready: true };
    await this.record(ready);
    await this.loadPromotions();
    return ready;
  }

  /**
   * Waits until no mutation writing the promotion's columns is unfinished. Throws once the store is closed, and when
   * ClickHouse's last attempt at one failed: ClickHouse tries it again, and the promoter's next pass waits for it.
   */
  private async filled(promotion: PromotedProperty): Promise<void> {
    for (let pollMs = FIRST_FILL_POLL_MS; ; pollMs = Math.min(pollMs * 2, FILL_POLL_MS)) {
      if (this.closed) throw new Error('the analytics store is closed');
      const [row] = await this.query(UNFINISHED_FILLS_SQL, { table: promotion.table, column: promotion.column });
      const failure = String(row?.['failure'] ?? '');
      if (failure !== '') throw new Error(`ClickHouse has not filled ${promotion.table}.${promotion.column} yet: ${failure}`);
      if (Number(row?.['unfinished'] ?? 0) === 0) return;
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  }

  private async record(promotion: PromotedProperty): Promise<void> {
    await this.client.insert({
      table: 'promoted_properties',
      format: 'JSONEachRow',
      values: [
        {
          table_name: promotion.table,
          bag: promotion.bag,
          key: promotion.key,
          column_name: promotion.column,
          number_column: promotion.numberColumn,
          ready: promotion.ready,
          updated_at: new Date().toISOString(),
        },
      ],
    });
  }

  /** The recorded promotions, of one key when `of` is given. */
  private async promotions(of?: { table: string; bag: string; key: string }): Promise<PromotedProperty[]> {
    const where = of ? ' WHERE table_name = {table:String} AND bag = {bag:String} AND key = {key:String}' : '';
    const rows = await this.query(`SELECT table_name, bag, key, column_name, number_column, ready FROM promoted_properties FINAL${where}`, of ?? {});
    return rows.map(promotionOf);
  }

  private async loadPromotions(): Promise<void> {
    const byTable = new Map<string, PromotedProperty[]>();
    for (const promotion of await this.promotions()) byTable.set(promotion.table, [...(byTable.get(promotion.table) ?? []), promotion]);
    this.readyColumns = new Map([...byTable].map(([table, promotions]) => [table, readyColumns(promotions)]));
  }
}

/** Database names come from configuration, not users; still, only plain identifiers pass. */
function quoteIdentifier(name: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`invalid ClickHouse database name: ${name}`);
  return `\`${name}\``;
}
