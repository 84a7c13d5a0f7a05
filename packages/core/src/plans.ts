/** Per-plan limits (SPEC.md Limits). Project and AI quotas are not in the spec; the values here are ours (docs/decisions.md). */
import { PLAN_NAMES, type PlanLimits, type PlanLimitsAnswer, type PlanName } from '@tlm/api-schemas';

// The limits' types are schemas of packages/api-schemas, so the table and the wire cannot drift apart.
export { PLAN_NAMES, type PlanLimits, type PlanName };

export const PLANS: Record<PlanName, PlanLimits> = {
  free: { requestsPerSecond: 10, apiRequestsPerSecond: 25, maxApiKeys: 5, retentionDays: 3, maxProjects: 3, aiQueriesPerMonth: 50, aiTokensPerMonth: 100_000 },
  starter: { requestsPerSecond: 20, apiRequestsPerSecond: 50, maxApiKeys: 10, retentionDays: 14, maxProjects: 10, aiQueriesPerMonth: 500, aiTokensPerMonth: 1_000_000 },
  pro: { requestsPerSecond: 50, apiRequestsPerSecond: 100, maxApiKeys: 100, retentionDays: 90, maxProjects: 50, aiQueriesPerMonth: 5_000, aiTokensPerMonth: 10_000_000 },
  team: { requestsPerSecond: 100, apiRequestsPerSecond: 200, maxApiKeys: 200, retentionDays: 365, maxProjects: 250, aiQueriesPerMonth: 20_000, aiTokensPerMonth: 50_000_000 },
};

/** A plan's limits as every answer carries them: snake_case, and the deprecated camelCase names beside them. */
export function limitsJson(plan: PlanName): PlanLimitsAnswer {
  // The chat's token allowance came after the camelCase names were deprecated: it has only its snake_case name.
  const { aiTokensPerMonth, ...limits } = PLANS[plan];
  return {
    requests_per_second: limits.requestsPerSecond,
    api_requests_per_second: limits.apiRequestsPerSecond,
    max_api_keys: limits.maxApiKeys,
    retention_days: limits.retentionDays,
    max_projects: limits.maxProjects,
    ai_queries_per_month: limits.aiQueriesPerMonth,
    ai_tokens_per_month: aiTokensPerMonth,
    ...limits,
  };
}

/** Plans above `plan` whose limit `limitOf` is higher than `needed - 1`, cheapest first: the upgrade offer of a 402. */
export function upgradesAllowing(plan: PlanName, needed: number, limitOf: (limits: PlanLimits) => number): PlanName[] {
  const from = PLAN_NAMES.indexOf(plan);
  return PLAN_NAMES.filter((name, index) => index > from && limitOf(PLANS[name]) >= needed);
}

/** Soft-deleted projects, keys and accounts can be restored for this long (SPEC.md Limits). */
export const RESTORE_WINDOW_DAYS = 30;
const DAY_MS = 24 * 60 * 60 * 1000;

export function restoreDeadline(deletedAt: Date): Date {
  return new Date(deletedAt.getTime() + RESTORE_WINDOW_DAYS * DAY_MS);
}

export function withinRestoreWindow(deletedAt: Date, now = new Date()): boolean {
  return now.getTime() < restoreDeadline(deletedAt).getTime();
}
