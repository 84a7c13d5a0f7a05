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
