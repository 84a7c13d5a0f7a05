import type { SqlClient } from '../store';

export type IncidentStatus = 'investigating' | 'identified' | 'monitoring' | 'resolved';
export type IncidentImpact = 'none' | 'minor' | 'major' | 'critical';

export interface StatusPageRow {
  id: string;
  org_id: string;
  slug: string;
  title: string;
  project_id: string | null;
  components: { name: string }[];
  created_at: Date;
  updated_at: Date;
}

export interface IncidentUpdate {
  status: IncidentStatus;
  message: string | null;
  at: string;
}

export interface IncidentRow {
  id: string;
  page_id: string;
  title: string;
  status: IncidentStatus;
  impact: IncidentImpact;
  components: string[];
  updates: IncidentUpdate[];
  created_at: Date;
  updated_at: Date;
  resolved_at: Date | null;
}

/** Inserts a page; null when the slug is taken. */
export async function insertStatusPage(
  sql: SqlClient,
  page: { id: string; orgId: string; slug: string; title: string; projectId: string | null; components: { name: string }[] },
): Promise<StatusPageRow | null> {
  const rows = await sql.query<StatusPageRow>(
    `insert into status_pages (id, org_id, slug, title, project_id, components) values ($1, $2, $3, $4, $5, $6::jsonb)
     on conflict (slug) do nothing returning *`,
    [page.id, page.orgId, page.slug, page.title, page.projectId, JSON.stringify(page.components)],
  );
  return rows[0] ?? null;
}

export async function findStatusPageBySlug(sql: SqlClient, slug: string): Promise<(StatusPageRow & { region: string }) | undefined> {
  const rows = await sql.query<StatusPageRow & { region: string }>(
    `select s.*, o.region from status_pages s join organizations o on o.id = s.org_id where s.slug = $1 and o.deleted_at is null`,
    [slug],
  );
  return rows[0];
}

export async function listStatusPages(sql: SqlClient, orgId: string): Promise<StatusPageRow[]> {
  return sql.query<StatusPageRow>('select * from status_pages where org_id = $1 order by created_at', [orgId]);
}

export async function updateStatusPage(
  sql: SqlClient,
  id: string,
  changes: { title?: string; projectId?: string | null; components?: { name: string }[] },
): Promise<StatusPageRow> {
  const rows = await sql.query<StatusPageRow>(
    `update status_pages set title = coalesce($2, title),
       project_id = case when $3 then $4 else project_id end,
       components = coalesce($5::jsonb, components), updated_at = now()
     where id = $1 returning *`,
    [id, changes.title ?? null, changes.projectId !== undefined, changes.projectId ?? null, changes.components ? JSON.stringify(changes.components) : null],
  );
  return rows[0]!;
}

export async function deleteStatusPage(sql: SqlClient, id: string): Promise<void> {
  await sql.query('delete from status_pages where id = $1', [id]);
}

export async function insertIncident(
  sql: SqlClient,
  incident: { id: string; pageId: string; title: string; status: IncidentStatus; impact: IncidentImpact; components: string[]; update: IncidentUpdate },
): Promise<IncidentRow> {
  const rows = await sql.query<IncidentRow>(
    `insert into status_incidents (id, page_id, title, status, impact, components, updates, resolved_at)
     values ($1, $2, $3, $4, $5, $6::jsonb, $7::jsonb, case when $4 = 'resolved' then now() end) returning *`,
    [incident.id, incident.pageId, incident.title, incident.status, incident.impact, JSON.stringify(incident.components), JSON.stringify([incident.update])],
  );
  return rows[0]!;
}

export async function findIncident(sql: SqlClient, pageId: string, id: string): Promise<IncidentRow | undefined> {
  return (await sql.query<IncidentRow>('select * from status_incidents where page_id = $1 and id = $2', [pageId, id]))[0];
}

/** Changes an incident; a status change appends to its updates, and `resolved` stamps resolved_at once. */
export async function updateIncident(
  sql: SqlClient,
  id: string,
  changes: { title?: string; status?: IncidentStatus; impact?: IncidentImpact; components?: string[]; update?: IncidentUpdate },
): Promise<IncidentRow> {
  const rows = await sql.query<IncidentRow>(
    `update status_incidents set title = coalesce($2, title), status = coalesce($3, status), impact = coalesce($4, impact),
       components = coalesce($5::jsonb, components),
       updates = case when $6::jsonb is null then updates else updates || jsonb_build_array($6::jsonb) end,
       resolved_at = case when coalesce($3, status) = 'resolved' then coalesce(resolved_at, now()) else null end,
       updated_at = now()
     where id = $1 returning *`,
    [
      id,
      changes.title ?? null,
      changes.status ?? null,
      changes.impact ?? null,
      changes.components ? JSON.stringify(changes.components) : null,
      changes.update ? JSON.stringify(changes.update) : null,
    ],
  );
  return rows[0]!;
}

/** Incidents of a page that were open at some point since `since`, newest first. */
export async function listIncidentsSince(
  sql: SqlClient,
  pageId: string,
  since: Date,
  page: { limit: number; offset: number },
): Promise<{ incidents: IncidentRow[]; total: number }> {
  const [incidents, count] = await Promise.all([
    sql.query<IncidentRow>(
      `select * from status_incidents where page_id = $1 and (resolved_at is null or resolved_at >= $2)
       order by created_at desc, id limit $3 offset $4`,
      [pageId, since, page.limit, page.offset],
    ),
    sql.query<{ total: number }>(
      'select count(*)::int as total from status_incidents where page_id = $1 and (resolved_at is null or resolved_at >= $2)',
      [pageId, since],
    ),
  ]);
  return { incidents, total: count[0]!.total };
}
