import { DOUBLE, DuckDBInstance, DuckDBTimestampValue, type DuckDBAppender, type DuckDBConnection, type DuckDBType } from '@duckdb/node-api';
import type { AnalyticsStore, ColumnType, QueryParams, ResultRow, TableDefinition } from './store';

const MICROS_PER_MILLI = 1000n;

/** Appends one value of a column type; the row builders guarantee the JS type matches. */
const appenders: Record<ColumnType, (appender: DuckDBAppender, value: unknown) => void> = {
  string: (appender, value) => appender.appendVarchar(value as string),
  nullable_string: (appender, value) => (value == null ? appender.appendNull() : appender.appendVarchar(value as string)),
  timestamp: (appender, value) => appender.appendTimestamp(new DuckDBTimestampValue(BigInt(value as number) * MICROS_PER_MILLI)),
  nullable_timestamp: (appender, value) =>
    value == null ? appender.appendNull() : appender.appendTimestamp(new DuckDBTimestampValue(BigInt(value as number) * MICROS_PER_MILLI)),
  bool: (appender, value) => appender.appendBoolean(value as boolean),
  uint16: (appender, value) => appender.appendUSmallInt(value as number),
  uint32: (appender, value) => appender.appendUInteger(value as number),
  uint64: (appender, value) => appender.appendUBigInt(BigInt(value as number)),
  float64: (appender, value) => (value == null ? appender.appendNull() : appender.appendDouble(value as number)),
  properties: (appender, value) => appender.appendVarchar(JSON.stringify(value)),
  json: (appender, value) => (value == null ? appender.appendNull() : appender.appendVarchar(JSON.stringify(value))),
};

/** Embedded analytics store: one writer connection with appenders, a small pool of read connections. */
export class DuckDBStore implements AnalyticsStore {
  readonly dialect = 'duckdb';
  private writeQueue: Promise<unknown> = Promise.resolve();
  private readonly idle: DuckDBConnection[] = [];
  private readonly waiting: ((connection: DuckDBConnection) => void)[] = [];
  private readerCount = 0;

  private constructor(
    private readonly instance: DuckDBInstance,
    private readonly writer: DuckDBConnection,
    private readonly maxReaders: number,
  ) {}

  /** `path` is a database file, or ':memory:' for a throwaway store. */
  static async open(path: string, maxReaders = 4): Promise<DuckDBStore> {
    const instance = await DuckDBInstance.create(path);
    return new DuckDBStore(instance, await instance.connect(), maxReaders);
  }

  async migrate(tables: readonly TableDefinition<object>[]): Promise<void> {
    for (const table of tables) for (const statement of table.ddl.duckdb) await this.execute(statement);
  }

  insert<Row extends object>(table: TableDefinition<Row>, rows: readonly Row[]): Promise<void> {
    if (rows.length === 0) return Promise.resolve();
    // One appender at a time on the writer connection; closing it commits the rows.
    return this.serialized(async () => {
      if (table.mode === 'append') {
        await this.append(table.name, table, rows);
        return;
      }
      // Replace tables: stage the snapshots, then let the primary key replace older versions in one statement.
      // Like ClickHouse's ReplacingMergeTree(updated_at), a snapshot older than the stored one never replaces it.
      const stage = `stage_${table.name}`;
      const updates = table.columns
        .filter((column) => column.name !== 'project_id' && column.name !== 'id')
        .map((column) => `"${column.name}" = excluded."${column.name}"`);
      await this.writer.run(`CREATE TEMP TABLE IF NOT EXISTS ${stage} AS SELECT * FROM ${table.name} LIMIT 0`);
      await this.append(stage, table, newestPerKey(rows));
      await this.writer.run(
        `INSERT INTO ${table.name} SELECT * FROM ${stage} ON CONFLICT (project_id, id) DO UPDATE SET ${updates.join(', ')}
         WHERE excluded.updated_at >= ${table.name}.updated_at`,
      );
      await this.writer.run(`DELETE FROM ${stage}`);
    });
  }

  private async append<Row extends object>(target: string, table: TableDefinition<Row>, rows: readonly Row[]): Promise<void> {
    const appender = await this.writer.createAppender(target);
    const columns = table.columns.map((column) => ({ name: column.name, append: appenders[column.type] }));
    try {
      for (const row of rows) {
        for (const column of columns) column.append(appender, row[column.name]);
        appender.endRow();
      }
    } finally {
      appender.closeSync();
    }
  }

  async query(sql: string, params: QueryParams = {}): Promise<ResultRow[]> {
    const connection = await this.acquire();
    try {
      const result = await connection.runAndReadAll(sql, params, parameterTypes(params));
      return result.getRowObjectsJS().map(normalizeRow);
    } finally {
      this.release(connection);
    }
  }

  execute(sql: string, params: QueryParams = {}): Promise<void> {
    return this.serialized(async () => {
      await this.writer.run(sql, params, parameterTypes(params));
    });
  }

  async ping(): Promise<void> {
    await this.query('SELECT 1');
  }

  async close(): Promise<void> {
    await this.serialized(async () => {
      await this.writer.run('CHECKPOINT');
    });
    for (const connection of this.idle) connection.closeSync();
    this.writer.closeSync();
    this.instance.closeSync();
  }

  private serialized<T>(work: () => Promise<T>): Promise<T> {
    const next = this.writeQueue.then(work, work);
    this.writeQueue = next.catch(() => undefined);
    return next;
  }

  private async acquire(): Promise<DuckDBConnection> {
    const ready = this.idle.pop();
    if (ready) return ready;
    if (this.readerCount < this.maxReaders) {
      this.readerCount += 1;
      return this.instance.connect();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(connection: DuckDBConnection): void {
    const waiter = this.waiting.shift();
    if (waiter) waiter(connection);
    else this.idle.push(connection);
  }
}

/**
 * Replace tables are keyed by (project_id, id) and versioned by `updated_at`; within one write the newest snapshot
 * of a key wins, and of equal versions the later one.
 */
function newestPerKey<Row extends object>(rows: readonly Row[]): Row[] {
  const byKey = new Map<string, Row>();
  for (const row of rows) {
    const keyed = row as { project_id?: unknown; id?: unknown; updated_at?: number };
    const key = `${String(keyed.project_id)}\u0000${String(keyed.id)}`;
    const held = byKey.get(key) as { updated_at?: number } | undefined;
    if (!held || (keyed.updated_at ?? 0) >= (held.updated_at ?? 0)) byKey.set(key, row);
  }
  return [...byKey.values()];
}

/** Same JSON shapes as the ClickHouse adapter: numbers for counts, ISO 8601 strings for times. */
function normalizeRow(row: Record<string, unknown>): ResultRow {
  const normalized: ResultRow = {};
  for (const [key, value] of Object.entries(row)) normalized[key] = normalizeValue(value);
  return normalized;
}

function normalizeValue(value: unknown): unknown {
  if (typeof value === 'bigint') return Number(value);
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(normalizeValue);
  return value;
}

/**
 * The client binds whole JS numbers as INTEGER or BIGINT and fails beyond the 64-bit range; numbers that are not
 * safe integers are bound as the DOUBLE they are.
 */
function parameterTypes(params: QueryParams): Record<string, DuckDBType> | undefined {
  let types: Record<string, DuckDBType> | undefined;
  for (const [name, value] of Object.entries(params)) {
    if (typeof value === 'number' && !Number.isSafeInteger(value)) (types ??= {})[name] = DOUBLE;
  }
  return types;
}
