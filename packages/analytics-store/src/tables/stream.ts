import type { Properties } from '@tlm/signals';
import type { AnalyticsStore, Dialect } from '../store';

/** A row's place in the stream its writer counts: a bus partition and the offset there. */
export interface StreamPosition {
  partition: number;
  offset: number;
}

/** Tables whose rows the ingest writer counts into the schema registry and usage by stream position. */
export type CountedTable = 'logs' | 'events';

/**
 * The rows of a partition after an offset, in offset order, with what counting them needs. Only the embedded bus's
 * own numbering is ever read back (standalone, on DuckDB): Kafka delivers again whatever was not counted.
 */
export function uncountedRowsSql(dialect: Dialect, table: CountedTable, extraColumns: string): string {
  readBackOnlyFromDuckDB(dialect, table);
  return `SELECT project_id, epoch_ms(received_at) AS received_at_ms, properties${extraColumns}, stream_offset
FROM ${table}
WHERE stream_partition = $partition AND stream_offset > $after
ORDER BY stream_offset
LIMIT $limit`;
}

/** DuckDB keeps property bags as JSON text. */
export function decodedProperties(value: unknown): Properties {
  if (typeof value === 'string') return value === '' ? {} : (JSON.parse(value) as Properties);
  return (value ?? {}) as Properties;
}

/** The highest offset stored in a partition of a counted table's stream; -1 when it holds none. */
export async function lastStreamOffset(store: AnalyticsStore, table: CountedTable, partition: number): Promise<number> {
  readBackOnlyFromDuckDB(store.dialect, table);
  const [row] = await store.query(`SELECT max(stream_offset) AS last, count(stream_offset) AS stored FROM ${table} WHERE stream_partition = $partition`, {
    partition,
  });
  return row && Number(row['stored']) > 0 ? Number(row['last']) : -1;
}

function readBackOnlyFromDuckDB(dialect: Dialect, table: CountedTable): void {
  if (dialect !== 'duckdb') throw new Error(`the ${table} stream is read back only from DuckDB, where the embedded bus numbers it`);
}

/** Append tables whose rows a writer may be handed again (the embedded bus's journal, on start). */
export type AppendedTable = 'logs' | 'events' | 'spans' | 'vitals' | 'errors';

/**
 * The ids among `ids` that `table` holds already, so a batch delivered again stores only what it did not store before.
 * ClickHouse collapses a row written twice into one (ReplacingMergeTree on the id), so there nothing needs skipping.
 */
export async function storedIds(store: AnalyticsStore, table: AppendedTable, ids: readonly string[]): Promise<Set<string>> {
  if (store.dialect !== 'duckdb' || ids.length === 0) return new Set();
  // Ids are UUIDs, so a comma joins them unambiguously into one bound parameter.
  const rows = await store.query(`SELECT id FROM ${table} WHERE id IN (SELECT unnest(string_split($ids, ',')))`, { ids: ids.join(',') });
  return new Set(rows.map((row) => String(row['id'])));
}
