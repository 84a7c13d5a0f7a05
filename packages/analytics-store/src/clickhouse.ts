import { createClient, type ClickHouseClient } from '@clickhouse/client';
import { Type } from '@sinclair/typebox';
import type { Properties } from '@tlm/signals';
import type { AnalyticsStore, ColumnType, QueryParams, ResultRow, TableDefinition } from './store';

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

export class ClickHouseStore implements AnalyticsStore {
  readonly dialect = 'clickhouse';

  private constructor(private readonly client: ClickHouseClient) {}

  static async connect(options: { url: string; database: string; username: string; password: string }): Promise<ClickHouseStore> {
    const admin = createClient({ url: options.url, username: options.username, password: options.password });
    try {
      await admin.command({ query: `CREATE DATABASE IF NOT EXISTS ${quoteIdentifier(options.database)}` });
    } finally {
      await admin.close();
    }
    const client = createClient({
      url: options.url,
      username: options.username,
      password: options.password,
      database: options.database,
      clickhouse_settings: CLICKHOUSE_SETTINGS,
    });
    return new ClickHouseStore(client);
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
    await this.client.close();
  }
}

/** Database names come from configuration, not users; still, only plain identifiers pass. */
function quoteIdentifier(name: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`invalid ClickHouse database name: ${name}`);
  return `\`${name}\``;
}
