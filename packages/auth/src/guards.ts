import { PLANS, forbidden, isUuid, notFound, unauthorized } from '@tlm/core';
import {
  findMembership,
  findProject,
  findUserById,
  type OrganizationRow,
  type ProjectRow,
  type Role,
  type SqlClient,
} from '@tlm/metadata-store';
import type { RequestHandler, Response } from 'express';
import { API_USER_REQUESTS_PER_SECOND, apiBudget, takeApiBudget } from './apiRateLimit';
import type { RateLimiter } from './rateLimit';
import type { KeyResolver, ResolvedKey } from './resolver';
import { grantsAny, type Scope } from './scopes';
import { CSRF_HEADER, bearerCredential, dashboardCredential, lacksCsrfProof } from './session';
import type { TokenIssuer } from './tokens';

/** `/v1` guard: the bearer API key must resolve; the project comes from the key. */
export function requireApiKey(resolver: KeyResolver): RequestHandler {
  return async (req, res, next) => {
    const raw = bearerCredential(req.headers.authorization);
    if (!raw) throw unauthorized('missing API key: send Authorization: Bearer <key>');
    const key = await resolver.resolve(raw);
    if (!key) throw unauthorized('invalid, revoked or deleted API key');
    res.locals['apiKey'] = key;
    next();
  };
}

/** Accepts the request when the key holds `*` or any of `accepted`. */
export function requireScope(...accepted: Scope[]): RequestHandler {
  return (_req, res, next) => {
    const key = requestKey(res);
    if (!grantsAny(key.scopes, accepted)) {
      throw forbidden(`this key lacks the ${accepted.join(' or ')} scope`, { required: accepted });
    }
    next();
  };
}

export function requestKey(res: Response): ResolvedKey {
  return res.locals['apiKey'] as ResolvedKey;
}

export interface SessionUser {
  id: string;
  email: string;
  name: string | null;
}

/**
 * `/api` guard: a valid dashboard JWT of a live account, from the Bearer header or the web app's session cookie.
 * Cookie-authenticated writes must carry the CSRF header, which a cross-site page cannot send. A route of no
 * organization counts against the person's own budget; a route naming one counts against it in `requireMember`.
 */
export function requireUser(tokens: TokenIssuer, store: SqlClient, limiter: RateLimiter): RequestHandler {
  return async (req, res, next) => {
    const credential = dashboardCredential(req);
    if (!credential) throw unauthorized('missing token: send Authorization: Bearer <JWT> or log in');
    if (credential.via === 'cookie' && lacksCsrfProof(req)) {
      throw forbidden(`a write authenticated by the session cookie must send the ${CSRF_HEADER} header`);
    }
    const claims = await tokens.verify(credential.token);
    const user = claims ? await findUserById(store, claims.userId) : undefined;
    if (!user || user.deleted_at || claims!.sessionEpoch !== user.session_epoch) throw unauthorized('invalid or expired token');
    if (req.params['org'] === undefined) takeApiBudget(limiter, apiBudget.user(user.id), API_USER_REQUESTS_PER_SECOND);
    res.locals['user'] = { id: user.id, email: user.email, name: user.name } satisfies SessionUser;
    next();
  };
}

export function sessionUser(res: Response): SessionUser {
  return res.locals['user'] as SessionUser;
}

export interface Membership {
  organization: OrganizationRow;
  role: Role;
}

/**
 * The `:org` route parameter must be an organization the user belongs to. Outsiders get 404, so the existence
 * of other organizations is not revealed; members asking for an owner-only action get 403. Each request of a
 * member counts against the organization's `/api` budget, its plan's `apiRequestsPerSecond`.
 */
export function requireMember(store: SqlClient, limiter: RateLimiter, options: { ownerOnly?: boolean } = {}): RequestHandler {
  return async (req, res, next) => {
    const orgId = String(req.params['org'] ?? '');
    const membership = isUuid(orgId) ? await findMembership(store, orgId, sessionUser(res).id) : undefined;
    if (!membership) throw notFound('organization not found');
    takeApiBudget(limiter, apiBudget.organization(membership.id), PLANS[membership.plan].apiRequestsPerSecond);
    if (options.ownerOnly && membership.role !== 'owner') throw forbidden('only an owner of this organization may do this');
    const { role, ...organization } = membership;
    res.locals['membership'] = { organization, role } satisfies Membership;
    next();
  };
}

export function requestMembership(res: Response): Membership {
  return res.locals['membership'] as Membership;
}

/** The `:project` route parameter must be a project of the route's organization; live unless `includeDeleted`. */
export function requireProject(store: SqlClient, options: { includeDeleted?: boolean } = {}): RequestHandler {
  return async (req, res, next) => {
    const projectId = String(req.params['project'] ?? '');
    const orgId = requestMembership(res).organization.id;
    const project = isUuid(projectId) ? await findProject(store, orgId, projectId) : undefined;
    if (!project || (project.deleted_at && !options.includeDeleted)) throw notFound('project not found');
    res.locals['project'] = project;
    next();
  };
}

export function requestProject(res: Response): ProjectRow {
  return res.locals['project'] as ProjectRow;
}
