import { INCIDENT_HISTORY_DEFAULTS, IncidentHistoryQuery, IncidentPatch, NewIncident, NewIncidentUpdate, NewStatusPage, StatusPagePatch } from '@tlm/api-schemas';
import { requestMembership, requireMember, requireUser, type RateLimiter, type TokenIssuer } from '@tlm/auth';
import { conflict, isUuid, jsonBody, newId, notFound, parseBody, parseQuery, validationError } from '@tlm/core';
import {
  deleteStatusPage,
  findIncident,
  findProject,
  findStatusPageBySlug,
  insertIncident,
  insertStatusPage,
  listIncidentsSince,
  listStatusPages,
  updateIncident,
  updateStatusPage,
  type MetadataStore,
  type StatusPageRow,
} from '@tlm/metadata-store';
import { createHash } from 'node:crypto';
import { Router, type Request, type Response } from 'express';
import { notFoundHtml, statusPageHtml } from './html';
import { UPTIME_WINDOW_DAYS, incidentJson, pageJson, snapshotJson } from './status';

export interface StatusPageDeps {
  metadata: MetadataStore;
  tokens: TokenIssuer;
  /** Counts the managing routes against the organization's `/api` budget. */
  limiter: RateLimiter;
}

const DAY_MS = 86_400_000;

/** An incident affects components of its page; a name the page does not list would show as an unknown outage. */
function checkComponents(page: { components: { name: string }[] }, named: readonly string[] | undefined): void {
  const known = new Set(page.components.map((component) => component.name));
  const unknown = named?.find((name) => !known.has(name));
  if (unknown !== undefined) throw validationError(`component "${unknown}" is not on this status page`);
}

/** Browsers may keep the HTML page this long; the ETag lets them revalidate it cheaply afterwards. */
const HTML_MAX_AGE_S = 30;
/** No scripts at all; the one inline `<style>` element is the page's only resource. */
const HTML_SECURITY_POLICY = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/**
 * True when If-None-Match names this ETag (weak comparison, RFC 9110 13.1.2). Evaluated here rather than by
 * express's `req.fresh`, which ignores the header when the request also says `Cache-Control: no-cache`.
 */
function matchesEtag(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((candidate) => {
    const tag = candidate.trim();
    return tag === '*' || tag.replace(/^W\//, '') === etag;
  });
}

export function statusPageRoutes(deps: StatusPageDeps): Router {
  const router = Router();
  const body = jsonBody();
  const member = [requireUser(deps.tokens, deps.metadata, deps.limiter), requireMember(deps.metadata, deps.limiter)];

  async function publicPage(req: Request) {
    const page = await findStatusPageBySlug(deps.metadata, String(req.params['slug']));
    if (!page) throw notFound('no status page with this slug');
    return page;
  }

  /** The page and every incident open now or resolved within the uptime window: the two queries a snapshot needs. */
  async function snapshotOf(req: Request) {
    const page = await findStatusPageBySlug(deps.metadata, String(req.params['slug']));
    if (!page) return undefined;
    const now = new Date();
    const { incidents } = await listIncidentsSince(deps.metadata, page.id, new Date(now.getTime() - UPTIME_WINDOW_DAYS * DAY_MS), {
      limit: 1_000,
      offset: 0,
    });
    return { page, incidents, now };
  }

  /** The route's page, which must belong to the route's organization. */
  async function managedPage(req: Request, res: Response): Promise<StatusPageRow> {
    const page = await findStatusPageBySlug(deps.metadata, String(req.params['slug']));
    if (!page || page.org_id !== requestMembership(res).organization.id) throw notFound('no status page with this slug');
    return page;
  }

  async function checkProject(res: Response, projectId: string | null | undefined): Promise<void> {
    if (!projectId) return;
    const project = await findProject(deps.metadata, requestMembership(res).organization.id, projectId);
    if (!project || project.deleted_at) throw notFound('project not found');
  }

  // Public, no authentication (SPEC.md "Public status pages").
  router.get('/v1/status/:slug', async (req, res) => {
    const snapshot = await snapshotOf(req);
    if (!snapshot) throw notFound('no status page with this slug');
    res.json(snapshotJson(snapshot.page, snapshot.incidents, snapshot.now));
  });

  // The page people open: HTML rendered here, or the JSON snapshot for clients that ask for JSON.
  router.get('/status/:slug', async (req, res) => {
    const wantsJson = req.accepts(['html', 'json']) === 'json';
    res.vary('Accept');
    const snapshot = await snapshotOf(req);
    if (wantsJson) {
      if (!snapshot) throw notFound('no status page with this slug');
      res.json(snapshotJson(snapshot.page, snapshot.incidents, snapshot.now));
      return;
    }
    res.set({ 'Content-Security-Policy': HTML_SECURITY_POLICY, 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer' });
    if (!snapshot) {
      res.status(404).type('html').set('Cache-Control', 'no-cache').send(notFoundHtml());
      return;
    }
    // Rendered as of the end of the current minute, so the page (and its ETag) stays the same within a minute while an outage runs.
    const html = statusPageHtml(snapshot.page, snapshot.incidents, new Date(Math.ceil(snapshot.now.getTime() / 60_000) * 60_000));
    const etag = `"${createHash('sha256').update(html).digest('base64url').slice(0, 32)}"`;
    res.set({ 'Cache-Control': `public, max-age=${HTML_MAX_AGE_S}`, ETag: etag });
    if (matchesEtag(req.get('if-none-match'), etag)) {
      res.status(304).end();
      return;
    }
    res.type('html').send(html);
  });

  router.get('/v1/status/:slug/incidents', async (req, res) => {
    const { days, per_page: perPage, page: pageNumber } = { ...INCIDENT_HISTORY_DEFAULTS, ...parseQuery(IncidentHistoryQuery, req.query) };
    const page = await publicPage(req);
    const { incidents, total } = await listIncidentsSince(deps.metadata, page.id, new Date(Date.now() - days * DAY_MS), {
      limit: perPage,
      offset: (pageNumber - 1) * perPage,
    });
    res.json({ slug: page.slug, days, page: pageNumber, per_page: perPage, total, incidents: incidents.map(incidentJson) });
  });

  router.get('/v1/status-pages/:slug/resolve', async (req, res) => {
    const page = await publicPage(req);
    res.json({ slug: page.slug, region: page.region, title: page.title });
  });

  // Managed (DECISIONS.md "Status pages, managed").
  router.post('/api/orgs/:org/status-pages', ...member, body, async (req, res) => {
    const input = parseBody(NewStatusPage, req.body);
    await checkProject(res, input.project_id);
    const page = await insertStatusPage(deps.metadata, {
      id: newId(),
      orgId: requestMembership(res).organization.id,
      slug: input.slug,
      title: input.title,
      projectId: input.project_id ?? null,
      components: input.components ?? [],
    });
    if (!page) throw conflict('this slug is taken');
    res.status(201).json(pageJson(page));
  });

  router.get('/api/orgs/:org/status-pages', ...member, async (_req, res) => {
    res.json({ status_pages: (await listStatusPages(deps.metadata, requestMembership(res).organization.id)).map(pageJson) });
  });

  router.get('/api/orgs/:org/status-pages/:slug', ...member, async (req, res) => {
    res.json(pageJson(await managedPage(req, res)));
  });

  router.patch('/api/orgs/:org/status-pages/:slug', ...member, body, async (req, res) => {
    const page = await managedPage(req, res);
    const changes = parseBody(StatusPagePatch, req.body);
    await checkProject(res, changes.project_id);
    res.json(pageJson(await updateStatusPage(deps.metadata, page.id, { title: changes.title, projectId: changes.project_id, components: changes.components })));
  });

  router.delete('/api/orgs/:org/status-pages/:slug', ...member, async (req, res) => {
    await deleteStatusPage(deps.metadata, (await managedPage(req, res)).id);
    res.status(204).end();
  });

  router.post('/api/orgs/:org/status-pages/:slug/incidents', ...member, body, async (req, res) => {
    const page = await managedPage(req, res);
    const input = parseBody(NewIncident, req.body);
    checkComponents(page, input.components);
    const incident = await insertIncident(deps.metadata, {
      id: newId(),
      pageId: page.id,
      title: input.title,
      status: input.status,
      impact: input.impact,
      components: input.components ?? [],
      update: { status: input.status, message: input.message ?? null, at: new Date().toISOString() },
    });
    res.status(201).json(incidentJson(incident));
  });

  router.patch('/api/orgs/:org/status-pages/:slug/incidents/:id', ...member, body, async (req, res) => {
    const page = await managedPage(req, res);
    const id = String(req.params['id']);
    const current = isUuid(id) ? await findIncident(deps.metadata, page.id, id) : undefined;
    if (!current) throw notFound('incident not found');
    const changes = parseBody(IncidentPatch, req.body);
    checkComponents(page, changes.components);
    const newsworthy = changes.status !== undefined || changes.message !== undefined;
    const incident = await updateIncident(deps.metadata, current.id, {
      title: changes.title,
      status: changes.status,
      impact: changes.impact,
      components: changes.components,
      update: newsworthy ? { status: changes.status ?? current.status, message: changes.message ?? null, at: new Date().toISOString() } : undefined,
    });
    res.json(incidentJson(incident));
  });

  router.post('/api/orgs/:org/status-pages/:slug/incidents/:id/updates', ...member, body, async (req, res) => {
    const page = await managedPage(req, res);
    const id = String(req.params['id']);
    const current = isUuid(id) ? await findIncident(deps.metadata, page.id, id) : undefined;
    if (!current) throw notFound('incident not found');
    const update = parseBody(NewIncidentUpdate, req.body);
    const incident = await updateIncident(deps.metadata, current.id, {
      status: update.status,
      update: { status: update.status, message: update.message, at: new Date().toISOString() },
    });
    res.status(201).json(incidentJson(incident));
  });

  return router;
}
