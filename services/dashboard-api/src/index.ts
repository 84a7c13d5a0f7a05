import { Router } from 'express';
import type { DashboardDeps } from './deps';
import { authRoutes } from './routes/auth';
import { organizationRoutes } from './routes/organizations';
import { projectRoutes } from './routes/projects';

export type { DashboardDeps } from './deps';
export { purgeAccount } from './accounts';

/** Every dashboard API route (`/api/auth`, `/api/orgs`, projects). */
export function dashboardRoutes(deps: DashboardDeps): Router {
  const router = Router();
  router.use(authRoutes(deps), organizationRoutes(deps), projectRoutes(deps));
  return router;
}
