import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ANALYTICS_TABLES, DuckDBStore, type TableDefinition } from '@tlm/analytics-store';
import { clientProperties, type IngestContext, type ItemResult } from '@tlm/signals';
import { removeDir } from './server';

const CEILING_BATCH = 5_000;

/**
 * The same rows the server would store, built before the clock starts and written straight into a DuckDB file
 * by the adapter's appender in large batches: the most the store can take, with no HTTP, validation or bus.
 */
export async function appenderCeiling<R, Row extends object>(options: {
  total: number;
  makeItem: (i: number) => unknown;
  toRecord: (item: unknown, context: IngestContext) => ItemResult<R>;
  toRow: (record: R) => Row;
  table: TableDefinition<Row>;
}): Promise<{ rows: number; seconds: number; rowsPerSecond: number }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'tlm-ceiling-'));
  const store = await DuckDBStore.open(path.join(dir, 'ceiling.duckdb'));
  try {
    await store.migrate(ANALYTICS_TABLES);
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
      rows.push(options.toRow(record.value));
    }
    const started = performance.now();
    for (let start = 0; start < rows.length; start += CEILING_BATCH) {
      await store.insert(options.table, rows.slice(start, start + CEILING_BATCH));
    }
    const seconds = (performance.now() - started) / 1000;
    return { rows: rows.length, seconds, rowsPerSecond: rows.length / seconds };
  } finally {
    await store.close();
    removeDir(dir);
  }
}
