import { DeletedQuery, ForceQuery, NewKey } from '@tlm/api-schemas';
import {
  DEFAULT_SCOPES,
  PUBLIC_KEY_SCOPES,
  announceKeyChange,
  displayPrefix,
  generateApiKey,
  hashApiKey,
  requestMembership,
  requestProject,
  requireMember,
  requireProject,
  requireUser,
  type RateLimiter,
  type Region,
  type TokenIssuer,
} from '@tlm/auth';
import type { Bus } from '@tlm/bus';
import {
  PLANS,
  isUuid,
  jsonBody,
  newId,
  notFound,
  parseBody,
  parseQuery,
  quotaExceeded,
  upgradesAllowing,
  validationError,
  withinRestoreWindow,
  type PlanName,
} from '@tlm/core';
import {
  countKeysOfOrganization,
  findApiKey,
  insertApiKey,
  listApiKeys,
  lockOrganization,
  restoreApiKey,
  setApiKeyRevoked,
  softDeleteApiKey,
  type ApiKeyRow,
  type MetadataStore,
  type SqlClient,
} from '@tlm/metadata-store';
import { Router, type Request, type Response } from 'express';
import { keyJson } from './wire';

export interface KeyAdminDeps {
  metadata: MetadataStore;
  bus: Bus;
  tokens: TokenIssuer;
  /** Counts `/api` requests against the organization's dashboard budget. */
  limiter: RateLimiter;
}


/**
 * 402 with the quota and the plans allowing one more key: the key maximum counts every non-deleted key of the account.
 * The message offers what fits the action: a restore can also be forced past the maximum.
 */
async function ensureKeyRoom(sql: SqlClient, orgId: string, plan: PlanName, action: 'create' | 'restore'): Promise<void> {
  const used = await countKeysOfOrganization(sql, orgId);
  const limit = PLANS[plan].maxApiKeys;
  if (used < limit) return;
  const remedies = action === 'restore' ? 'upgrade, delete a key, or restore with force=true' : 'upgrade or delete a key';
  throw quotaExceeded(`the ${plan} plan allows ${limit} API keys across all projects; ${remedies}`, {
    limit,
    used,
    plan,
    upgrade: upgradesAllowing(plan, used + 1, (limits) => limits.maxApiKeys),
  });
}

/** The public DSN Sentry SDKs take: http(s)://<public key>@<host>/<dsn_id>. */
function sentryDsn(req: Request, key: string, dsnId: number): string {
  return `${req.protocol}://${key}@${req.get('host') ?? 'localhost'}/${dsnId}`;
}

export function keyAdminRoutes(deps: KeyAdminDeps): Router {
  const router = Router();
  const body = jsonBody();
  const member = [requireUser(deps.tokens, deps.metadata, deps.limiter), requireMember(deps.metadata, deps.limiter)];
  const project = [...member, requireProject(deps.metadata)];
  const base = '/api/orgs/:org/projects/:project/keys';

  router.post(base, ...project, body, async (req, res) => {
    const input = parseBody(NewKey, req.body);
    const scopes = input.scopes ?? DEFAULT_SCOPES[input.type];
    if (input.type === 'public' && scopes.some((scope) => !PUBLIC_KEY_SCOPES.includes(scope))) {
      throw validationError(`public keys may only hold ${PUBLIC_KEY_SCOPES.join(', ')}; use a secret key to read data`);
    }
    const { organization } = requestMembership(res);
    const target = requestProject(res);
    const region = organization.region as Region;
    const value = generateApiKey(input.type, region);
    const key = await deps.metadata.transaction(async (tx) => {
      // Serialises key creation per account, so two concurrent requests cannot both take the last slot.
      await lockOrganization(tx, organization.id);
      await ensureKeyRoom(tx, organization.id, organization.plan, 'create');
      return insertApiKey(tx, {
        id: newId(),
        projectId: target.id,
        orgId: organization.id,
        name: input.name,
        type: input.type,
        scopes,
        prefix: displayPrefix(value),
        keyHash: hashApiKey(value),
        region,
      });
    });
    res.status(201).json({
      ...keyJson(key, target.dsn_id),
      key: value,
      ...(input.type === 'public' ? { dsn: sentryDsn(req, value, target.dsn_id) } : {}),
    });
  });

  router.get(base, ...project, async (req, res) => {
    const keys = await listApiKeys(deps.metadata, requestProject(res).id, parseQuery(DeletedQuery, req.query).deleted === true);
    res.json({ keys: keys.map((key) => keyJson(key, requestProject(res).dsn_id)) });
  });

  /** The route's key; deleted keys are only reachable for restore. */
  async function routeKey(req: Request, res: Response, deleted: boolean): Promise<ApiKeyRow> {
    const id = String(req.params['key']);
    const key = isUuid(id) ? await findApiKey(deps.metadata, requestProject(res).id, id) : undefined;
    if (!key || (key.deleted_at !== null) !== deleted) throw notFound(deleted ? 'no deleted key with this id' : 'key not found');
    return key;
  }

  async function answer(res: Response, key: ApiKeyRow): Promise<void> {
    await announceKeyChange(deps.bus, { keyIds: [key.id] });
    res.json(keyJson(key, requestProject(res).dsn_id));
  }

  router.post(`${base}/:key/revoke`, ...project, async (req, res) => {
    const key = await routeKey(req, res, false);
    await answer(res, await setApiKeyRevoked(deps.metadata, key.id, true));
  });

  router.post(`${base}/:key/unrevoke`, ...project, async (req, res) => {
    const key = await routeKey(req, res, false);
    await answer(res, await setApiKeyRevoked(deps.metadata, key.id, false));
  });

  router.delete(`${base}/:key`, ...project, async (req, res) => {
    const key = await routeKey(req, res, false);
    await answer(res, await softDeleteApiKey(deps.metadata, key.id));
  });

  router.post(`${base}/:key/restore`, ...project, async (req, res) => {
    const { force } = parseQuery(ForceQuery, req.query);
    const key = await routeKey(req, res, true);
    if (!withinRestoreWindow(key.deleted_at!)) throw notFound('the restore window of this key has passed');
    const { organization } = requestMembership(res);
    const restored = await deps.metadata.transaction(async (tx) => {
      await lockOrganization(tx, organization.id);
      if (!force) await ensureKeyRoom(tx, organization.id, organization.plan, 'restore');
      return restoreApiKey(tx, key.id);
    });
    await answer(res, restored);
  });

  return router;
}
