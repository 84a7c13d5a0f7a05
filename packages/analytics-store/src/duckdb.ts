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
import { shared } from '@tlm/core';
import { ReadPriority } from './readPriority';
import { ALL_TRIGRAMS } from './textSignature';
import { assertPromotable, jsonPointer, promotionName, promotionOf, readyColumns, type AnalyticsStore, type ColumnType, type PromotedColumns, type PromotedProperty, type QueryParams, type RecordFields, type ResultRow, type TableDefinition } from './store';

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
  text_signature: { type: 'UBIGINT', value: (field) => `coalesce(${field}, ${ALL_TRIGRAMS}::UBIGINT)` },
};

/** Prepared read statements kept per reader connection; GQL plans repeat, and binding skips parsing and planning. */
const PREPARED_PER_READER = 64;

/**
 * A table's INSERT: the batch is one JSON array in a staging file, parsed by read_json on DuckDB's threads, so the
 * event loop only pays for serialising the rows (StagingBuffer; an appender would convert and commit every value on
 * the event loop). Prepared once per write lane, this is as fast
 * as unnesting the same JSON passed as a parameter (from_json) for one row and faster from about 50: 500 log rows
 * 3.4 against 4.5 ms, 200 error rows 6.3 against 10.8 ms. Replace tables keep the newest snapshot per key, like
 * ClickHouse's ReplacingMergeTree(updated_at). Column names and types come from the table definition, never from
 * data. The columns are named, so a table with promoted properties takes the same statement; each promoted column
 * gets its value here, on DuckDB's threads, by the very expression a query would read the bag with.
 */
function insertStatementOf<Row extends object>(table: TableDefinition<Row>, promoted: readonly PromotedProperty[], fields?: RecordFields): string {
  // With `fields`, the rows are read from the records' JSON ($file, as r) beside the computed columns ($computed, as
  // c), row for row (POSITIONAL JOIN); without, from the rows' JSON.
  const source = (column: string) => (fields ? (fields[column] !== undefined ? `r."${fields[column]}"` : `c."${column}"`) : `"${column}"`);
  const types = { file: [] as string[], computed: [] as string[] };
  for (const column of table.columns) {
    const field = fields?.[column.name];
    (fields && field === undefined ? types.computed : types.file).push(`"${field ?? column.name}": '${jsonColumns[column.type].type}'`);
  }
  // Each computed row repeats its record's id: a computed row beside another record, or beside none, fails the
  // statement, so nothing of the batch is stored.
  if (fields) types.computed.push(`"id": 'VARCHAR'`);
  const names = table.columns.map((column) => `"${column.name}"`);
  const values = table.columns.map((column) =>
    fields && column.name === 'id'
      ? `CASE WHEN c."id" IS NOT DISTINCT FROM ${source('id')} THEN ${source('id')} ELSE error('a computed row is not beside its record') END`
      : jsonColumns[column.type].value(source(column.name)),
  );
  for (const promotion of promoted) {
    const read = promotedRead(source(promotion.bag), sqlString(jsonPointer(promotion.key)));
    names.push(`"${promotion.column}"`);
    values.push(read.text);
    if (promotion.numberColumn) {
      names.push(`"${promotion.numberColumn}"`);
      values.push(read.number);
    }
  }
  let conflict = '';
  if (table.mode === 'replace') {
    const updates = table.columns
      .filter((column) => column.name !== 'project_id' && column.name !== 'id')
      .map((column) => `"${column.name}" = excluded."${column.name}"`);
    conflict = ` ON CONFLICT (project_id, id) DO UPDATE SET ${updates.join(', ')} WHERE excluded.updated_at >= ${table.name}.updated_at`;
  }
  let from = `read_json($file, format = 'array', columns = {${types.file.join(', ')}})`;
  if (fields) from += ` AS r POSITIONAL JOIN read_json($computed, format = 'array', columns = {${types.computed.join(', ')}}) AS c`;
  return `INSERT INTO ${table.name} (${names.join(', ')}) SELECT ${values.join(', ')} FROM ${from}${conflict}`;
}

/**
 * How DuckDB reads a bag's key as text and as a number, `pointer` being the key's JSON pointer as SQL (a literal or a
 * parameter): GQL's emitter reads bags with these, and a promoted key's columns get their values by them.
 */
export const promotedRead = (bag: string, pointer: string) => ({
  text: `json_extract_string(${bag}, ${pointer})`,
  number: `TRY_CAST(json_extract_string(${bag}, ${pointer}) AS DOUBLE)`,
});

/** A SQL string literal; for text that cannot be bound as a parameter (a prepared INSERT's fixed expressions). */
const sqlString = (text: string): string => `'${text.replace(/'/g, "''")}'`;

/** The promotions of this database, kept in the file itself so they travel with the data they describe. */
const PROMOTIONS_DDL = `CREATE TABLE IF NOT EXISTS promoted_properties (
  table_name VARCHAR NOT NULL,
  bag VARCHAR NOT NULL,
  key VARCHAR NOT NULL,
  column_name VARCHAR NOT NULL,
  number_column VARCHAR,
  ready BOOLEAN NOT NULL,
  PRIMARY KEY (table_name, bag, key)
)`;

/**
 * Rows a promoted column is filled for per statement. Each fill runs alone among the writes (like a purge), so it
 * holds ingest for its duration: a row group's worth keeps that short.
 */
const FILL_ROWS_PER_STATEMENT = 122_880;

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
  /**
   * How long an insert about to start waits while reads run (ReadPriority); DEFAULT_INSERT_YIELD_MS by default, 0
   * for none.
   */
  insertYieldMs?: number;
}

/**
 * An insert waits at most this long for running reads: the longest a row's visibility is put off for queries, against
 * 0.2 to 2.5 s that grouped queries over an hour of logs take under a steady ingest of 15,000 logs a second.
 */
export const DEFAULT_INSERT_YIELD_MS = 1_000;

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
   * The table's INSERTs, from rows and from records, each prepared once: running a statement from its text takes
   * three trips through the thread pool (extract, prepare, execute), and each trip back waits for the event loop,
   * which is busy during ingest. Kept with the text each was prepared from.
   */
  inserts: Map<InsertSource, { sql: string; statement: DuckDBPreparedStatement }>;
}

/** Where an insert's rows come from: their own JSON, or their records' (AnalyticsStore.insertRecords). */
type InsertSource = 'rows' | 'records';

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
  /** Each table's promoted properties, ready or being filled, in the order they were promoted. */
  private readonly promotions = new Map<string, PromotedProperty[]>();
  /** Each table's ready promoted columns by `promotedKey`, as queries see them. */
  private readonly readyColumns = new Map<string, ReadonlyMap<string, PromotedColumns>>();
  /** Each table's INSERTs, from rows and from records, for its current promotions. */
  private readonly insertStatements = new Map<string, Map<InsertSource, string>>();
  /** Promotions being filled, so a second request for one waits for the same fill. */
  private readonly filling = new Map<string, Promise<PromotedProperty>>();

  private constructor(
    private readonly instance: DuckDBInstance,
    private readonly writer: DuckDBConnection,
    private readonly maxReaders: number,
    /** Holds the JSON of batches between their serialisation and their INSERT; emptied on open and close. */
    private readonly stagingDir: string,
    private readonly memoryLimitBytes: number | null,
    private readonly reads: ReadPriority,
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
      const reads = new ReadPriority(options.insertYieldMs ?? DEFAULT_INSERT_YIELD_MS);
      const store = new DuckDBStore(instance, await instance.connect(), options.maxReaders ?? 4, stagingDir, options.memoryLimitBytes ?? null, reads);
      await store.loadPromotions();
      return store;
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
    const file = this.stagingFile(table.name);
    try {
      // Written with synchronous writes, a slice at a time: a megabyte goes to the page cache in about a millisecond,
      // while the promise API writes it in 512 KiB chunks, each waiting for a turn of a busy event loop (20 to 35 ms
      // per batch of 800 errors).
      await this.insertStaged(table as TableDefinition<object>, undefined, this.staging.write(file, batch), { file });
    } finally {
      // Removed at once, synchronously: an asynchronous removal would hold the insert's answer for more turns of the
      // event loop, and no batch outlives its insert on disk (an erasure leaves no copy behind). A file is made per
      // insert rather than kept and written over: a kept file has to be emptied or cut to each batch, and that made
      // errors sent one per envelope (small, frequent inserts) a third slower here, likely ext4 writing the cut pages
      // out first.
      rmSync(file, { force: true });
    }
  }

  async insertRecords<Row extends object>(table: TableDefinition<Row>, fields: RecordFields, encoded: readonly Buffer[], computed: readonly object[]): Promise<void> {
    if (computed.length === 0) return;
    this.assertOpen();
    if (table.mode !== 'append') throw new Error(`only append tables are written from records, not ${table.name}`);
    const file = this.stagingFile(table.name);
    const computedFile = this.stagingFile(table.name);
    try {
      // The records' bytes as they are, a megabyte in about a millisecond; only the few computed columns are staged.
      writeJsonArrays(file, encoded);
      await this.insertStaged(table as TableDefinition<object>, fields, this.staging.write(computedFile, computed), { file, computed: computedFile });
    } finally {
      rmSync(file, { force: true });
      rmSync(computedFile, { force: true });
    }
  }

  /** A new staging file's path for a batch of `table`. */
  private stagingFile(table: string): string {
    return path.join(this.stagingDir, `${table}-${(this.staged += 1)}.json`);
  }

  /**
   * Runs the table's INSERT on the staged files in its write lane. The lane is joined at once, so inserts into a
   * table run in the order they were asked for even when a large batch takes several turns to stage; the staging
   * overlaps the lane's previous insert.
   */
  private async insertStaged(table: TableDefinition<object>, fields: RecordFields | undefined, staged: Promise<void>, files: QueryParams): Promise<void> {
    staged.catch(() => undefined);
    await this.inLane(table.name, async (lane, connection) => {
      await staged;
      await this.reads.readsSettled();
      // Read when the insert runs, not when it was asked for: a promotion that ran in between is in the statement,
      // so no row written after a promotion lacks its column (the fill covers only the rows stored before).
      const source: InsertSource = fields ? 'records' : 'rows';
      const sql = this.insertStatement(table, fields);
      let insert = lane.inserts.get(source);
      if (insert?.sql !== sql) {
        insert?.statement.destroySync();
        lane.inserts.delete(source);
        insert = { sql, statement: await connection.prepare(sql) };
        lane.inserts.set(source, insert);
      }
      insert.statement.bind(files);
      await insert.statement.run();
    });
  }

  /** A read counts for ReadPriority from the call, while it waits for a connection too. */
  query(sql: string, params: QueryParams = {}): Promise<ResultRow[]> {
    return this.reads.read(async () => {
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
    });
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

  promotedColumns(table: string): ReadonlyMap<string, PromotedColumns> {
    return this.readyColumns.get(table) ?? NO_COLUMNS;
  }

  async promote<Row extends object>(definition: TableDefinition<Row>, bag: string, key: string, numeric: boolean): Promise<PromotedProperty> {
    this.assertOpen();
    const table = definition as unknown as TableDefinition<object>;
    assertPromotable(table, bag);
    const held = this.promotions.get(table.name)?.find((promotion) => promotion.bag === bag && promotion.key === key);
    if (held?.ready) return held;
    return shared(this.filling, promotionName(table.name, bag, key), async () => this.fill(held ?? (await this.addPromotion(table, bag, key, numeric))));
  }

  /** Adds the column and starts writing it: inserts that run after this hold the key's value in it. */
  private addPromotion(table: TableDefinition<object>, bag: string, key: string, numeric: boolean): Promise<PromotedProperty> {
    return this.serialized(async () => {
      const promotions = this.promotions.get(table.name) ?? [];
      const column = `${bag}__p${promotions.length + 1}`;
      const promotion: PromotedProperty = { table: table.name, bag, key, column, numberColumn: numeric ? `${column}_number` : null, ready: false };
      // One transaction: a column never exists without the record of which key it holds.
      await this.writer.run('BEGIN TRANSACTION');
      try {
        await this.writer.run(`ALTER TABLE ${table.name} ADD COLUMN IF NOT EXISTS "${promotion.column}" VARCHAR`);
        if (promotion.numberColumn) await this.writer.run(`ALTER TABLE ${table.name} ADD COLUMN IF NOT EXISTS "${promotion.numberColumn}" DOUBLE`);
        await this.writer.run('INSERT INTO promoted_properties VALUES ($table, $bag, $key, $column, $number, false)', {
          table: table.name,
          bag,
          key,
          column: promotion.column,
          number: promotion.numberColumn,
        });
        await this.writer.run('COMMIT');
      } catch (error) {
        await this.writer.run('ROLLBACK');
        throw error;
      }
      this.promotions.set(table.name, [...promotions, promotion]);
      this.insertStatements.delete(table.name);
      return promotion;
    });
  }

  /**
   * Fills a promoted column for the rows stored before it was added, a row group at a time between other writes,
   * then lets queries read it. Rows a checkpoint moved while the fill ran are found and filled at the end.
   */
  private async fill(promotion: PromotedProperty): Promise<PromotedProperty> {
    const { table, column, numberColumn } = promotion;
    const params = { pointer: jsonPointer(promotion.key) };
    const read = promotedRead(`"${promotion.bag}"`, '$pointer');
    const assignments = `"${column}" = ${read.text}${numberColumn ? `, "${numberColumn}" = ${read.number}` : ''}`;
    const [bounds] = await this.query(`SELECT max(rowid) AS last FROM ${table}`);
    const last = Number(bounds?.['last'] ?? -1);
    for (let from = 0; from <= last; from += FILL_ROWS_PER_STATEMENT) {
      this.assertOpen();
      await this.execute(`UPDATE ${table} SET ${assignments} WHERE rowid >= $from AND rowid < $to AND "${column}" IS NULL`, {
        ...params,
        from,
        to: from + FILL_ROWS_PER_STATEMENT,
      });
    }
    const unfilled = `"${column}" IS NULL AND ${read.text} IS NOT NULL`;
    const [missed] = await this.query(`SELECT count(*) AS n FROM ${table} WHERE ${unfilled}`, params);
    if (Number(missed?.['n'] ?? 0) > 0) await this.execute(`UPDATE ${table} SET ${assignments} WHERE ${unfilled}`, params);
    // Until a checkpoint, updated values live beside the column's blocks and every scan merges them in, which made
    // reading a filled column two to three times slower than reading one written by inserts. DuckDB refuses one
    // while another connection has a write open (under ingest, often): the automatic checkpoint then comes later.
    await this.execute('CHECKPOINT').catch(() => undefined);
    await this.execute('UPDATE promoted_properties SET ready = true WHERE table_name = $table AND bag = $bag AND key = $key', {
      table,
      bag: promotion.bag,
      key: promotion.key,
    });
    promotion.ready = true;
    this.publishReady(table);
    return promotion;
  }

  private async loadPromotions(): Promise<void> {
    await this.writer.run(PROMOTIONS_DDL);
    const rows = rowsOf(await this.writer.run('SELECT table_name, bag, key, column_name, number_column, ready FROM promoted_properties ORDER BY rowid'));
    for (const row of rows) {
      const promotion = promotionOf(row);
      this.promotions.set(promotion.table, [...(this.promotions.get(promotion.table) ?? []), promotion]);
    }
    for (const table of this.promotions.keys()) this.publishReady(table);
  }

  private publishReady(table: string): void {
    this.readyColumns.set(table, readyColumns(this.promotions.get(table) ?? []));
  }

  /** The table's INSERT from rows, or with `fields` from records; a table's fields are always the same. */
  private insertStatement(table: TableDefinition<object>, fields: RecordFields | undefined): string {
    const source: InsertSource = fields ? 'records' : 'rows';
    let statements = this.insertStatements.get(table.name);
    if (!statements) this.insertStatements.set(table.name, (statements = new Map()));
    let statement = statements.get(source);
    if (!statement) {
      statement = insertStatementOf(table, this.promotions.get(table.name) ?? [], fields);
      statements.set(source, statement);
    }
    return statement;
  }

  /** Finishes the writes begun before it; writes begun after it are refused. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.serialized(async () => {
      await this.writer.run('CHECKPOINT');
    });
    for (const lane of this.lanes.values()) {
      for (const insert of lane.inserts.values()) insert.statement.destroySync();
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
      lane = { connection: undefined, tail: this.writeQueue, inserts: new Map() };
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

const NO_COLUMNS: ReadonlyMap<string, PromotedColumns> = new Map();

/** Staging buffers above this size are let go after use, so one large batch does not hold its memory for good. */
const MAX_KEPT_STAGING_BYTES = 32 * 1024 * 1024;
const INITIAL_STAGING_BYTES = 1024 * 1024;
/** Text one JSON.stringify call aims to make: well below the size V8 gives pages of their own (128 KiB). */
const STAGING_RUN_CHARS = 32 * 1024;
const MAX_ROWS_PER_RUN = 64;
/**
 * Text staged and written before the event loop gets a turn: about 3 to 5 ms of JSON.stringify for log rows. A
 * batch of 20,000 rows (the bus's largest, after a checkpoint held the writer) took 60 to 130 ms of the main thread
 * at once on a busy machine, and every ingest request arriving meanwhile waited for it.
 */
const STAGING_SLICE_BYTES = 1024 * 1024;
const COMMA = 0x2c;

/**
 * A batch as the UTF-8 text of one JSON array, built a few rows at a time into memory kept from one batch to the
 * next. One JSON.stringify of the whole batch builds its text in parts, and encoding it first copies those into a
 * fresh string as large as the batch; a JSON.stringify per row starts each row's text small and grows it part by part
 * (a 1 KB error row: about 3.5 KB allocated, 5 to 7 µs here). Runs of rows sized to about STAGING_RUN_CHARS of text
 * take a third less time per row (error rows 5.3 → 3.6 µs, log rows 2.1 → 1.4 µs), and their text lands in pages
 * already touched. A large batch is staged a slice at a time, each slice written to the file before the event loop
 * gets a turn, so the memory is free whenever another insert may use it.
 */
class StagingBuffer {
  private bytes = Buffer.allocUnsafe(INITIAL_STAGING_BYTES);

  /** Writes `rows` to a new `file` as one JSON array. */
  async write(file: string, rows: readonly object[]): Promise<void> {
    const fd = openSync(file, 'w');
    try {
      let position = 0;
      let start = 0;
      do {
        const slice = this.stage(rows, start);
        const last = slice.end >= rows.length;
        // Each slice is an array of its own: a later one's opening bracket becomes the comma after the one before,
        // and only the last keeps its closing bracket.
        if (start > 0) this.bytes[0] = COMMA;
        const length = last ? slice.length : slice.length - 1;
        writeFully(fd, this.bytes, 0, length, position);
        position += length;
        start = slice.end;
        if (!last) await new Promise((resolve) => setImmediate(resolve));
      } while (start < rows.length);
    } finally {
      closeSync(fd);
      if (this.bytes.length > MAX_KEPT_STAGING_BYTES) this.bytes = Buffer.allocUnsafe(INITIAL_STAGING_BYTES);
    }
  }

  /**
   * Writes rows from `start` on as a JSON array at the start of `bytes`, stopping after the run that passes
   * STAGING_SLICE_BYTES; answers its length in bytes and the index after its last row.
   */
  private stage(rows: readonly object[], start: number): { length: number; end: number } {
    if (rows.length === 0) return { length: this.bytes.write('[]', 0, 'latin1'), end: 0 };
    let length = 0;
    let perRun = 1;
    let end = start;
    while (end < rows.length && length < STAGING_SLICE_BYTES) {
      const run = rows.slice(end, end + perRun);
      const text = JSON.stringify(run);
      // Each run's own array goes over the closing bracket of the text so far, whose place takes a comma instead.
      const at = end === start ? 0 : length - 1;
      // Room for the worst case: three bytes per UTF-16 unit.
      this.ensure(at + text.length * 3);
      length = at + this.bytes.write(text, at, 'utf8');
      if (end > start) this.bytes[at] = COMMA;
      end += run.length;
      // The next run sized by the width of this one's rows.
      perRun = Math.max(1, Math.min(MAX_ROWS_PER_RUN, Math.floor((STAGING_RUN_CHARS * run.length) / text.length)));
    }
    return { length, end };
  }

  private ensure(size: number): void {
    if (size <= this.bytes.length) return;
    const larger = Buffer.allocUnsafe(Math.max(size, this.bytes.length * 2));
    this.bytes.copy(larger);
    this.bytes = larger;
  }
}

/** Writes `bytes[from, to)` at `position`; a write may take fewer bytes than asked (a disk nearly full), the rest follows or the error is thrown. */
function writeFully(fd: number, bytes: Buffer, from: number, to: number, position: number): void {
  for (let at = from; at < to; ) at += writeSync(fd, bytes, at, to - at, position + at - from);
}

const COMMA_BYTES = Buffer.from(',');
const EMPTY_ARRAY = Buffer.from('[]');

/** Writes JSON arrays to a new `file` as one: each array's closing bracket and the next one's opening become a comma. */
function writeJsonArrays(file: string, given: readonly Buffer[]): void {
  // `[]` holds nothing to join, and would leave a comma with nothing after it.
  const arrays = given.filter((array) => array.length > 2);
  const fd = openSync(file, 'w');
  try {
    let position = 0;
    if (arrays.length === 0) writeFully(fd, EMPTY_ARRAY, 0, EMPTY_ARRAY.length, 0);
    arrays.forEach((array, index) => {
      if (index > 0) {
        writeFully(fd, COMMA_BYTES, 0, 1, position);
        position += 1;
      }
      const from = index === 0 ? 0 : 1;
      const to = index === arrays.length - 1 ? array.length : array.length - 1;
      writeFully(fd, array, from, to, position);
      position += to - from;
    });
  } finally {
    closeSync(fd);
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
