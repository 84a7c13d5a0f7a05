import type { SqlClient } from '../store';

/**
 * How far the ingest writer has counted each partition of a topic into the schema registry and usage counters
 * (migration 0012); -1 for a partition never counted.
 */
export async function statsPositions(sql: SqlClient, topic: string, partitions: readonly number[]): Promise<Map<number, number>> {
  const rows = await sql.query<{ partition: number; counted_through: string | number }>(
    'select partition, counted_through from stats_positions where topic = $1 and partition = any($2::int[])',
    [topic, [...partitions]],
  );
  const positions = new Map(partitions.map((partition) => [partition, -1]));
  for (const row of rows) positions.set(row.partition, Number(row.counted_through));
  return positions;
}

/** A partition of a topic counted from just after `from` (what this writer last stored or read) through `to`. */
export interface StatsPositionAdvance {
  topic: string;
  partition: number;
  from: number;
  to: number;
}

/**
 * Stores how far partitions are counted, in the transaction that adds their counts; answers the advances whose stored
 * position was no longer `from`: another writer counted them meanwhile (a Kafka rebalance), so this transaction must
 * not commit its counts of them. Rows are written in (topic, partition) order, so two writers never deadlock.
 */
export async function advanceStatsPositions(sql: SqlClient, advances: readonly StatsPositionAdvance[]): Promise<StatsPositionAdvance[]> {
  if (advances.length === 0) return [];
  const sorted = [...advances].sort((a, b) => (a.topic === b.topic ? a.partition - b.partition : a.topic < b.topic ? -1 : 1));
  // A partition's row is made by its first count (from -1); a later count finds it, or finds it moved.
  const first = sorted.filter((advance) => advance.from === -1);
  if (first.length > 0) {
    await sql.query(
      `insert into stats_positions (topic, partition, counted_through)
       select topic, partition, -1 from unnest($1::text[], $2::int[]) as f(topic, partition)
       on conflict do nothing`,
      [first.map((advance) => advance.topic), first.map((advance) => advance.partition)],
    );
  }
  const [row] = await sql.query<{ json: string }>(
    `with moved as (
       update stats_positions p set counted_through = a.to_offset, updated_at = now()
       from unnest($1::text[], $2::int[], $3::bigint[], $4::bigint[]) as a(topic, partition, from_offset, to_offset)
       where p.topic = a.topic and p.partition = a.partition and p.counted_through = a.from_offset
       returning p.topic, p.partition)
     select coalesce(json_agg(json_build_array(topic, partition)), '[]')::text as json from moved`,
    [sorted.map((advance) => advance.topic), sorted.map((advance) => advance.partition), sorted.map((advance) => advance.from), sorted.map((advance) => advance.to)],
  );
  const moved = new Set((JSON.parse(row!.json) as [string, number][]).map(([topic, partition]) => `${topic}\u0000${partition}`));
  return sorted.filter((advance) => !moved.has(`${advance.topic}\u0000${advance.partition}`));
}
