import { alertsTable, type AnalyticsStore } from '@tlm/analytics-store';
import { grantsAny, keyGuards, requestKey, type KeyAccess } from '@tlm/auth';
import { PLANS, isUuid, jsonBody, newId, notFound, parseBody, type Logger } from '@tlm/core';
import { runPlan } from '@tlm/gql';
import {
  deleteAlertRule,
  deleteSlo,
  findAlertRule,
  findSlo,
  insertAlertRule,
  insertSlo,
  listAlertRules,
  listSlos,
  setAlertRuleMutedUntil,
  updateAlertRule,
  updateSlo,
  type AlertRuleRow,
  type MetadataStore,
  type SloRow,
} from '@tlm/metadata-store';
import { Router, type Request, type Response } from 'express';
import { compileCount, compileMetric, overWindow, singleValue } from './metrics';
import { AlertRulePatch, Mute, NewAlertRule, NewSlo, SloPatch, checkChannels, ruleJson, ruleSnapshot, sloJson, sloStatus } from './wire';

export { evaluateAlerts, evaluatorConfig, startAlertEvaluator, webhookOptions, type EvaluatorDeps } from './evaluator';
export { WebhookBlockedError, isPublicAddress, postWebhook, type WebhookOptions } from './webhook';

export interface AlertsDeps extends KeyAccess {
  metadata: MetadataStore;
  analytics: AnalyticsStore;
  logger: Logger;
}

const DAY_MS = 86_400_000;

export function alertRoutes(deps: AlertsDeps): Router {
  const router = Router();
  const body = jsonBody();
  // DECISIONS.md: data:read reads alert rules and data:write changes them; alerts:read/alerts:write grant exactly these.
  const reader = keyGuards(deps, 'data:read', 'alerts:read');
  const writer = keyGuards(deps, 'data:write', 'alerts:write');

  /** Whether the request's key may change rules, and so see their webhook URLs whole. */
  const mayWrite = (res: Response) => grantsAny(requestKey(res).scopes, ['data:write', 'alerts:write']);

  async function routeRule(req: Request, res: Response): Promise<AlertRuleRow> {
    const id = String(req.params['id']);
    const rule = isUuid(id) ? await findAlertRule(deps.metadata, requestKey(res).projectId, id) : undefined;
    if (!rule) throw notFound('alert rule not found');
    return rule;
  }

  async function snapshot(rule: AlertRuleRow, deleted = false): Promise<void> {
    await deps.analytics.insert(alertsTable, [ruleSnapshot(rule, deleted)]);
  }

  router.get('/v1/alerts', ...reader, async (_req, res) => {
    const readOnly = !mayWrite(res);
    res.json({ alerts: (await listAlertRules(deps.metadata, requestKey(res).projectId)).map((rule) => ruleJson(rule, readOnly)) });
  });

  router.post('/v1/alerts', ...writer, body, async (req, res) => {
    const input = parseBody(NewAlertRule, req.body);
    checkChannels(input.channels);
    compileMetric(input.metric, 'metric');
    const rule = await insertAlertRule(deps.metadata, newId(), requestKey(res).projectId, {
      name: input.name,
      metric: input.metric,
      threshold: input.threshold,
      comparator: input.comparator ?? 'gt',
      window_minutes: input.window_minutes,
      severity: input.severity ?? 'warning',
      enabled: input.enabled ?? true,
      channels: input.channels ?? [],
    });
    await snapshot(rule);
    res.status(201).json(ruleJson(rule));
  });

  router.get('/v1/alerts/:id', ...reader, async (req, res) => {
    res.json(ruleJson(await routeRule(req, res), !mayWrite(res)));
  });

  router.put('/v1/alerts/:id', ...writer, body, async (req, res) => {
    const current = await routeRule(req, res);
    const changes = parseBody(AlertRulePatch, req.body);
    checkChannels(changes.channels);
    if (changes.metric !== undefined) compileMetric(changes.metric, 'metric');
    const rule = await updateAlertRule(deps.metadata, current.id, {
      name: changes.name ?? current.name,
      metric: changes.metric ?? current.metric,
      threshold: changes.threshold ?? current.threshold,
      comparator: changes.comparator ?? current.comparator,
      window_minutes: changes.window_minutes ?? current.window_minutes,
      severity: changes.severity ?? current.severity,
      enabled: changes.enabled ?? current.enabled,
      channels: changes.channels ?? current.channels,
    });
    await snapshot(rule);
    res.json(ruleJson(rule));
  });

  router.delete('/v1/alerts/:id', ...writer, async (req, res) => {
    const rule = await routeRule(req, res);
    await deleteAlertRule(deps.metadata, rule.id);
    await snapshot(rule, true);
    res.status(204).end();
  });

  // DECISIONS.md: {minutes}; 0 unmutes.
  router.post('/v1/alerts/:id/mute', ...writer, body, async (req, res) => {
    const current = await routeRule(req, res);
    const { minutes } = parseBody(Mute, req.body);
    const rule = await setAlertRuleMutedUntil(deps.metadata, current.id, minutes === 0 ? null : new Date(Date.now() + minutes * 60_000));
    await snapshot(rule);
    res.json(ruleJson(rule));
  });

  async function sloAnswer(slo: SloRow, res: Response) {
    const key = requestKey(res);
    const guard = { projectId: key.projectId, retentionDays: PLANS[key.plan].retentionDays, now: new Date() };
    const count = async (text: string, field: string) => {
      const metric = compileMetric(text, field);
      return singleValue((await runPlan(deps.analytics, metric.query, overWindow(metric, slo.window_days * DAY_MS), guard)).data.results) ?? 0;
    };
    const [good, total] = await Promise.all([count(slo.good, 'good'), count(slo.total, 'total')]);
    return sloJson(slo, sloStatus(slo.target_percent, good, total));
  }

  async function routeSlo(req: Request, res: Response): Promise<SloRow> {
    const id = String(req.params['id']);
    const slo = isUuid(id) ? await findSlo(deps.metadata, requestKey(res).projectId, id) : undefined;
    if (!slo) throw notFound('SLO not found');
    return slo;
  }

  router.get('/v1/slos', ...reader, async (_req, res) => {
    const slos = await listSlos(deps.metadata, requestKey(res).projectId);
    res.json({ slos: await Promise.all(slos.map((slo) => sloAnswer(slo, res))) });
  });

  router.post('/v1/slos', ...writer, body, async (req, res) => {
    const input = parseBody(NewSlo, req.body);
    compileCount(input.good, 'good');
    compileCount(input.total, 'total');
    const slo = await insertSlo(deps.metadata, newId(), requestKey(res).projectId, { ...input, window_days: input.window_days ?? 30 });
    res.status(201).json(await sloAnswer(slo, res));
  });

  router.get('/v1/slos/:id', ...reader, async (req, res) => {
    res.json(await sloAnswer(await routeSlo(req, res), res));
  });

  router.put('/v1/slos/:id', ...writer, body, async (req, res) => {
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

  router.delete('/v1/slos/:id', ...writer, async (req, res) => {
    const slo = await routeSlo(req, res);
    await deleteSlo(deps.metadata, slo.id);
    res.status(204).end();
  });

  return router;
}
