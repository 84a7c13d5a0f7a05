import {
  requestKey,
  requestProject,
  requireApiKey,
  requireMember,
  requireProject,
  requireScope,
  requireUser,
  requireWithinRate,
  type KeyResolver,
  type RateLimiter,
  type TokenIssuer,
} from '@tlm/auth';
import { PLANS, isoTime } from '@tlm/core';
import type { AnalyticsStore } from '@tlm/analytics-store';
import { countKeysOfProject, findOrganization, findProjectById, monthOf, readUsage, type MetadataStore } from '@tlm/metadata-store';
import { Router } from 'express';
import { schemaDocument } from './schema';

export interface QueryDeps {
  metadata: MetadataStore;
  analytics: AnalyticsStore;
  keys: KeyResolver;
  limiter: RateLimiter;
  tokens: TokenIssuer;
}

export function queryRoutes(deps: QueryDeps): Router {
  const router = Router();
  const reader = [requireApiKey(deps.keys), requireWithinRate(deps.limiter), requireScope('data:read')];
  const member = [requireUser(deps.tokens, deps.metadata), requireMember(deps.metadata), requireProject(deps.metadata)];

  router.get('/v1/schema', ...reader, async (_req, res) => {
    res.json(await schemaDocument(deps.metadata, requestKey(res).projectId));
  });

  router.get('/api/orgs/:org/projects/:project/schema', ...member, async (_req, res) => {
    res.json(await schemaDocument(deps.metadata, requestProject(res).id));
  });

  router.get('/v1/info', ...reader, async (_req, res) => {
    const key = requestKey(res);
    const month = monthOf(Date.now());
    const [project, organization, usage, keyCount] = await Promise.all([
      findProjectById(deps.metadata, key.projectId),
      findOrganization(deps.metadata, key.orgId),
      readUsage(deps.metadata, key.projectId, month),
      countKeysOfProject(deps.metadata, key.projectId),
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
        limits: PLANS[organization!.plan],
      },
      usage: { month: month.slice(0, 7), logs: usage['logs'] ?? 0, events: usage['events'] ?? 0 },
      key_count: keyCount,
    });
  });

  return router;
}
