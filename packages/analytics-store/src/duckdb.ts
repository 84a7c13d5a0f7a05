import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  DOUBLE,
  DuckDBInstance,
  JSDuckDBValueConverter,
  type DuckDBConnection,
  type DuckDBMaterializedResult,
  type DuckDBPreparedStatement,
  type DuckDBType,
} from '@duckdb/node-api';
import type { AnalyticsStore, ColumnType, QueryParams, ResultRow, TableDefinition } from './store';

/**
 * How each column type travels in the JSON lines of a batch (`type`, for read_json) and how the SQL turns it into the
 * stored value. Timestamps travel as epoch milliseconds.
 */
const jsonColumns: Record<ColumnType, { type: string; value: (field: string) => string }> = {
  string: { type: 'VARCHAR', value: (field) => field },
  nullable_string: { type: 'VARCHAR', value: (field) => field },
  timestamp: { type: 'BIGINT', value: (field) => `make_timestamp(${field} * 1000)` },
  nullable_timestamp: { type: 'BIGINT', value: (field) => `make_timestamp(${field} * 1000)` },
  bool: { type: 'BOOLEAN', value: (field) => field },
  uint16: { type: 'USMALLINT', value: (field) => field },
  uint32: { type: 'UINTEGER', value: (field) => field },
  uint64: { type: 'UBIGINT', value: (field) => field },
  float64: { type: 'DOUBLE', value: (field) => field },
  properties: { type: 'JSON', value: (field) => field },
  json: { type: 'JSON', value: (field) => field },
};

/** Prepared read statements kept per reader connection; GQL plans repeat, and binding skips parsing and planning. */
const PREPARED_PER_READER = 64;

const insertStatements = new WeakMap<TableDefinition<object>, string>();

/**
 * A table's INSERT: the batch is one JSON array in a staging file, parsed by read_json on DuckDB's threads, so the
 * event loop only pays for serialising the rows (StagingBuffer; an appender would convert and commit every value on
 * the event loop). Prepared once per write lane, this is as fast
 * as unnesting the same JSON passed as a parameter (from_json) for one row and faster from about 50: 500 log rows
 * 3.4 against 4.5 ms, 200 error rows 6.3 against 10.8 ms. Replace tables keep the newest snapshot per key, like
 * ClickHouse's ReplacingMergeTree(updated_at). Column names and types come from the table definition, never from
 * data.
 */
function insertStatementOf<Row extends object>(table: TableDefinition<Row>): string {
  const cached = insertStatements.get(table as TableDefinition<object>);
  if (cached) return cached;
  const types = table.columns.map((column) => `"${column.name}": '${jsonColumns[column.type].type}'`);
  const values = table.columns.map((column) => jsonColumns[column.type].value(`"${column.name}"`)).join(', ');
  let conflict = '';
  if (table.mode === 'replace') {
    const updates = table.columns
      .filter((column) => column.name !== 'project_id' && column.name !== 'id')
      .map((column) => `"${column.name}" = excluded."${column.name}"`);
    conflict = ` ON CONFLICT (project_id, id) DO UPDATE SET ${updates.join(', ')} WHERE excluded.updated_at >= ${table.name}.updated_at`;
  }
  const statement = `INSERT INTO ${table.name} SELECT ${values} FROM read_json($file, format = 'array', columns = {${types.join(', ')}})${conflict}`;
  insertStatements.set(table as TableDefinition<object>, statement);
  return statement;
}

/**
 * WAL size at which DuckDB checkpoints. Each checkpoint rewrites the table's last, partly filled row group, so its
 * cost does not shrink with the rows it adds: at DuckDB's 16 MB (about 80,000 log rows) a growing logs table took
 * rows at about 110k/s, at 256 MB at about 190k/s (in-process, batches of 2,750). Replaying a full 256 MB WAL after a
 * crash takes about a second and a half.
 */
export const DEFAULT_CHECKPOINT_THRESHOLD = '256MB';

export interface DuckDBStoreOptions {
  /** Read connections in the pool; default 4. */
  maxReaders?: number;
  /** DuckDB's `checkpoint_threshold`, e.g. '256MB'. */
  checkpointThreshold?: string;
  /**
   * DuckDB's `memory_limit` in bytes: the buffer cache and the operators' memory together. Past it DuckDB evicts
   * cached blocks and spills to `tempDirectory`. Default DuckDB's own, 80% of the machine's memory.
   */
  memoryLimitBytes?: number;
  /** Where operators spill past the memory limit; default DuckDB's, `<file>.tmp`. */
  tempDirectory?: string;
  /** DuckDB's worker threads; default one per core. */
  threads?: number;
}

/** What DuckDB holds in memory now, and in its spill files (`duckdb_memory()`), in bytes. */
export interface StoreMemory {
  usedBytes: number;
  temporaryBytes: number;
  /** The configured limit; null when DuckDB's default applies. */
  limitBytes: number | null;
}

/** A table's inserts: their own connection, run one at a time, with the table's prepared INSERT. */
interface WriteLane {
  connection: DuckDBConnection | undefined;
  /** Settles when the lane's last write has. */
  tail: Promise<unknown>;
  /**
   * The table's INSERT, prepared once: running a statement from its text takes three trips through the thread pool
   * (extract, prepare, execute), and each trip back waits for the event loop, which is busy during ingest.
   */
  insert: DuckDBPreparedStatement | undefined;
  /** The text `insert` was prepared from. */
  insertSql: string | undefined;
}

/**
 * Embedded analytics store. Inserts into a table run one at a time on that table's connection (a write lane), so
 * inserts into different tables run at once: DuckDB commits appends to different tables without conflict, and the
 * issues processor writes error rows while the previous batch's issue snapshots are written. Every other statement
 * (deletes, DDL, checkpoints) runs alone on the writer connection, after the lanes' writes and before any later one.
 * Reads use a small pool of connections.
 */
export class DuckDBStore implements AnalyticsStore {
  readonly dialect = 'duckdb';
  private writeQueue: Promise<unknown> = Promise.resolve();
  private readonly lanes = new Map<string, WriteLane>();
  private readonly idle: DuckDBConnection[] = [];
  private readonly waiting: ((connection: DuckDBConnection) => void)[] = [];
  private readerCount = 0;
  private staged = 0;
  private readonly staging = new StagingBuffer();
  private closed = false;
  /** Per reader connection, its prepared statements by SQL text, least recently used first. */
  private readonly readerStatements = new Map<DuckDBConnection, Map<string, DuckDBPreparedStatement>>();

  private constructor(
    private readonly instance: DuckDBInstance,
    private readonly writer: DuckDBConnection,
    private readonly maxReaders: number,
    /** Holds the JSON of batches between their serialisation and their INSERT; emptied on open and close. */
    private readonly stagingDir: string,
    private readonly memoryLimitBytes: number | null,
  ) {}

  /** `file` is a database file, or ':memory:' for a throwaway store. */
  static async open(file: string, options: DuckDBStoreOptions = {}): Promise<DuckDBStore> {
    const settings: Record<string, string> = { checkpoint_threshold: options.checkpointThreshold ?? DEFAULT_CHECKPOINT_THRESHOLD };
    if (options.memoryLimitBytes !== undefined) settings['memory_limit'] = `${Math.max(1, Math.floor(options.memoryLimitBytes / 1024 ** 2))}MiB`;
    if (options.tempDirectory !== undefined) settings['temp_directory'] = options.tempDirectory;
    if (options.threads !== undefined) settings['threads'] = String(options.threads);
    let instance: DuckDBInstance;
    try {
      instance = await DuckDBInstance.create(file, settings);
    } catch (error) {
      throw new Error(`DuckDB refused to open ${file} with ${JSON.stringify(settings)}: ${(error as Error).message}`, { cause: error });
    }
    // Cleared only once the file's lock is ours: a process refused by the lock must not empty the staging directory
    // of the one holding it (its next insert would find no directory to stage in).
    try {
      const stagingDir = file === ':memory:' ? await mkdtemp(path.join(tmpdir(), 'tlm-duckdb-')) : `${file}.staging`;
      await rm(stagingDir, { recursive: true, force: true });
      await mkdir(stagingDir, { recursive: true });
      return new DuckDBStore(instance, await instance.connect(), options.maxReaders ?? 4, stagingDir, options.memoryLimitBytes ?? null);
    } catch (error) {
      instance.closeSync();
      throw error;
    }
  }

  async migrate(tables: readonly TableDefinition<object>[]): Promise<void> {
    for (const table of tables) for (const statement of table.ddl.duckdb) await this.execute(statement);
  }

  async insert<Row extends object>(table: TableDefinition<Row>, rows: readonly Row[]): Promise<void> {
    if (rows.length === 0) return;
    this.assertOpen();
    const batch = table.mode === 'replace' ? newestPerKey(rows) : rows;
    const statement = insertStatementOf(table);
    const file = path.join(this.stagingDir, `${table.name}-${(this.staged += 1)}.json`);
    try {
      // Written synchronously: a megabyte goes to the page cache in about a millisecond, while the promise API writes
      // it in 512 KiB chunks, each waiting for a turn of a busy event loop (20 to 35 ms per batch of 800 errors).
      this.staging.write(file, batch);
      await this.inLane(table.name, async (lane, connection) => {
        let insert = lane.insert;
        if (!insert || lane.insertSql !== statement) {
          insert?.destroySync();
          lane.insert = undefined;
          insert = await connection.prepare(statement);
          lane.insert = insert;
          lane.insertSql = statement;
        }
        insert.bind({ file });
        await insert.run();
      });
    } finally {
      // Removed at once, synchronously: an asynchronous removal would hold the insert's answer for more turns of the
      // event loop, and no batch outlives its insert on disk (an erasure leaves no copy behind). A file is made per
      // insert rather than kept and written over: a kept file has to be emptied or cut to each batch, and that made
      // errors sent one per envelope (small, frequent inserts) a third slower here, likely ext4 writing the cut pages
      // out first.
      rmSync(file, { force: true });
    }
  }

  async query(sql: string, params: QueryParams = {}): Promise<ResultRow[]> {
    const connection = await this.acquire();
    try {
      const statement = await this.preparedOn(connection, sql);
      statement.bind(params, parameterTypes(params));
      // run() answers a materialized result: its chunks are read synchronously, without a thread-pool hop per chunk
      // that runAndReadAll's fetching would take (two for a one-chunk answer).
      return rowsOf(await statement.run());
    } finally {
      this.release(connection);
    }
  }

  async execute(sql: string, params: QueryParams = {}): Promise<void> {
    this.assertOpen();
    return this.serialized(async () => {
      await this.writer.run(sql, params, parameterTypes(params));
    });
  }

  async ping(): Promise<void> {
    await this.query('SELECT 1');
  }

  /** DuckDB's memory by its own account, summed over its tags (buffer cache, hash tables, …), for `/metrics`. */
  async memory(): Promise<StoreMemory> {
    const [row] = await this.query('SELECT sum(memory_usage_bytes) AS used, sum(temporary_storage_bytes) AS temporary FROM duckdb_memory()');
    return { usedBytes: Number(row?.['used'] ?? 0), temporaryBytes: Number(row?.['temporary'] ?? 0), limitBytes: this.memoryLimitBytes };
  }

  /** Finishes the writes begun before it; writes begun after it are refused. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.serialized(async () => {
      await this.writer.run('CHECKPOINT');
    });
    for (const lane of this.lanes.values()) {
      lane.insert?.destroySync();
      lane.connection?.closeSync();
    }
    for (const statements of this.readerStatements.values()) for (const statement of statements.values()) statement.destroySync();
    for (const connection of this.idle) connection.closeSync();
    this.writer.closeSync();
    this.instance.closeSync();
    await rm(this.stagingDir, { recursive: true, force: true });
  }

  /**
   * The connection's statement for `sql`, prepared on first use. DuckDB re-binds a prepared statement itself when
   * the catalog changed since, so a migration never leaves a stale plan behind.
   */
  private async preparedOn(connection: DuckDBConnection, sql: string): Promise<DuckDBPreparedStatement> {
    let statements = this.readerStatements.get(connection);
    if (!statements) this.readerStatements.set(connection, (statements = new Map()));
    const held = statements.get(sql);
    if (held) {
      statements.delete(sql);
      statements.set(sql, held);
      return held;
    }
    const statement = await connection.prepare(sql);
    statements.set(sql, statement);
    if (statements.size > PREPARED_PER_READER) {
      const [oldestSql, oldest] = statements.entries().next().value as [string, DuckDBPreparedStatement];
      statements.delete(oldestSql);
      oldest.destroySync();
    }
    return statement;
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('the analytics store is closed');
  }

  /** Runs `work` alone: after every write begun before it, and before any begun after it. */
  private serialized<T>(work: () => Promise<T>): Promise<T> {
    const before = Promise.all([this.writeQueue, ...[...this.lanes.values()].map((lane) => lane.tail)]);
    const next = before.then(work, work);
    const settled = next.catch(() => undefined);
    this.writeQueue = settled;
    for (const lane of this.lanes.values()) lane.tail = settled;
    return next;
  }

  /** Runs `work` after the table's earlier inserts and after any statement that `serialized` began before it. */
  private inLane<T>(table: string, work: (lane: WriteLane, connection: DuckDBConnection) => Promise<T>): Promise<T> {
    let lane = this.lanes.get(table);
    if (!lane) {
      lane = { connection: undefined, tail: this.writeQueue, insert: undefined, insertSql: undefined };
      this.lanes.set(table, lane);
    }
    const held = lane;
    const run = async () => work(held, (held.connection ??= await this.instance.connect()));
    const next = held.tail.then(run, run);
    held.tail = next.catch(() => undefined);
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

/** Staging buffers above this size are let go after use, so one large batch does not hold its memory for good. */
const MAX_KEPT_STAGING_BYTES = 32 * 1024 * 1024;
const INITIAL_STAGING_BYTES = 1024 * 1024;
/** Text one JSON.stringify call aims to make: well below the size V8 gives pages of their own (128 KiB). */
const STAGING_RUN_CHARS = 32 * 1024;
const MAX_ROWS_PER_RUN = 64;
const COMMA = 0x2c;

/**
 * A batch as the UTF-8 text of one JSON array, built a few rows at a time into memory kept from one batch to the
 * next. One JSON.stringify of the whole batch builds its text in parts, and encoding it first copies those into a
 * fresh string as large as the batch; a JSON.stringify per row starts each row's text small and grows it part by part
 * (a 1 KB error row: about 3.5 KB allocated, 5 to 7 µs here). Runs of rows sized to about STAGING_RUN_CHARS of text
 * take a third less time per row (error rows 5.3 → 3.6 µs, log rows 2.1 → 1.4 µs), and their text lands in pages
 * already touched.
 */
class StagingBuffer {
  private bytes = Buffer.allocUnsafe(INITIAL_STAGING_BYTES);

  /** Writes `rows` to a new `file` as one JSON array. */
  write(file: string, rows: readonly object[]): void {
    const length = this.stage(rows);
    const fd = openSync(file, 'w');
    try {
      // A write may take fewer bytes than asked (a disk nearly full); the rest follows, or the error is thrown.
      for (let written = 0; written < length; ) written += writeSync(fd, this.bytes, written, length - written, written);
    } finally {
      closeSync(fd);
      if (this.bytes.length > MAX_KEPT_STAGING_BYTES) this.bytes = Buffer.allocUnsafe(INITIAL_STAGING_BYTES);
    }
  }

  /** Writes `rows` as a JSON array at the start of `bytes`; answers its length in bytes. */
  private stage(rows: readonly object[]): number {
    if (rows.length === 0) return this.bytes.write('[]', 0, 'latin1');
    let length = 0;
    let perRun = 1;
    for (let start = 0; start < rows.length; ) {
      const run = rows.slice(start, start + perRun);
      const text = JSON.stringify(run);
      // Each run's own array goes over the closing bracket of the text so far, whose place takes a comma instead.
      const at = start === 0 ? 0 : length - 1;
      // Room for the worst case: three bytes per UTF-16 unit.
      this.ensure(at + text.length * 3);
      length = at + this.bytes.write(text, at, 'utf8');
      if (start > 0) this.bytes[at] = COMMA;
      start += run.length;
      // The next run sized by the width of this one's rows.
      perRun = Math.max(1, Math.min(MAX_ROWS_PER_RUN, Math.floor((STAGING_RUN_CHARS * run.length) / text.length)));
    }
    return length;
  }

  private ensure(size: number): void {
    if (size <= this.bytes.length) return;
    const larger = Buffer.allocUnsafe(Math.max(size, this.bytes.length * 2));
    this.bytes.copy(larger);
    this.bytes = larger;
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

/** Every row of a materialized result as JS values, in the column names' order. */
function rowsOf(result: DuckDBMaterializedResult): ResultRow[] {
  const names = result.deduplicatedColumnNames();
  const rows: ResultRow[] = [];
  for (let index = 0; index < result.chunkCount; index++) {
    const chunk = result.getChunk(index);
    for (let row = 0; row < chunk.rowCount; row++) {
      const values: Record<string, unknown> = {};
      chunk.visitRowValues(row, (value, _row, column, type) => {
        values[names[column]!] = JSDuckDBValueConverter(value, type, JSDuckDBValueConverter);
      });
      rows.push(normalizeRow(values));
    }
  }
  return rows;
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
