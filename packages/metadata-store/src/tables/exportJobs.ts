import type { SqlClient } from '../store';

export type ExportFormat = 'csv' | 'json' | 'gdpr_zip';
export type ExportStatus = 'queued' | 'running' | 'done' | 'failed';

export interface ExportJobRow {
  id: string;
  project_id: string;
  format: ExportFormat;
  query: string | null;
  source: string | null;
  status: ExportStatus;
  rows: number | null;
  size: number | null;
  error: string | null;
  blob_key: string | null;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

export async function insertExportJob(
  sql: SqlClient,
  job: { id: string; projectId: string; format: ExportFormat; query: string | null; source: string | null },
): Promise<ExportJobRow> {
  const rows = await sql.query<ExportJobRow>(
    'insert into export_jobs (id, project_id, format, query, source) values ($1, $2, $3, $4, $5) returning *',
    [job.id, job.projectId, job.format, job.query, job.source],
  );
  return rows[0]!;
}

export async function listExportJobs(sql: SqlClient, projectId: string): Promise<ExportJobRow[]> {
  return sql.query<ExportJobRow>('select * from export_jobs where project_id = $1 order by created_at desc limit 100', [projectId]);
}

/**
 * An export job whose project and organization are active: deleting the project or its owners' accounts stops its
 * download links too, as it stops the project's keys (SPEC.md lifecycles).
 */
export async function findActiveExportJob(sql: SqlClient, id: string): Promise<ExportJobRow | undefined> {
  const rows = await sql.query<ExportJobRow>(
    `select j.* from export_jobs j join projects p on p.id = j.project_id join organizations o on o.id = p.org_id
     where j.id = $1 and p.deleted_at is null and o.deleted_at is null`,
    [id],
  );
  return rows[0];
}

/** Takes the oldest queued job for this runner; `skip locked` lets several runners share the queue. */
export async function claimExportJob(sql: SqlClient): Promise<ExportJobRow | undefined> {
  const rows = await sql.query<ExportJobRow>(
    `update export_jobs set status = 'running', started_at = now()
     where id = (select id from export_jobs where status = 'queued' order by created_at limit 1 for update skip locked)
     returning *`,
  );
  return rows[0];
}

export async function finishExportJob(
  sql: SqlClient,
  id: string,
  outcome: { status: 'done'; rows: number; size: number; blobKey: string } | { status: 'failed'; error: string },
): Promise<void> {
  await sql.query(
    `update export_jobs set status = $2, rows = $3, size = $4, blob_key = $5, error = $6, finished_at = now() where id = $1`,
    outcome.status === 'done'
      ? [id, 'done', outcome.rows, outcome.size, outcome.blobKey, null]
      : [id, 'failed', null, null, null, outcome.error],
  );
}

/** Jobs a crashed runner left running go back to the queue. */
export async function requeueStaleExportJobs(sql: SqlClient, olderThan: Date): Promise<number> {
  return (
    await sql.query(`update export_jobs set status = 'queued', started_at = null where status = 'running' and started_at < $1 returning id`, [olderThan])
  ).length;
}

/**
 * Forgets a project's export jobs created before `cutoff`'s UTC day: their files are kept under the day of creation
 * and go with that day when retention passes it (deleteBlobsBefore), so the job would list a link to nothing.
 */
export async function deleteExportJobsBefore(sql: SqlClient, projectId: string, cutoff: Date): Promise<number> {
  const firstKeptDay = new Date(Math.floor(cutoff.getTime() / 86_400_000) * 86_400_000);
  return (await sql.query('delete from export_jobs where project_id = $1 and created_at < $2 returning id', [projectId, firstKeptDay])).length;
}
