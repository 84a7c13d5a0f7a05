import { AutocompleteQuery, BatchQueryBody, GqlTextQuery, SingleQueryBody } from '@tlm/api-schemas';
import {
  regionRouting,
  requestKey,
  requestMembership,
  requestProject,
  requireApiKey,
  requireMember,
  requireProject,
  requireScope,
  requireUser,
  requireWithinRate,
  type KeyResolver,
  type RateLimiter,
  type Region,
  type RegionUrls,
  type TokenIssuer,
} from '@tlm/auth';
import { PLANS, isoTime, limitsJson, jsonBody, parseBody, parseQuery, type Logger } from '@tlm/core';
import type { AnalyticsStore } from '@tlm/analytics-store';
import type { BlobStore } from '@tlm/blob-store';
import { complete, type Guard, type SchemaDocument } from '@tlm/gql';
import { countKeysOfProject, countOrganizationUsage, findOrganization, findProjectById, type MetadataStore, monthOf, readSchemaDocument, readUsage } from '@tlm/metadata-store';
import { Router, type Request, type Response } from 'express';
import { chunkReadRoutes } from './chunks';
import { dashboardRoutes } from './dashboards';
import { answerBatch, answerOrThrow } from './gql';
import { openApiRoutes } from './openapi';
import { streamTail } from './tail';

export interface QueryDeps {
  metadata: MetadataStore;
  analytics: AnalyticsStore;
  keys: KeyResolver;
  limiter: RateLimiter;
  tokens: TokenIssuer;
  /** Where failures of single queries inside a GQL batch are reported. */
  logger: Logger;
  /** This deployment's region and the other regions' base URLs, for keys of other regions. */
  region: Region;
  regionUrls: RegionUrls;
  /** Bodies of replay recordings and profile chunks. */
  blobs: BlobStore;
}

/** `/v1` reads: the key's project and its plan's retention; the compiler applies both to every table access. */
function keyGuard(res: Response): Guard {
  const key = requestKey(res);
  return { projectId: key.projectId, retentionDays: key.retentionDays, now: new Date() };
}

/** Dashboard reads: the route's project and the retention of its organization's plan. */
function memberGuard(res: Response): Guard {
  return {
    projectId: requestProject(res).id,
    retentionDays: PLANS[requestMembership(res).organization.plan].retentionDays,
    now: new Date(),
  };
}

/** Suggestions for the query text up to the cursor; the end of the query when no cursor is given. */
function autocomplete(req: Request, schema: SchemaDocument) {
  const { q, cursor } = parseQuery(AutocompleteQuery, req.query);
  return complete(q ?? '', cursor, schema);
}

export function queryRoutes(deps: QueryDeps): Router {
  const router = Router();
  const reader = [
    regionRouting(deps.region, deps.regionUrls),
    requireApiKey(deps.keys),
    requireWithinRate(deps.limiter),
    requireScope('data:read'),
  ];
  const member = [requireUser(deps.tokens, deps.metadata, deps.limiter), requireMember(deps.metadata, deps.limiter), requireProject(deps.metadata)];

  router.get('/v1/schema', ...reader, async (_req, res) => {
    res.json(await readSchemaDocument(deps.metadata, requestKey(res).projectId));
  });

  router.get('/api/orgs/:org/projects/:project/schema', ...member, async (_req, res) => {
    res.json(await readSchemaDocument(deps.metadata, requestProject(res).id));
  });

  const body = jsonBody();

  router.post('/v1/gql/query', ...reader, body, async (req, res) => {
    const { q } = parseBody(SingleQueryBody, req.body);
    res.json(await answerOrThrow(deps.analytics, q, keyGuard(res)));
  });

  router.post('/v1/gql', ...reader, body, async (req, res) => {
    const { queries } = parseBody(BatchQueryBody, req.body);
    res.json(await answerBatch(deps.analytics, queries, keyGuard(res), deps.logger));
  });

  router.get('/v1/gql/autocomplete', ...reader, async (req, res) => {
    res.json(autocomplete(req, await readSchemaDocument(deps.metadata, requestKey(res).projectId)));
  });

  router.get('/api/orgs/:org/projects/:project/gql', ...member, async (req, res) => {
    res.json(await answerOrThrow(deps.analytics, parseQuery(GqlTextQuery, req.query).q, memberGuard(res)));
  });

  router.get('/api/orgs/:org/projects/:project/gql/tail', ...member, async (req, res) => {
    await streamTail(req, res, deps.analytics, parseQuery(GqlTextQuery, req.query).q, () => memberGuard(res), deps.logger);
  });

  router.get('/api/orgs/:org/projects/:project/gql/autocomplete', ...member, async (req, res) => {
    res.json(autocomplete(req, await readSchemaDocument(deps.metadata, requestProject(res).id)));
  });

  /** AI usage counters: dashboard conversions, and the tokens the chat read and wrote. */
  const AI_SIGNALS = ['ai_queries', 'ai_prompt_tokens', 'ai_completion_tokens'] as const;

  router.get('/v1/info', ...reader, async (_req, res) => {
    const key = requestKey(res);
    const month = monthOf(Date.now());
    const [project, organization, usage, keyCount, ...organizationAi] = await Promise.all([
      findProjectById(deps.metadata, key.projectId),
      findOrganization(deps.metadata, key.orgId),
      readUsage(deps.metadata, key.projectId, month),
      countKeysOfProject(deps.metadata, key.projectId),
      ...AI_SIGNALS.map((signal) => countOrganizationUsage(deps.metadata, key.orgId, signal, month)),
    ]);
    res.json({
      project: {
        id: project!.id,
        name: project!.name,
        dsn_id: project!.dsn_id,
        allow_browser_logs: project!.allow_browser_logs,
        created_at: isoTime(project!.created_at),
      },
      organization: {
        id: organization!.id,
        name: organization!.name,
        plan: organization!.plan,
        region: organization!.region,
        limits: limitsJson(organization!.plan),
        // The AI allowances are the organization's, over all its projects (docs/api.md "GET /v1/info").
        usage: { month: month.slice(0, 7), ...Object.fromEntries(AI_SIGNALS.map((signal, index) => [signal, organizationAi[index] ?? 0])) },
      },
      usage: {
        month: month.slice(0, 7),
        logs: usage['logs'] ?? 0,
        events: usage['events'] ?? 0,
        ...Object.fromEntries(AI_SIGNALS.map((signal) => [signal, usage[signal] ?? 0])),
      },
      key_count: keyCount,
    });
  });

  router.use('/v1', chunkReadRoutes(deps, reader, keyGuard));
  router.use('/api/orgs/:org/projects/:project', chunkReadRoutes(deps, member, memberGuard));
  router.use('/api/orgs/:org/projects/:project', dashboardRoutes(deps.metadata, member));
  router.use(openApiRoutes());
  return router;
}
