import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DuckDBInstance, DuckDBTimestampValue, type DuckDBAppender } from '@duckdb/node-api';
import { ANALYTICS_TABLES, type ColumnType, type TableDefinition } from '@tlm/analytics-store';
import { clientProperties, type IngestContext, type ItemResult } from '@tlm/signals';
import { removeDir } from './server';

const CEILING_BATCH = 5_000;

/** Appends one value of a column type with the DuckDB appender's typed calls. */
const appenders: Partial<Record<ColumnType, (appender: DuckDBAppender, value: unknown) => void>> = {
  string: (appender, value) => appender.appendVarchar(value as string),
  nullable_string: (appender, value) => (value == null ? appender.appendNull() : appender.appendVarchar(value as string)),
  timestamp: (appender, value) => appender.appendTimestamp(new DuckDBTimestampValue(BigInt(value as number) * 1000n)),
  uint16: (appender, value) => appender.appendUSmallInt(value as number),
  uint64: (appender, value) => appender.appendUBigInt(BigInt(value as number)),
  properties: (appender, value) => appender.appendVarchar(JSON.stringify(value)),
  text_signature: (appender, value) => appender.appendUBigInt(BigInt(value as number)),
};

/**
 * The same rows the server would store, built before the clock starts and written straight into a DuckDB file by
 * the DuckDB appender in large batches: the most the store takes, with no HTTP, validation, bus or JSON.
 */
export async function appenderCeiling<R, Row extends object>(options: {
  total: number;
  makeItem: (i: number) => unknown;
  toRecord: (item: unknown, context: IngestContext) => ItemResult<R>;
  /** The row of the `index`th record, numbered in its stream as the ingest writer numbers it. */
  toRow: (record: R, index: number) => Row;
  table: TableDefinition<Row>;
}): Promise<{ rows: number; seconds: number; rowsPerSecond: number }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'tlm-ceiling-'));
  const instance = await DuckDBInstance.create(path.join(dir, 'ceiling.duckdb'));
  const connection = await instance.connect();
  try {
    for (const table of ANALYTICS_TABLES) for (const statement of table.ddl.duckdb) await connection.run(statement);
    const context: IngestContext = {
      projectId: '01900000-0000-7000-8000-000000000000',
      retentionDays: 365,
      receivedAt: Date.now(),
      client: clientProperties(
        'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
        '127.0.0.1',
      ),
    };
    const rows: Row[] = [];
    for (let i = 0; i < options.total; i++) {
      const record = options.toRecord(options.makeItem(i), context);
      if (!record.ok) throw new Error(record.reason);
      rows.push(options.toRow(record.value, i));
    }
    const columns = options.table.columns.map((column) => ({ name: column.name, append: appenders[column.type]! }));
    // Automatic checkpoints would land inside or outside the timed window by chance (85k to 130k rows/s for the same
    // work); instead none run during the loop and one explicit CHECKPOINT is timed, so the rows reach the file.
    await connection.run("SET checkpoint_threshold = '10GB'");
    const started = performance.now();
    for (let start = 0; start < rows.length; start += CEILING_BATCH) {
      const appender = await connection.createAppender(options.table.name);
      for (const row of rows.slice(start, start + CEILING_BATCH)) {
        for (const column of columns) column.append(appender, row[column.name]);
        appender.endRow();
      }
      appender.closeSync();
    }
    await connection.run('CHECKPOINT');
    const seconds = (performance.now() - started) / 1000;
    return { rows: rows.length, seconds, rowsPerSecond: rows.length / seconds };
  } finally {
    connection.closeSync();
    instance.closeSync();
    removeDir(dir);
  }
}
