import type { SqlClient } from '../store';

export interface UsageDelta {
  projectId: string;
  signal: string;
  /** First day of the month (UTC), YYYY-MM-01. */
  month: string;
  items: number;
}

export async function recordUsage(sql: SqlClient, deltas: UsageDelta[]): Promise<void> {
  if (deltas.length === 0) return;
  await sql.query(
    `insert into usage_counters as u (project_id, signal, month, items)
     select * from unnest($1::uuid[], $2::text[], $3::date[], $4::bigint[])
     on conflict (project_id, signal, month) do update set items = u.items + excluded.items`,
    [deltas.map((d) => d.projectId), deltas.map((d) => d.signal), deltas.map((d) => d.month), deltas.map((d) => d.items)],
  );
}

export async function readUsage(sql: SqlClient, projectId: string, month: string): Promise<Record<string, number>> {
  const rows = await sql.query<{ signal: string; items: number }>(
    'select signal, items from usage_counters where project_id = $1 and month = $2',
    [projectId, month],
  );
  return Object.fromEntries(rows.map((row) => [row.signal, row.items]));
}

/** YYYY-MM-01 of an instant, in UTC. */
export function monthOf(epochMs: number): string {
  return `${new Date(epochMs).toISOString().slice(0, 7)}-01`;
}
