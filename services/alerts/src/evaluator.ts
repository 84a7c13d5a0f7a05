import { Type } from '@sinclair/typebox';
import { alertEventsTable, type AlertEventRow, type AnalyticsStore } from '@tlm/analytics-store';
import { PLANS, newId, type Logger, type PlanName } from '@tlm/core';
import { runPlan } from '@tlm/gql';
import { listRulesToEvaluate, recordEvaluation, takeLease, type AlertRuleRow, type MetadataStore } from '@tlm/metadata-store';
import { compileMetric, overWindow, singleValue } from './metrics';
import { WebhookBlockedError, postWebhook, type WebhookOptions } from './webhook';

export const evaluatorConfig = {
  ALERT_EVALUATION_INTERVAL_MS: Type.Integer({
    minimum: 1_000,
    default: 60_000,
    description: 'How often every enabled, unmuted alert rule is evaluated over its window (every minute by default).',
  }),
  WEBHOOK_TIMEOUT_MS: Type.Integer({ minimum: 100, default: 5_000, description: 'How long an alert webhook may take to answer.' }),
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: Type.Boolean({
    default: false,
    description:
      'Lets alert webhooks reach loopback, private, link-local and other non-public addresses; by default a webhook whose host is or resolves to one is not called.',
  }),
};

/** The webhook options of a service configured with evaluatorConfig. */
export function webhookOptions(config: { WEBHOOK_TIMEOUT_MS: number; WEBHOOK_ALLOW_PRIVATE_NETWORKS: boolean }): WebhookOptions {
  return { timeoutMs: config.WEBHOOK_TIMEOUT_MS, allowPrivateNetworks: config.WEBHOOK_ALLOW_PRIVATE_NETWORKS };
}

export interface EvaluatorDeps {
  metadata: MetadataStore;
  analytics: AnalyticsStore;
  logger: Logger;
  /** Names this process in the evaluation lease. */
  instanceId: string;
  webhook: WebhookOptions;
}

const COMPARE: Record<AlertRuleRow['comparator'], (value: number, threshold: number) => boolean> = {
  gt: (value, threshold) => value > threshold,
  gte: (value, threshold) => value >= threshold,
  lt: (value, threshold) => value < threshold,
  lte: (value, threshold) => value <= threshold,
};

/**
 * One evaluation pass (DECISIONS.md "Alerts"): each enabled, unmuted rule's metric over its window; when the
 * condition holds and the rule has not fired within the window, one alert event is written and the rule's webhooks
 * are called. A lease keeps the pass to one process in the fleet.
 */
export async function evaluateAlerts(deps: EvaluatorDeps, now = new Date()): Promise<{ evaluated: number; triggered: number }> {
  if (!(await takeLease(deps.metadata, 'alert-evaluation', deps.instanceId, 50))) return { evaluated: 0, triggered: 0 };
  let evaluated = 0;
  let triggered = 0;
  // Webhooks are called beside the evaluation, so a slow receiver delays no other rule (nor another tenant's).
  const notifications: Promise<void>[] = [];
  for (const rule of await listRulesToEvaluate(deps.metadata, now)) {
    try {
      const windowMs = rule.window_minutes * 60_000;
      const metric = compileMetric(rule.metric, 'metric');
      const answer = await runPlan(deps.analytics, metric.query, overWindow(metric, windowMs), {
        projectId: rule.project_id,
        retentionDays: PLANS[rule.plan as PlanName].retentionDays,
        now,
      });
      const value = singleValue(answer.data.results);
      const firedInWindow = rule.last_triggered_at !== null && now.getTime() - rule.last_triggered_at.getTime() < windowMs;
      // No value (an average over no rows) is no condition: "p95 below 100 ms" does not fire on an idle service.
      const fires = value !== null && COMPARE[rule.comparator](value, rule.threshold) && !firedInWindow;
      evaluated += 1;
      if (fires) {
        const event: AlertEventRow = {
          project_id: rule.project_id,
          triggered_at: now.getTime(),
          id: newId(),
          rule_id: rule.id,
          rule_name: rule.name,
          value: value!,
          threshold: rule.threshold,
          severity: rule.severity,
        };
        await deps.analytics.insert(alertEventsTable, [event]);
        triggered += 1;
        notifications.push(notify(deps, rule, event));
      }
      await recordEvaluation(deps.metadata, rule.id, now, value, fires);
    } catch (error) {
      deps.logger.error({ err: error, rule_id: rule.id }, 'alert rule evaluation failed');
    }
  }
  await Promise.all(notifications);
  return { evaluated, triggered };
}

/** POSTs the firing to each webhook channel; a failing webhook is logged, never retried into a second event. */
async function notify(deps: EvaluatorDeps, rule: AlertRuleRow, event: AlertEventRow): Promise<void> {
  const body = JSON.stringify({
    type: 'alert.triggered',
    rule: { id: rule.id, name: rule.name, metric: rule.metric, threshold: rule.threshold, comparator: rule.comparator, window_minutes: rule.window_minutes },
    event: { id: event.id, rule_id: event.rule_id, rule_name: event.rule_name, triggered_at: new Date(event.triggered_at).toISOString(), value: event.value, threshold: event.threshold, severity: event.severity },
  });
  await Promise.all(
    rule.channels.map(async (channel) => {
      try {
        const status = await postWebhook(channel.url, body, deps.webhook);
        if (status < 200 || status > 299) deps.logger.warn({ rule_id: rule.id, status }, 'alert webhook answered with an error');
      } catch (error) {
        if (error instanceof WebhookBlockedError) deps.logger.warn({ rule_id: rule.id, address: error.address }, 'alert webhook not called: not a public address');
        else deps.logger.warn({ rule_id: rule.id, err: error }, 'alert webhook failed');
      }
    }),
  );
}

/**
 * Runs `evaluateAlerts` every interval; a pass never overlaps the previous one, and a tick that comes while a pass
 * still runs is skipped rather than queued (queued ticks would pile up behind a slow pass).
 */
export function startAlertEvaluator(deps: EvaluatorDeps, intervalMs: number): { stop(): Promise<void> } {
  let running: Promise<unknown> = Promise.resolve();
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    running = evaluateAlerts(deps)
      .catch((error: unknown) => deps.logger.error({ err: error }, 'alert evaluation failed'))
      .finally(() => (busy = false));
  }, intervalMs);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}
