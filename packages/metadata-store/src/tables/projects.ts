import type { SqlClient } from '../store';
import { countIssueUserErasures } from './issues';

export interface ProjectRow {
  id: string;
  org_id: string;
  name: string;
  dsn_id: number;
  allow_browser_logs: boolean;
  created_at: Date;
  deleted_at: Date | null;
}

export async function insertProject(
  sql: SqlClient,
  project: { id: string; orgId: string; name: string; allowBrowserLogs: boolean },
): Promise<ProjectRow> {
  const rows = await sql.query<ProjectRow>(
    'insert into projects (id, org_id, name, allow_browser_logs) values ($1, $2, $3, $4) returning *',
    [project.id, project.orgId, project.name, project.allowBrowserLogs],
  );
  return rows[0]!;
}

export async function listProjects(sql: SqlClient, orgId: string, deleted: boolean): Promise<ProjectRow[]> {
  return sql.query<ProjectRow>(
    `select * from projects where org_id = $1 and (deleted_at is not null) = $2 order by created_at`,
    [orgId, deleted],
  );
}

/** A project of the organization, live or soft-deleted. */
export async function findProject(sql: SqlClient, orgId: string, projectId: string): Promise<ProjectRow | undefined> {
  return (await sql.query<ProjectRow>('select * from projects where org_id = $1 and id = $2', [orgId, projectId]))[0];
}

export async function findProjectById(sql: SqlClient, projectId: string): Promise<ProjectRow | undefined> {
  return (await sql.query<ProjectRow>('select * from projects where id = $1', [projectId]))[0];
}

export async function updateProject(
  sql: SqlClient,
  projectId: string,
  changes: { name?: string; allowBrowserLogs?: boolean },
): Promise<ProjectRow> {
  const rows = await sql.query<ProjectRow>(
    `update projects set name = coalesce($2, name), allow_browser_logs = coalesce($3, allow_browser_logs)
     where id = $1 returning *`,
    [projectId, changes.name ?? null, changes.allowBrowserLogs ?? null],
  );
  return rows[0]!;
}

export async function setProjectDeletedAt(sql: SqlClient, projectId: string, deletedAt: Date | null): Promise<ProjectRow> {
  const rows = await sql.query<ProjectRow>('update projects set deleted_at = $2 where id = $1 returning *', [projectId, deletedAt]);
  return rows[0]!;
}

export async function countLiveProjects(sql: SqlClient, orgId: string): Promise<number> {
  const rows = await sql.query<{ projects: number }>(
    'select count(*)::int as projects from projects where org_id = $1 and deleted_at is null',
    [orgId],
  );
  return rows[0]!.projects;
}

/** Tables keyed by project without a foreign key, because consumers may still write for a project being removed. */
const PROJECT_KEYED_TABLES = [
  'schema_properties',
  'schema_event_names',
  'usage_counters',
  'issues',
  'issue_short_ids',
  'issue_users',
] as const;

/**
 * Removes the projects' rows from every project-keyed table; issue processors are told their issue users went.
 * `issue_user_erasures` is not among the tables: its count must never go back, or a processor could trust pairs it
 * learnt before the purge.
 */
export async function purgeProjectKeyedRows(sql: SqlClient, projectIds: string[]): Promise<void> {
  for (const table of PROJECT_KEYED_TABLES) await sql.query(`delete from ${table} where project_id = any($1::uuid[])`, [projectIds]);
  await countIssueUserErasures(sql, projectIds);
}
