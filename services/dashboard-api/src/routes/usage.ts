import type { Usage } from '@tlm/api-schemas';
import { requestMembership, requireMember, requireUser } from '@tlm/auth';
import { PLANS, limitsJson } from '@tlm/core';
import { runQuery } from '@tlm/gql';
import { countKeysOfOrganization, listProjects, monthOf, readUsage, type ProjectRow } from '@tlm/metadata-store';
import { Router } from 'express';
import type { DashboardDeps } from '../deps';

/** Signals the ingest writer tallies as it stores them: the counters the plan's usage is read from. */
const COUNTED_SIGNALS = ['logs', 'events', 'ai_queries', 'ai_prompt_tokens', 'ai_completion_tokens'] as const;
/** Signals with no counter, counted from the stored rows of the month (GQL, so both analytics dialects answer). */
const QUERIED_SIGNALS = ['errors', 'spans', 'vitals', 'sessions'] as const;


/**
 * GET /api/orgs/:org/usage: the plan, its limits, the key and project quotas in use, and this month's items per
 * signal for the organization and for each of its projects.
 */
export function usageRoutes(deps: DashboardDeps): Router {
  const router = Router();

  async function projectUsage(project: ProjectRow, month: string, monthStart: string, retentionDays: number): Promise<Usage['usage']> {
    const counters = await readUsage(deps.metadata, project.id, month);
    const guard = { projectId: project.id, retentionDays, now: new Date() };
    const queried = await Promise.all(
      QUERIED_SIGNALS.map(async (signal) => {
        const answer = await runQuery(deps.analytics, `from:${signal} since:${monthStart} | count`, guard);
        return [signal, Number(answer.data.results[0]?.['value'] ?? 0)] as const;
      }),
    );
    return {
      ...(Object.fromEntries(COUNTED_SIGNALS.map((signal) => [signal, counters[signal] ?? 0])) as Record<(typeof COUNTED_SIGNALS)[number], number>),
      ...(Object.fromEntries(queried) as Record<(typeof QUERIED_SIGNALS)[number], number>),
    };
  }

  router.get('/api/orgs/:org/usage', requireUser(deps.tokens, deps.metadata, deps.limiter), requireMember(deps.metadata, deps.limiter), async (_req, res) => {
    const { organization } = requestMembership(res);
    const limits = PLANS[organization.plan];
    const month = monthOf(Date.now());
    const [projects, keysUsed] = await Promise.all([listProjects(deps.metadata, organization.id, false), countKeysOfOrganization(deps.metadata, organization.id)]);
    const byProject = await Promise.all(
      projects.map(async (project) => ({ id: project.id, name: project.name, usage: await projectUsage(project, month, month, limits.retentionDays) })),
    );
    const usage = Object.fromEntries(
      [...COUNTED_SIGNALS, ...QUERIED_SIGNALS].map((signal) => [signal, byProject.reduce((sum, project) => sum + project.usage[signal], 0)]),
    ) as Usage['usage'];
    const answer: Usage = {
      organization: { id: organization.id, name: organization.name, plan: organization.plan, region: organization.region },
      month: month.slice(0, 7),
      limits: limitsJson(organization.plan),
      keys: { used: keysUsed, limit: limits.maxApiKeys },
      projects: { used: projects.length, limit: limits.maxProjects },
      usage,
      by_project: byProject,
    };
    res.json(answer);
  });

  return router;
}
