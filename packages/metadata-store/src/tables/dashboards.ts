import { postgresJson, type SqlClient } from '../store';

/** A panel as stored in its dashboard's `panels`, in the order shown. */
export interface DashboardPanel {
  id: string;
  title: string;
  query: string;
  width: 1 | 2;
}

export interface DashboardFields {
  name: string;
  description: string;
  panels: DashboardPanel[];
}

export interface DashboardRow extends DashboardFields {
  id: string;
  project_id: string;
  created_at: Date;
  updated_at: Date;
}

export async function insertDashboard(sql: SqlClient, id: string, projectId: string, dashboard: DashboardFields): Promise<DashboardRow> {
  const rows = await sql.query<DashboardRow>(
    'insert into dashboards (id, project_id, name, description, panels) values ($1, $2, $3, $4, $5::jsonb) returning *',
    [id, projectId, dashboard.name, dashboard.description, postgresJson(dashboard.panels)],
  );
  return rows[0]!;
}

/** The project's dashboards by name, whatever its case, then oldest first. */
export async function listDashboards(sql: SqlClient, projectId: string): Promise<DashboardRow[]> {
  return sql.query<DashboardRow>('select * from dashboards where project_id = $1 order by lower(name), created_at, id', [projectId]);
}

export async function findDashboard(sql: SqlClient, projectId: string, id: string): Promise<DashboardRow | undefined> {
  return (await sql.query<DashboardRow>('select * from dashboards where project_id = $1 and id = $2', [projectId, id]))[0];
}

/** The dashboard with its row lock, held to the end of the transaction: changes to it then take turns. */
export async function lockDashboard(sql: SqlClient, projectId: string, id: string): Promise<DashboardRow | undefined> {
  return (await sql.query<DashboardRow>('select * from dashboards where project_id = $1 and id = $2 for update', [projectId, id]))[0];
}

export async function countDashboards(sql: SqlClient, projectId: string): Promise<number> {
  return (await sql.query<{ dashboards: number }>('select count(*)::int as dashboards from dashboards where project_id = $1', [projectId]))[0]!.dashboards;
}

export async function updateDashboard(sql: SqlClient, id: string, dashboard: DashboardFields): Promise<DashboardRow> {
  const rows = await sql.query<DashboardRow>(
    'update dashboards set name = $2, description = $3, panels = $4::jsonb, updated_at = now() where id = $1 returning *',
    [id, dashboard.name, dashboard.description, postgresJson(dashboard.panels)],
  );
  return rows[0]!;
}

export async function deleteDashboard(sql: SqlClient, id: string): Promise<boolean> {
  return (await sql.query('delete from dashboards where id = $1 returning id', [id])).length > 0;
}
