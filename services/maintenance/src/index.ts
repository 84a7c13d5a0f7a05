import { Type } from '@sinclair/typebox';
import { bearerCredential, hashApiKey, sameDigest } from '@tlm/auth';
import { PLAN_NAMES, StringEnum, jsonBody, notFound, parseBody, unauthorized, type Logger } from '@tlm/core';
import { changePlan } from '@tlm/dashboard-api';
import { Router, type RequestHandler } from 'express';
import cron from 'node-cron';
import { runCleanup, type CleanupDeps } from './cleanup';

export { runCleanup, type CleanupDeps, type CleanupReport } from './cleanup';
export { namedPromotions, promoterConfig, promoterOptions, startPromoter, type Promoter, type PromoterOptions } from './promoter';

export const maintenanceConfig = {
  CLEANUP_CRON: Type.String({
    default: '17 3 * * *',
    description: 'When the daily cleanup runs (cron syntax, server time zone): restore windows and retention.',
  }),
  ADMIN_TOKEN: Type.Optional(
    Type.String({
      minLength: 16,
      secret: true,
      description: "Bearer token of the operator's endpoints (POST /admin/cleanup, PUT /admin/orgs/:org/plan); they are disabled when unset.",
    }),
  ),
};

export interface Maintenance {
  stop(): Promise<void>;
}

/** Schedules the daily cleanup; a run never overlaps the previous one. */
export function scheduleCleanup(deps: CleanupDeps, expression: string, logger: Logger): Maintenance {
  if (!cron.validate(expression)) throw new Error(`CLEANUP_CRON is not a cron expression: ${expression}`);
  const task = cron.schedule(
    expression,
    async () => {
      try {
        logger.info({ report: await runCleanup(deps) }, 'daily cleanup finished');
      } catch (error) {
        logger.error({ err: error }, 'daily cleanup failed');
      }
    },
    { name: 'tlm-cleanup', noOverlap: true },
  );
  return { stop: async () => void (await task.destroy()) };
}

const PlanBody = Type.Object({ plan: StringEnum(PLAN_NAMES) }, { additionalProperties: false });

/** The operator's endpoints take `Authorization: Bearer <ADMIN_TOKEN>`, compared in constant time; without one they are off. */
function requireAdmin(adminToken: string | undefined): RequestHandler {
  return (req, _res, next) => {
    if (!adminToken) throw notFound('the admin endpoint is disabled: set ADMIN_TOKEN');
    const given = bearerCredential(req.headers.authorization);
    if (!given || !sameDigest(hashApiKey(given), hashApiKey(adminToken))) throw unauthorized('invalid admin token');
    next();
  };
}

/**
 * The operator's endpoints: `POST /admin/cleanup` runs the cleanup now (DECISIONS.md: "on demand from an admin
 * command"); `PUT /admin/orgs/:org/plan` sets an organization's plan, which only the operator (or a billing provider)
 * may change.
 */
export function maintenanceRoutes(deps: CleanupDeps, adminToken: string | undefined): Router {
  const router = Router();
  const admin = requireAdmin(adminToken);
  router.post('/admin/cleanup', admin, async (_req, res) => {
    res.json(await runCleanup(deps));
  });
  router.put('/admin/orgs/:org/plan', admin, jsonBody(), async (req, res) => {
    const { plan } = parseBody(PlanBody, req.body);
    res.json(await changePlan(deps, String(req.params['org']), plan));
  });
  return router;
}
