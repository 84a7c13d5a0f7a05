import { Router } from 'express';
import type { DashboardDeps } from './deps';
import { authRoutes } from './routes/auth';
import { billingRoutes } from './routes/billing';
import { gdprRoutes } from './routes/gdpr';
import { invitationRoutes } from './routes/invitations';
import { issueRoutes } from './routes/issues';
import { organizationRoutes } from './routes/organizations';
import { passwordRoutes } from './routes/passwords';
import { projectRoutes } from './routes/projects';
import { usageRoutes } from './routes/usage';

export type { DashboardDeps } from './deps';
export { signupConfig } from './config';
export { billingConfig } from './routes/billing';
export { changePlan } from './plans';
export { purgeAccount, purgeProjectData } from './accounts';
export { RemoteAnalyticsStore, remoteAnalyticsConfig, remoteAnalyticsRoutes } from './remoteAnalytics';

/** Every dashboard API route (`/api/auth`, `/api/orgs`, projects, issue actions, the billing webhook). */
export function dashboardRoutes(deps: DashboardDeps): Router {
  const router = Router();
  router.use(authRoutes(deps), passwordRoutes(deps), organizationRoutes(deps), invitationRoutes(deps), projectRoutes(deps), issueRoutes(deps), gdprRoutes(deps), usageRoutes(deps), billingRoutes(deps, deps.billingWebhookSecret));
  return router;
}
