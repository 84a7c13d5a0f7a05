import { Type } from '@sinclair/typebox';
import { bearerCredential, hashApiKey, sameDigest } from '@tlm/auth';
import { notFound, unauthorized, type Logger } from '@tlm/core';
import { Router } from 'express';
import cron from 'node-cron';
import { runCleanup, type CleanupDeps } from './cleanup';

export { runCleanup, type CleanupDeps, type CleanupReport } from './cleanup';

export const maintenanceConfig = {
  CLEANUP_CRON: Type.String({
    default: '17 3 * * *',
    description: 'When the daily cleanup runs (cron syntax, server time zone): restore windows and retention.',
  }),
  ADMIN_TOKEN: Type.Optional(
    Type.String({ minLength: 16, secret: true, description: 'Bearer token of POST /admin/cleanup; the endpoint is disabled when unset.' }),
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

/** `POST /admin/cleanup` runs the cleanup now (DECISIONS.md: "on demand from an admin command"). */
export function maintenanceRoutes(deps: CleanupDeps, adminToken: string | undefined): Router {
  const router = Router();
  router.post('/admin/cleanup', async (req, res) => {
    if (!adminToken) throw notFound('the admin endpoint is disabled: set ADMIN_TOKEN');
    const given = bearerCredential(req.headers.authorization);
    if (!given || !sameDigest(hashApiKey(given), hashApiKey(adminToken))) throw unauthorized('invalid admin token');
    res.json(await runCleanup(deps));
  });
  return router;
}
