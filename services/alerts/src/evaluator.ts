import { Type } from '@sinclair/typebox';
import { alertEventsTable, type AlertEventRow, type AnalyticsStore } from '@tlm/analytics-store';
import { PLANS, newId, type Logger, type PlanName } from '@tlm/core';
import { runPlan } from '@tlm/gql';
import {
  listRulesToEvaluate,
  recordEvaluation,
  takeLease,
  type AlertRuleRow,
  type Evaluation,
  type MetadataStore,
  type RuleToEvaluate,
} from '@tlm/metadata-store';
import { deliveryConfig, type Notifier } from './deliveries';
import { compileMetric, overWindow, singleValue } from './metrics';

export const evaluatorConfig = {
  ALERT_EVALUATION_INTERVAL_MS: Type.Integer({
    minimum: 1_000,
    default: 60_000,
    description: 'How often every enabled, unmuted alert rule is evaluated over its window (every minute by default).',
  }),
  ...deliveryConfig,
};

export interface EvaluatorDeps {
  metadata: MetadataStore;
  analytics: AnalyticsStore;
  logger: Logger;
  /** Names this process in the evaluation lease. */
  instanceId: string;
  notifier: Notifier;
}

const COMPARE: Record<AlertRuleRow['comparator'], (value: number, threshold: number) => boolean> = {
  gt: (value, threshold) => value > threshold,
  gte: (value, threshold) => value >= threshold,
  lt: (value, threshold) => value < threshold,
  lte: (value, threshold) => value <= threshold,
};

/**
 * One evaluation pass (DECISIONS.md "Alerts"): each enabled, unmuted rule's metric over its window; when the
 * condition holds and the rule has not fired within the window, one alert event is written. Notifications follow the
 * rule's state instead: its channels hear once when it starts firing and once when it recovers (docs/decisions.md
 * "Alerts"). A lease keeps the pass to one process in the fleet.
 */
export async function evaluateAlerts(deps: EvaluatorDeps, now = new Date()): Promise<{ evaluated: number; triggered: number }> {
  if (!(await takeLease(deps.metadata, 'alert-evaluation', deps.instanceId, 50))) return { evaluated: 0, triggered: 0 };
  let evaluated = 0;
  let triggered = 0;
  await deps.notifier.failAbandoned(now);
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
      // No value (an average over no rows) is no condition: "p95 below 100 ms" does not fire on an idle service.
      const holds = value !== null && COMPARE[rule.comparator](value, rule.threshold);
      const firedInWindow = rule.last_triggered_at !== null && now.getTime() - rule.last_triggered_at.getTime() < windowMs;
      evaluated += 1;
      let eventId: string | null = null;
      if (holds && !firedInWindow) {
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
        eventId = event.id;
        triggered += 1;
      }
      const evaluation = transition(rule, { at: now, value, eventId }, holds);
      await recordEvaluation(deps.metadata, rule.id, evaluation);
      if (evaluation.state !== rule.state && rule.channels.length > 0) {
        const firing = evaluation.state === 'firing' ? evaluation : { firingId: rule.firing_id, firingEventId: rule.firing_event_id };
        await deps.notifier.notify({
          kind: evaluation.state === 'firing' ? 'trigger' : 'resolve',
          rule,
          orgId: rule.org_id,
          value,
          at: now,
          eventId: firing.firingEventId,
          dedupKey: dedupKey(rule.id, firing.firingId ?? rule.id),
        });
      }
    } catch (error) {
      deps.logger.error({ err: error, rule_id: rule.id }, 'alert rule evaluation failed');
    }
  }
  return { evaluated, triggered };
}

/** Names one firing of a rule to receivers: PagerDuty's dedup_key of its trigger and its resolve. */
export const dedupKey = (ruleId: string, firingId: string) => `tlm-alert-${ruleId}-${firingId}`;

/**
 * The rule's state after an evaluation: ok becomes firing when the condition holds (a new firing, told by the event
 * written now or the one of the window that kept it from being written), firing becomes ok when it no longer holds.
 */
function transition(rule: RuleToEvaluate, seen: { at: Date; value: number | null; eventId: string | null }, holds: boolean): Evaluation {
  if (holds && rule.state === 'ok') {
    return { ...seen, state: 'firing', firingId: newId(), firingSince: seen.at, firingEventId: seen.eventId ?? rule.last_event_id };
  }
  if (!holds && rule.state === 'firing') return { ...seen, state: 'ok', firingId: null, firingSince: null, firingEventId: null };
  return { ...seen, state: rule.state, firingId: rule.firing_id, firingSince: rule.firing_since, firingEventId: rule.firing_event_id };
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
      await deps.notifier.drain();
    },
  };
}
