import { DashboardPatch, MAX_PROJECT_DASHBOARDS, NewDashboard, type Dashboard, type PanelInput } from '@tlm/api-schemas';
import { requestMembership, requestProject } from '@tlm/auth';
import { ApiError, conflict, isUuid, isoTime, jsonBody, newId, notFound, parseBody, validationError } from '@tlm/core';
import { compileQuery, gqlApiError } from '@tlm/gql';
import {
  countDashboards,
  deleteDashboard,
  findDashboard,
  insertDashboard,
  listDashboards,
  lockDashboard,
  lockOrganization,
  updateDashboard,
  type DashboardPanel,
  type DashboardRow,
  type MetadataStore,
  type SqlClient,
} from '@tlm/metadata-store';
import { Router, type Request, type RequestHandler, type Response } from 'express';

const dashboardJson = (dashboard: DashboardRow): Dashboard => ({
  id: dashboard.id,
  name: dashboard.name,
  description: dashboard.description,
  panels: dashboard.panels.map((panel) => ({ id: panel.id, title: panel.title, query: panel.query, width: panel.width })),
  created_at: isoTime(dashboard.created_at),
  updated_at: isoTime(dashboard.updated_at),
});

/** A panel's query parses and plans, or the GQL error's answer with the panel named before its message. */
function checkPanelQuery(query: string, index: number): void {
  try {
    compileQuery(query);
  } catch (error) {
    const problem = gqlApiError(error);
    if (!problem) throw error;
    throw new ApiError(problem.status, problem.code, `panels[${index}].query: ${problem.message}`, problem.details);
  }
}

/**
 * The panels to store for the list sent, in its order: a panel carrying an id keeps it, and the id must be one of
 * `kept` (the dashboard's stored panels) and listed once; a panel without one is new and gets an id.
 */
function storedPanels(inputs: readonly PanelInput[], kept: readonly DashboardPanel[]): DashboardPanel[] {
  const keptIds = new Set(kept.map((panel) => panel.id));
  const listed = new Set<string>();
  return inputs.map((panel, index) => {
    checkPanelQuery(panel.query, index);
    if (panel.id !== undefined) {
      if (listed.has(panel.id)) throw validationError(`panels[${index}].id: ${panel.id} is listed twice`);
      if (!keptIds.has(panel.id)) throw validationError(`panels[${index}].id: ${panel.id} is not a panel of this dashboard`);
      listed.add(panel.id);
    }
    return { id: panel.id ?? newId(), title: panel.title, query: panel.query, width: panel.width ?? 1 };
  });
}

/**
 * A project's saved dashboards, for its members only (docs/decisions.md "Dashboards"): the web app's pages, so no
 * `/v1` door and no key scope. Mounted at `/api/orgs/:org/projects/:project`.
 */
export function dashboardRoutes(metadata: MetadataStore, member: RequestHandler[]): Router {
  const router = Router({ mergeParams: true });
  const body = jsonBody();

  /** The route's dashboard; an unknown id, one that is no UUID, or another project's dashboard is 404. */
  async function routeDashboard(sql: SqlClient, req: Request, res: Response, find = findDashboard): Promise<DashboardRow> {
    const id = String(req.params['id']);
    const dashboard = isUuid(id) ? await find(sql, requestProject(res).id, id) : undefined;
    if (!dashboard) throw notFound('dashboard not found');
    return dashboard;
  }

  router.get('/dashboards', ...member, async (_req, res) => {
    res.json({ dashboards: (await listDashboards(metadata, requestProject(res).id)).map(dashboardJson) });
  });

  router.post('/dashboards', ...member, body, async (req, res) => {
    const input = parseBody(NewDashboard, req.body);
    const panels = storedPanels(input.panels ?? [], []);
    const projectId = requestProject(res).id;
    const dashboard = await metadata.transaction(async (tx) => {
      // Simultaneous creations take turns at the count, so together they cannot pass the limit.
      await lockOrganization(tx, requestMembership(res).organization.id);
      if ((await countDashboards(tx, projectId)) >= MAX_PROJECT_DASHBOARDS) throw conflict(`a project holds at most ${MAX_PROJECT_DASHBOARDS} dashboards`);
      return insertDashboard(tx, newId(), projectId, { name: input.name, description: input.description ?? '', panels });
    });
    res.status(201).json(dashboardJson(dashboard));
  });

  router.get('/dashboards/:id', ...member, async (req, res) => {
    res.json(dashboardJson(await routeDashboard(metadata, req, res)));
  });

  router.put('/dashboards/:id', ...member, body, async (req, res) => {
    // Under the dashboard's lock, so kept panel ids are checked against the panels as stored, not as a simultaneous
    // change is leaving them.
    const dashboard = await metadata.transaction(async (tx) => {
      const current = await routeDashboard(tx, req, res, lockDashboard);
      const changes = parseBody(DashboardPatch, req.body);
      if (changes.updated_at !== undefined && changes.updated_at !== isoTime(current.updated_at)) {
        throw conflict('the dashboard changed since it was read: read it again and make the change on what it holds now');
      }
      return updateDashboard(tx, current.id, {
        name: changes.name ?? current.name,
        description: changes.description ?? current.description,
        panels: changes.panels ? storedPanels(changes.panels, current.panels) : current.panels,
      });
    });
    res.json(dashboardJson(dashboard));
  });

  router.delete('/dashboards/:id', ...member, async (req, res) => {
    const dashboard = await routeDashboard(metadata, req, res);
    await deleteDashboard(metadata, dashboard.id);
    res.status(204).end();
  });

  return router;
}
