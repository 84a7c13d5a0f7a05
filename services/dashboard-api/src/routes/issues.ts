import { EmptyBody, IssueResolveBody } from '@tlm/api-schemas';
import { requestProject, requireMember, requireProject, requireUser } from '@tlm/auth';
import { isUuid, jsonBody, notFound, parseBody } from '@tlm/core';
import { applyIssueAction, type IssueAction } from '@tlm/issues';
import { Router } from 'express';
import type { DashboardDeps } from '../deps';
import { issueJson } from '../wire';


/** Each action from its request body; an absent body is an empty one. */
const ACTIONS: Record<IssueAction['action'], (body: unknown) => IssueAction> = {
  resolve: (body) => ({ action: 'resolve', release: parseBody(IssueResolveBody, body).release ?? null }),
  ignore: (body) => {
    parseBody(EmptyBody, body);
    return { action: 'ignore' };
  },
  unresolve: (body) => {
    parseBody(EmptyBody, body);
    return { action: 'unresolve' };
  },
};

/**
 * Issue actions (SPEC.md Dashboard API, Issue status): resolve (`{release?}`), ignore, unresolve, from any status.
 * They answer with the issue as it now is; issue reads go through GQL (`from:issues`).
 */
export function issueRoutes(deps: DashboardDeps): Router {
  const router = Router();
  const liveProject = [requireUser(deps.tokens, deps.metadata, deps.limiter), requireMember(deps.metadata, deps.limiter), requireProject(deps.metadata)];

  for (const [name, actionOf] of Object.entries(ACTIONS)) {
    router.post(`/api/orgs/:org/projects/:project/issues/:issue/${name}`, ...liveProject, jsonBody(), async (req, res) => {
      const action = actionOf(req.body ?? {});
      const issueId = String(req.params['issue']);
      const issue = isUuid(issueId) ? await applyIssueAction(deps, requestProject(res).id, issueId, action) : undefined;
      if (!issue) throw notFound('issue not found');
      res.json(issueJson(issue));
    });
  }
  return router;
}
