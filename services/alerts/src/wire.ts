import type { AlertRuleSnapshotRow } from '@tlm/analytics-store';
import type { AlertDelivery, AlertRule, Slo } from '@tlm/api-schemas';
import { isoTime } from '@tlm/core';
import type { AlertDeliveryRow, AlertRuleRow, SloRow } from '@tlm/metadata-store';
import { redactedChannel } from './channels';

/** A rule as the API answers it; channels whole only to those who may change the rule (redactedChannel). */
export const ruleJson = (rule: AlertRuleRow, readOnly = false): AlertRule => ({
  id: rule.id,
  name: rule.name,
  metric: rule.metric,
  threshold: rule.threshold,
  comparator: rule.comparator,
  window_minutes: rule.window_minutes,
  severity: rule.severity,
  enabled: rule.enabled,
  muted_until: isoTime(rule.muted_until),
  channels: readOnly ? rule.channels.map(redactedChannel) : rule.channels,
  state: rule.state,
  firing_since: isoTime(rule.firing_since),
  last_evaluated_at: isoTime(rule.last_evaluated_at),
  last_value: rule.last_value,
  last_triggered_at: isoTime(rule.last_triggered_at),
  created_at: isoTime(rule.created_at),
  updated_at: isoTime(rule.updated_at),
});

export const deliveryJson = (delivery: AlertDeliveryRow): AlertDelivery => ({
  id: delivery.id,
  rule_id: delivery.rule_id,
  event_id: delivery.event_id,
  kind: delivery.kind,
  channel_index: delivery.channel_index,
  channel_type: delivery.channel_type,
  target: delivery.target,
  status: delivery.status,
  attempts: delivery.attempts,
  response_status: delivery.response_status,
  response_body: delivery.response_body,
  error: delivery.error,
  created_at: isoTime(delivery.created_at),
  updated_at: isoTime(delivery.updated_at),
});

/** The analytics snapshot behind `from:alerts`; a deleted rule leaves a tombstone so the newest version hides it. */
export const ruleSnapshot = (rule: AlertRuleRow, deleted = false): AlertRuleSnapshotRow => ({
  project_id: rule.project_id,
  id: rule.id,
  name: rule.name,
  metric: rule.metric,
  threshold: rule.threshold,
  comparator: rule.comparator,
  window_minutes: rule.window_minutes,
  severity: rule.severity,
  enabled: rule.enabled,
  muted_until: rule.muted_until ? rule.muted_until.getTime() : null,
  created_at: rule.created_at.getTime(),
  deleted,
  updated_at: deleted ? Date.now() : rule.updated_at.getTime(),
});

export interface SloStatus {
  current_percent: number | null;
  error_budget_remaining: number | null;
  good_count: number;
  total_count: number;
}

export const sloJson = (slo: SloRow, status: SloStatus): Slo => ({
  id: slo.id,
  name: slo.name,
  target_percent: slo.target_percent,
  good: slo.good,
  total: slo.total,
  window_days: slo.window_days,
  ...status,
  created_at: isoTime(slo.created_at),
  updated_at: isoTime(slo.updated_at),
});

/**
 * current_percent = good / total over the window; error_budget_remaining = the share of the allowed failures (100 -
 * target) not yet spent, in percent: 100 when nothing failed, 0 at the target, negative below it.
 */
export function sloStatus(target: number, good: number, total: number): SloStatus {
  if (total <= 0) return { current_percent: null, error_budget_remaining: null, good_count: good, total_count: total };
  const current = (good / total) * 100;
  const budget = 100 - target;
  const remaining = budget > 0 ? ((budget - (100 - current)) / budget) * 100 : current >= 100 ? 100 : -Infinity;
  return {
    current_percent: round(current),
    error_budget_remaining: Number.isFinite(remaining) ? round(remaining) : null,
    good_count: good,
    total_count: total,
  };
}

const round = (value: number) => Math.round(value * 1_000) / 1_000;
