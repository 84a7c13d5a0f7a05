import { alertsTable, type AnalyticsStore } from '@tlm/analytics-store';
import { AlertPreviewBody, AlertRulePatch, ChannelTest, DeliveriesQuery, Mute, NewAlertRule, NewSlo, SloPatch, type AlertPreview, type SloHistory } from '@tlm/api-schemas';
import {
  grantsAny,
  keyGuards,
  requestKey,
  requestMembership,
  requestProject,
  requireMember,
  requireProject,
  requireUser,
  type KeyAccess,
  type TokenIssuer,
} from '@tlm/auth';
import { PLANS, isUuid, jsonBody, newId, notFound, parseBody, parseQuery, validationError, type Logger } from '@tlm/core';
import { runPlan, type Guard } from '@tlm/gql';
import {
  deleteAlertRule,
  deleteSlo,
  findAlertRule,
  findSlo,
  insertAlertRule,
  insertSlo,
  listAlertDeliveries,
  listAlertRules,
  listSlos,
  setAlertRuleMutedUntil,
  updateAlertRule,
  updateSlo,
  type AlertRuleRow,
  type MetadataStore,
  type SloRow,
} from '@tlm/metadata-store';
import { Router, type Request, type RequestHandler, type Response } from 'express';
import { channelTypes, refuseChannels, withSecrets } from './channels';
import type { Notifier } from './deliveries';
import { bucketStarts, compileCount, compileMetric, overWindow, seriesOver, seriesPoints, singleValue } from './metrics';
import { deliveryJson, ruleJson, ruleSnapshot, sloJson, sloStatus } from './wire';

export { DELIVERY_HEADER, SIGNATURE_HEADER, signature } from './channels';
export { Notifier, deliveryConfig, notifierSettings, type NotifierSettings } from './deliveries';
export { dedupKey, evaluateAlerts, evaluatorConfig, startAlertEvaluator, type EvaluatorDeps } from './evaluator';
export { WebhookBlockedError, isPublicAddress, postWebhook, type WebhookOptions } from './webhook';

export interface AlertsDeps extends KeyAccess {
  metadata: MetadataStore;
  analytics: AnalyticsStore;
  logger: Logger;
  /** Dashboard sessions, for the web app's mount of the routes. */
  tokens: TokenIssuer;
  /** Sends test notifications, and knows which channels can be called (its settings). */
  notifier: Notifier;
}

/** Whose rules a request reads or changes: the key's project, or the route's project for a member of its organization. */
interface RequestScope {
  projectId: string;
  orgId: string;
  retentionDays: number;
  /** Whether the caller may change rules, and so see their channels whole (webhook URLs, secrets, routing keys). */
  mayWrite: boolean;
}

const DAY_MS = 86_400_000;
const DELIVERY_LIMIT = 100;
/** Counting aggregates have a value (0) in a bucket without rows; the others have none there. */
const COUNTING = new Set(['count', 'count_distinct', 'sum']);

/**
 * The alert and SLO routes, mounted twice (docs/api.md "Alerts"): at `/v1` for API keys (DECISIONS.md: data:read or
 * alerts:read reads, data:write or alerts:write changes) and at `/api/orgs/:org/projects/:project` for members of the
 * project's organization (the web app), who may read and change them as they may the project's other resources.
 */
export function alertRoutes(deps: AlertsDeps): Router {
  const router = Router();
  const keyScope = (res: Response): RequestScope => {
    const key = requestKey(res);
    return { projectId: key.projectId, orgId: key.orgId, retentionDays: key.retentionDays, mayWrite: grantsAny(key.scopes, ['data:write', 'alerts:write']) };
  };
  const memberScope = (res: Response): RequestScope => {
    const { organization } = requestMembership(res);
    return { projectId: requestProject(res).id, orgId: organization.id, retentionDays: PLANS[organization.plan].retentionDays, mayWrite: true };
  };
  const member = [requireUser(deps.tokens, deps.metadata, deps.limiter), requireMember(deps.metadata, deps.limiter), requireProject(deps.metadata)];
  router.use('/v1', projectAlertRoutes(deps, keyGuards(deps, 'data:read', 'alerts:read'), keyGuards(deps, 'data:write', 'alerts:write'), keyScope));
  router.use('/api/orgs/:org/projects/:project', projectAlertRoutes(deps, member, member, memberScope));
  return router;
}

function projectAlertRoutes(deps: AlertsDeps, reader: RequestHandler[], writer: RequestHandler[], scopeOf: (res: Response) => RequestScope): Router {
  const router = Router({ mergeParams: true });
  const body = jsonBody();
  const channelSettings = deps.notifier.settings;
  const guardOf = (res: Response): Guard => {
    const scope = scopeOf(res);
    return { projectId: scope.projectId, retentionDays: scope.retentionDays, now: new Date() };
  };

  async function routeRule(req: Request, res: Response): Promise<AlertRuleRow> {
    const id = String(req.params['id']);
    const rule = isUuid(id) ? await findAlertRule(deps.metadata, scopeOf(res).projectId, id) : undefined;
    if (!rule) throw notFound('alert rule not found');
    return rule;
  }

  async function snapshot(rule: AlertRuleRow, deleted = false): Promise<void> {
    await deps.analytics.insert(alertsTable, [ruleSnapshot(rule, deleted)]);
  }

  router.get('/alerts', ...reader, async (_req, res) => {
    const scope = scopeOf(res);
    res.json({ alerts: (await listAlertRules(deps.metadata, scope.projectId)).map((rule) => ruleJson(rule, !scope.mayWrite)) });
  });

  router.post('/alerts', ...writer, body, async (req, res) => {
    await refuseChannels(req.body, channelSettings);
    const input = parseBody(NewAlertRule, req.body);
    compileMetric(input.metric, 'metric');
    const rule = await insertAlertRule(deps.metadata, newId(), scopeOf(res).projectId, {
      name: input.name,
      metric: input.metric,
      threshold: input.threshold,
      comparator: input.comparator ?? 'gt',
      window_minutes: input.window_minutes,
      severity: input.severity ?? 'warning',
      enabled: input.enabled ?? true,
      channels: withSecrets(input.channels ?? []),
    });
    await snapshot(rule);
    res.status(201).json(ruleJson(rule));
  });

  // The form's preview: the metric over the last day in buckets of the rule's window, each comparable to the threshold.
  router.post('/alerts/preview', ...reader, body, async (req, res) => {
    const input = parseBody(AlertPreviewBody, req.body);
    const metric = compileMetric(input.metric, 'metric');
    const bucketMinutes = Math.min(input.window_minutes, 1_440);
    const guard = guardOf(res);
    const answer = await runPlan(deps.analytics, metric.query, seriesOver(metric, DAY_MS, bucketMinutes), guard);
    const values = seriesPoints(answer.data.results);
    const empty = COUNTING.has(metric.plan.aggregate!.func) ? 0 : null;
    const preview: AlertPreview = {
      bucket_minutes: bucketMinutes,
      points: bucketStarts(guard.now, DAY_MS, bucketMinutes).map((time) => ({ time, value: values.has(time) ? values.get(time)! : empty })),
    };
    res.json(preview);
  });

  // Before /alerts/:id, which would take its name for a rule's id.
  router.get('/alerts/channel-types', ...reader, (_req, res) => {
    res.json(channelTypes(channelSettings));
  });

  router.get('/alerts/:id', ...reader, async (req, res) => {
    res.json(ruleJson(await routeRule(req, res), !scopeOf(res).mayWrite));
  });

  router.put('/alerts/:id', ...writer, body, async (req, res) => {
    const current = await routeRule(req, res);
    await refuseChannels(req.body, channelSettings);
    const changes = parseBody(AlertRulePatch, req.body);
    if (changes.metric !== undefined) compileMetric(changes.metric, 'metric');
    const rule = await updateAlertRule(deps.metadata, current.id, {
      name: changes.name ?? current.name,
      metric: changes.metric ?? current.metric,
      threshold: changes.threshold ?? current.threshold,
      comparator: changes.comparator ?? current.comparator,
      window_minutes: changes.window_minutes ?? current.window_minutes,
      severity: changes.severity ?? current.severity,
      enabled: changes.enabled ?? current.enabled,
      channels: changes.channels ? withSecrets(changes.channels, current.channels) : current.channels,
    });
    await snapshot(rule);
    res.json(ruleJson(rule));
  });

  router.delete('/alerts/:id', ...writer, async (req, res) => {
    const rule = await routeRule(req, res);
    await deleteAlertRule(deps.metadata, rule.id);
    await snapshot(rule, true);
    res.status(204).end();
  });

  // DECISIONS.md: {minutes}; 0 unmutes.
  router.post('/alerts/:id/mute', ...writer, body, async (req, res) => {
    const current = await routeRule(req, res);
    const { minutes } = parseBody(Mute, req.body);
    const rule = await setAlertRuleMutedUntil(deps.metadata, current.id, minutes === 0 ? null : new Date(Date.now() + minutes * 60_000));
    await snapshot(rule);
    res.json(ruleJson(rule));
  });

  // One attempt at one channel, answered with its delivery (sent or failed) and recorded with the rule's others.
  router.post('/alerts/:id/test', ...writer, body, async (req, res) => {
    const rule = await routeRule(req, res);
    const { channel } = parseBody(ChannelTest, req.body);
    if (channel >= rule.channels.length) {
      throw validationError(`channel must be the index of one of the rule's ${rule.channels.length} channels`);
    }
    const notification = { kind: 'test' as const, rule, orgId: scopeOf(res).orgId, value: rule.last_value, at: new Date(), eventId: null, dedupKey: `tlm-test-${newId()}` };
    res.json(deliveryJson(await deps.notifier.test(notification, channel)));
  });

  router.get('/alerts/:id/deliveries', ...reader, async (req, res) => {
    const rule = await routeRule(req, res);
    const { event_id: eventId } = parseQuery(DeliveriesQuery, req.query);
    const deliveries = await listAlertDeliveries(deps.metadata, rule.project_id, rule.id, { ...(eventId === undefined ? {} : { eventId }), limit: DELIVERY_LIMIT });
    res.json({ deliveries: deliveries.map(deliveryJson) });
  });

  const countOver = async (slo: SloRow, text: string, field: string, guard: Guard) => {
    const metric = compileMetric(text, field);
    return singleValue((await runPlan(deps.analytics, metric.query, overWindow(metric, slo.window_days * DAY_MS), guard)).data.results) ?? 0;
  };

  async function sloAnswer(slo: SloRow, res: Response) {
    const guard = guardOf(res);
    const [good, total] = await Promise.all([countOver(slo, slo.good, 'good', guard), countOver(slo, slo.total, 'total', guard)]);
    return sloJson(slo, sloStatus(slo.target_percent, good, total));
  }

  async function routeSlo(req: Request, res: Response): Promise<SloRow> {
    const id = String(req.params['id']);
    const slo = isUuid(id) ? await findSlo(deps.metadata, scopeOf(res).projectId, id) : undefined;
    if (!slo) throw notFound('SLO not found');
    return slo;
  }

  router.get('/slos', ...reader, async (_req, res) => {
    const slos = await listSlos(deps.metadata, scopeOf(res).projectId);
    res.json({ slos: await Promise.all(slos.map((slo) => sloAnswer(slo, res))) });
  });

  router.post('/slos', ...writer, body, async (req, res) => {
    const input = parseBody(NewSlo, req.body);
    compileCount(input.good, 'good');
    compileCount(input.total, 'total');
    const slo = await insertSlo(deps.metadata, newId(), scopeOf(res).projectId, { ...input, window_days: input.window_days ?? 30 });
    res.status(201).json(await sloAnswer(slo, res));
  });

  router.get('/slos/:id', ...reader, async (req, res) => {
    res.json(await sloAnswer(await routeSlo(req, res), res));
  });

  // Good and total per bucket over the SLO's window, and each bucket's burn rate (docs/api.md "SLOs").
  router.get('/slos/:id/history', ...reader, async (req, res) => {
    const slo = await routeSlo(req, res);
    const guard = guardOf(res);
    // A window longer than the plan keeps data counts only the days kept: the history covers those, not days of nothing.
    const days = Math.min(slo.window_days, guard.retentionDays);
    const rangeMs = days * DAY_MS;
    const bucketMinutes = days <= 1 ? 30 : days <= 7 ? 180 : 1_440;
    const series = async (text: string, field: string) => {
      const metric = compileCount(text, field);
      return seriesPoints((await runPlan(deps.analytics, metric.query, seriesOver(metric, rangeMs, bucketMinutes), guard)).data.results);
    };
    const [good, total] = await Promise.all([series(slo.good, 'good'), series(slo.total, 'total')]);
    const allowed = (100 - slo.target_percent) / 100;
    const history: SloHistory = {
      bucket_minutes: bucketMinutes,
      points: bucketStarts(guard.now, rangeMs, bucketMinutes).map((time) => {
        const goodCount = good.get(time) ?? 0;
        const totalCount = total.get(time) ?? 0;
        const failed = Math.max(totalCount - goodCount, 0) / totalCount;
        const burnRate = totalCount <= 0 ? null : allowed > 0 ? Math.round((failed / allowed) * 1_000) / 1_000 : failed === 0 ? 0 : null;
        return { time, good: goodCount, total: totalCount, burn_rate: burnRate };
      }),
    };
    res.json(history);
  });

  router.put('/slos/:id', ...writer, body, async (req, res) => {
    const current = await routeSlo(req, res);
    const changes = parseBody(SloPatch, req.body);
    if (changes.good !== undefined) compileCount(changes.good, 'good');
    if (changes.total !== undefined) compileCount(changes.total, 'total');
    const slo = await updateSlo(deps.metadata, current.id, {
      name: changes.name ?? current.name,
      target_percent: changes.target_percent ?? current.target_percent,
      good: changes.good ?? current.good,
      total: changes.total ?? current.total,
      window_days: changes.window_days ?? current.window_days,
    });
    res.json(await sloAnswer(slo, res));
  });

  router.delete('/slos/:id', ...writer, async (req, res) => {
    const slo = await routeSlo(req, res);
    await deleteSlo(deps.metadata, slo.id);
    res.status(204).end();
  });

  return router;
}
