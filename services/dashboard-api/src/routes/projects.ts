import { DeletedQuery, ForceQuery, NewProject, ProjectPatch } from '@tlm/api-schemas';
import { announceKeyChange, requestMembership, requestProject, requireMember, requireProject, requireUser } from '@tlm/auth';
import { PLANS, jsonBody, newId, notFound, parseBody, parseQuery, quotaExceeded, upgradesAllowing, withinRestoreWindow, type PlanName } from '@tlm/core';
import {
  countLiveProjects,
  insertProject,
  listProjects,
  lockOrganization,
  reactivateKeysOfRestoredProject,
  revokeKeysOfDeletedProject,
  setProjectDeletedAt,
  updateProject,
  type SqlClient,
} from '@tlm/metadata-store';
import { Router } from 'express';
import type { DashboardDeps } from '../deps';
import { projectJson } from '../wire';


/**
 * 402 with the quota and the plans that would allow one more project (SPEC.md Project lifecycle). The message offers
 * what fits the action: a restore can also be forced past the maximum.
 */
async function ensureProjectRoom(sql: SqlClient, orgId: string, plan: PlanName, action: 'create' | 'restore'): Promise<void> {
  const used = await countLiveProjects(sql, orgId);
  const limit = PLANS[plan].maxProjects;
  if (used < limit) return;
  const remedies = action === 'restore' ? 'upgrade, delete a project, or restore with force=true' : 'upgrade or delete a project';
  throw quotaExceeded(`the ${plan} plan allows ${limit} projects; ${remedies}`, {
    limit,
    used,
    plan,
    upgrade: upgradesAllowing(plan, used + 1, (limits) => limits.maxProjects),
  });
}

export function projectRoutes(deps: DashboardDeps): Router {
  const router = Router();
  const body = jsonBody();
  const member = [requireUser(deps.tokens, deps.metadata, deps.limiter), requireMember(deps.metadata, deps.limiter)];
  const liveProject = [...member, requireProject(deps.metadata)];
  const anyProject = [...member, requireProject(deps.metadata, { includeDeleted: true })];

  router.post('/api/orgs/:org/projects', ...member, body, async (req, res) => {
    const input = parseBody(NewProject, req.body);
    const { organization } = requestMembership(res);
    const project = await deps.metadata.transaction(async (tx) => {
      await lockOrganization(tx, organization.id);
      await ensureProjectRoom(tx, organization.id, organization.plan, 'create');
      return insertProject(tx, {
        id: newId(),
        orgId: organization.id,
        name: input.name,
        allowBrowserLogs: input.allow_browser_logs ?? false,
      });
    });
    res.status(201).json(projectJson(project));
  });

  router.get('/api/orgs/:org/projects', ...member, async (req, res) => {
    const projects = await listProjects(deps.metadata, requestMembership(res).organization.id, parseQuery(DeletedQuery, req.query).deleted === true);
    res.json({ projects: projects.map(projectJson) });
  });

  router.get('/api/orgs/:org/projects/:project', ...liveProject, (_req, res) => {
    res.json(projectJson(requestProject(res)));
  });

  router.patch('/api/orgs/:org/projects/:project', ...liveProject, body, async (req, res) => {
    const changes = parseBody(ProjectPatch, req.body);
    const project = await updateProject(deps.metadata, requestProject(res).id, {
      name: changes.name,
      allowBrowserLogs: changes.allow_browser_logs,
    });
    await announceKeyChange(deps.bus, { projectIds: [project.id] });
    res.json(projectJson(project));
  });

  // SPEC.md Project lifecycle: hidden at once, and its keys revoked so clients stop sending.
  router.delete('/api/orgs/:org/projects/:project', ...liveProject, async (_req, res) => {
    const project = await deps.metadata.transaction(async (tx) => {
      await revokeKeysOfDeletedProject(tx, requestProject(res).id);
      return setProjectDeletedAt(tx, requestProject(res).id, new Date());
    });
    await announceKeyChange(deps.bus, { projectIds: [project.id] });
    res.json(projectJson(project));
  });

  router.post('/api/orgs/:org/projects/:project/restore', ...anyProject, async (req, res) => {
    const { force } = parseQuery(ForceQuery, req.query);
    const current = requestProject(res);
    const { organization } = requestMembership(res);
    if (!current.deleted_at) {
      res.json(projectJson(current));
      return;
    }
    if (!withinRestoreWindow(current.deleted_at)) throw notFound('the restore window of this project has passed');
    const project = await deps.metadata.transaction(async (tx) => {
      await lockOrganization(tx, organization.id);
      if (!force) await ensureProjectRoom(tx, organization.id, organization.plan, 'restore');
      await reactivateKeysOfRestoredProject(tx, current.id);
      return setProjectDeletedAt(tx, current.id, null);
    });
    await announceKeyChange(deps.bus, { projectIds: [project.id] });
    res.json(projectJson(project));
  });

  return router;
}
