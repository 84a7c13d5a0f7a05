import { Type } from '@sinclair/typebox';
import type { AlertRuleSnapshotRow } from '@tlm/analytics-store';
import { StringEnum, isoTime, validationError } from '@tlm/core';
import type { AlertRuleRow, SloRow } from '@tlm/metadata-store';

const Channel = Type.Object({
  type: Type.Literal('webhook'),
  url: Type.String({ format: 'uri', pattern: '^https?://', maxLength: 2000 }),
});

/**
 * The schema's pattern lets `http://` or `http://:80/x` through; a webhook needs a URL that parses with a host, or the
 * evaluator would fail on it at every firing. Bad ones are 400, as the schema's refusals are.
 */
export function checkChannels(channels: readonly { url: string }[] | undefined): void {
  channels?.forEach((channel, index) => {
    const url = URL.canParse(channel.url) ? new URL(channel.url) : null;
    if (!url || url.hostname === '' || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      throw validationError(`channels[${index}].url must be an http or https URL with a host`);
    }
  });
}

const ruleFields = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  metric: Type.String({ minLength: 1, maxLength: 4000 }),
  // Bounded so that 1e400, which JSON.parse reads as Infinity, is refused rather than stored as a number no JSON holds.
  threshold: Type.Number({ minimum: -Number.MAX_VALUE, maximum: Number.MAX_VALUE }),
  comparator: StringEnum(['gt', 'gte', 'lt', 'lte'] as const),
  window_minutes: Type.Integer({ minimum: 1, maximum: 10_080 }),
  severity: StringEnum(['info', 'warning', 'critical'] as const),
  enabled: Type.Boolean(),
  channels: Type.Array(Channel, { maxItems: 10 }),
};

/** POST /v1/alerts: comparator defaults to gt, severity to warning, enabled to true (DECISIONS.md "Alerts"). */
export const NewAlertRule = Type.Object(
  {
    name: ruleFields.name,
    metric: ruleFields.metric,
    threshold: ruleFields.threshold,
    window_minutes: ruleFields.window_minutes,
    comparator: Type.Optional(ruleFields.comparator),
    severity: Type.Optional(ruleFields.severity),
    enabled: Type.Optional(ruleFields.enabled),
    channels: Type.Optional(ruleFields.channels),
  },
  { additionalProperties: false },
);

/** PUT /v1/alerts/:id: any of the fields. */
export const AlertRulePatch = Type.Partial(Type.Object(ruleFields), { additionalProperties: false });

export const Mute = Type.Object({ minutes: Type.Integer({ minimum: 0, maximum: 525_600 }) }, { additionalProperties: false });

const sloFields = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  target_percent: Type.Number({ exclusiveMinimum: 0, maximum: 100 }),
  good: Type.String({ minLength: 1, maxLength: 4000 }),
  total: Type.String({ minLength: 1, maxLength: 4000 }),
  window_days: Type.Integer({ minimum: 1, maximum: 365 }),
};

export const NewSlo = Type.Object(
  { ...sloFields, window_days: Type.Optional(sloFields.window_days) },
  { additionalProperties: false },
);
export const SloPatch = Type.Partial(Type.Object(sloFields), { additionalProperties: false });

/**
 * A webhook URL as a key that may only read rules sees it: scheme and host. Receivers' URLs often carry their secret
 * (a Slack or Teams hook's path), which a read-only key should not hand out; keys that may change rules see it whole.
 */
export function redactedChannels(channels: AlertRuleRow['channels']): AlertRuleRow['channels'] {
  // A URL stored before webhook URLs were checked may not parse; it shows as nothing at all.
  return channels.map((channel) => ({ ...channel, url: URL.canParse(channel.url) ? `${new URL(channel.url).origin}/…` : '…' }));
}

export const ruleJson = (rule: AlertRuleRow, readOnly = false) => ({
  id: rule.id,
  name: rule.name,
  metric: rule.metric,
  threshold: rule.threshold,
  comparator: rule.comparator,
  window_minutes: rule.window_minutes,
  severity: rule.severity,
  enabled: rule.enabled,
  muted_until: isoTime(rule.muted_until),
  channels: readOnly ? redactedChannels(rule.channels) : rule.channels,
  last_evaluated_at: isoTime(rule.last_evaluated_at),
  last_value: rule.last_value,
  last_triggered_at: isoTime(rule.last_triggered_at),
  created_at: isoTime(rule.created_at),
  updated_at: isoTime(rule.updated_at),
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

export const sloJson = (slo: SloRow, status: SloStatus) => ({
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
