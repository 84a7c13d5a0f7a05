import type { SqlClient } from '../store';

export interface SloRow {
  id: string;
  project_id: string;
  name: string;
  target_percent: number;
  good: string;
  total: string;
  window_days: number;
  created_at: Date;
  updated_at: Date;
}

export interface SloFields {
  name: string;
  target_percent: number;
  good: string;
  total: string;
  window_days: number;
}

export async function insertSlo(sql: SqlClient, id: string, projectId: string, slo: SloFields): Promise<SloRow> {
  const rows = await sql.query<SloRow>(
    `insert into slos (id, project_id, name, target_percent, good, total, window_days) values ($1, $2, $3, $4, $5, $6, $7) returning *`,
    [id, projectId, slo.name, slo.target_percent, slo.good, slo.total, slo.window_days],
  );
  return rows[0]!;
}

export async function listSlos(sql: SqlClient, projectId: string): Promise<SloRow[]> {
  return sql.query<SloRow>('select * from slos where project_id = $1 order by created_at', [projectId]);
}

export async function findSlo(sql: SqlClient, projectId: string, id: string): Promise<SloRow | undefined> {
  return (await sql.query<SloRow>('select * from slos where project_id = $1 and id = $2', [projectId, id]))[0];
}

export async function updateSlo(sql: SqlClient, id: string, slo: SloFields): Promise<SloRow> {
  const rows = await sql.query<SloRow>(
    `update slos set name = $2, target_percent = $3, good = $4, total = $5, window_days = $6, updated_at = now() where id = $1 returning *`,
    [id, slo.name, slo.target_percent, slo.good, slo.total, slo.window_days],
  );
  return rows[0]!;
}

export async function deleteSlo(sql: SqlClient, id: string): Promise<boolean> {
  return (await sql.query('delete from slos where id = $1 returning id', [id])).length > 0;
}
