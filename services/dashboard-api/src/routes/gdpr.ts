import { GdprEraseBody } from '@tlm/api-schemas';
import { erasePerson } from '@tlm/analytics-store';
import { deleteOwnedBlobs } from '@tlm/blob-store';
import { requestMembership, requestProject, requireMember, requireProject, requireUser, sessionUser } from '@tlm/auth';
import { isoTime, jsonBody, parseBody } from '@tlm/core';
import { forgetIssueUser } from '@tlm/issues';
import { findUserById, forgetSchemaExample, type ApiKeyRow, type ProjectRow } from '@tlm/metadata-store';
import { Router } from 'express';
import type { DashboardDeps } from '../deps';


/** SPEC.md: API key metadata only (prefix, type, scopes), never values or hashes. */
const keyMetadata = (key: ApiKeyRow) => ({
  id: key.id,
  project_id: key.project_id,
  name: key.name,
  type: key.type,
  prefix: key.prefix,
  scopes: key.scopes,
  region: key.region,
  created_at: isoTime(key.created_at),
  last_used_at: isoTime(key.last_used_at),
  revoked_at: isoTime(key.revoked_at),
  deleted_at: isoTime(key.deleted_at),
});

export function gdprRoutes(deps: DashboardDeps): Router {
  const router = Router();
  const owner = [requireUser(deps.tokens, deps.metadata, deps.limiter), requireMember(deps.metadata, deps.limiter, { ownerOnly: true })];

  // SPEC.md Dashboard API: organization owners only.
  router.get('/api/orgs/:org/gdpr/export', ...owner, async (_req, res) => {
    const { organization } = requestMembership(res);
    const user = (await findUserById(deps.metadata, sessionUser(res).id))!;
    const projects = await deps.metadata.query<ProjectRow>('select * from projects where org_id = $1 order by created_at', [organization.id]);
    const keys = await deps.metadata.query<ApiKeyRow>('select * from api_keys where org_id = $1 order by created_at', [organization.id]);
    const [alertRules] = await deps.metadata.query<{ n: number }>(
      'select count(*)::int as n from alert_rules r join projects p on p.id = r.project_id where p.org_id = $1',
      [organization.id],
    );
    const counts = { events: 0, logs: 0, alert_rules: alertRules!.n };
    for (const project of projects) {
      for (const table of ['events', 'logs'] as const) {
        const [row] = await deps.analytics.query(
          deps.analytics.dialect === 'clickhouse'
            ? `SELECT count(*) AS n FROM ${table} FINAL WHERE project_id = {project_id:UUID}`
            : `SELECT count(*) AS n FROM ${table} WHERE project_id = $project_id`,
          { project_id: project.id },
        );
        counts[table] += Number(row?.['n'] ?? 0);
      }
    }
    res.json({
      exported_at: new Date().toISOString(),
      user: { email: user.email, name: user.name, created_at: isoTime(user.created_at) },
      organization: { id: organization.id, name: organization.name, plan: organization.plan, region: organization.region, created_at: isoTime(organization.created_at) },
      projects: projects.map((project) => ({
        id: project.id,
        name: project.name,
        dsn_id: project.dsn_id,
        allow_browser_logs: project.allow_browser_logs,
        created_at: isoTime(project.created_at),
        deleted_at: isoTime(project.deleted_at),
      })),
      api_keys: keys.map(keyMetadata),
      counts,
    });
  });

  // DECISIONS.md: erasure of one data subject removes every event, log, error (with its attachments) and replay of that person.
  router.post('/api/orgs/:org/projects/:project/gdpr/erase', ...owner, requireProject(deps.metadata), jsonBody(), async (req, res) => {
    const { distinct_id } = parseBody(GdprEraseBody, req.body);
    const projectId = requestProject(res).id;
    const { removed, replaySessions, attachmentEvents } = await erasePerson(deps.analytics, projectId, distinct_id);
    // Error rows are gone; the issues also stop counting the person among their users.
    removed['issue_users'] = await forgetIssueUser(deps, projectId, distinct_id);
    removed['schema_examples'] = await forgetSchemaExample(deps.metadata, projectId, distinct_id);
    await deleteOwnedBlobs(deps.blobs, projectId, 'replays', replaySessions);
    await deleteOwnedBlobs(deps.blobs, projectId, 'attachments', attachmentEvents);
    res.json({ distinct_id, removed });
  });

  return router;
}
