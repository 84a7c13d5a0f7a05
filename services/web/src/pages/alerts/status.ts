import type { AlertChannel, AlertRule } from '@tlm/api-schemas';

/**
 * What a rule is doing, as its list and page show it: not evaluated (disabled, muted), not evaluated yet (pending: a
 * new rule, until the evaluator's next pass), or its last evaluation's state.
 */
export type RuleStatus = 'disabled' | 'muted' | 'pending' | 'firing' | 'ok';

export function ruleStatus(rule: AlertRule, now: number): RuleStatus {
  if (!rule.enabled) return 'disabled';
  if (rule.muted_until !== null && Date.parse(rule.muted_until) > now) return 'muted';
  if (rule.last_evaluated_at === null) return 'pending';
  return rule.state;
}

export const STATUS_BADGE: Record<RuleStatus, string> = {
  firing: 'badge badge-danger',
  ok: 'badge badge-ok',
  muted: 'badge badge-warn',
  pending: 'badge',
  disabled: 'badge',
};

export const COMPARATOR_SYMBOL: Record<AlertRule['comparator'], string> = { gt: '>', gte: '≥', lt: '<', lte: '≤' };

/** The condition in words: `count > 100 over 5 min`. */
export const conditionText = (rule: Pick<AlertRule, 'comparator' | 'threshold' | 'window_minutes'>) =>
  `${COMPARATOR_SYMBOL[rule.comparator]} ${rule.threshold} over ${rule.window_minutes} min`;

/**
 * A rule's evaluated value: whole numbers with their digits grouped, others to six significant digits, so the sum of
 * floating-point durations reads `195.58`, not `195.57999999999998`, and a small rate keeps its figures (`0.0123457`).
 */
export function formatRuleValue(value: number): string {
  if (Number.isInteger(value) || Math.abs(value) >= 100_000) return value.toLocaleString('en-US', { maximumFractionDigits: 0 });
  return value.toLocaleString('en-US', { maximumSignificantDigits: 6 });
}

export const CHANNEL_LABEL: Record<AlertChannel['type'], string> = { webhook: 'Webhook', email: 'E-mail', slack: 'Slack', pagerduty: 'PagerDuty' };

// The choices of the form, from the records above (keyed by the schema's types, so none is missing).
export const CHANNEL_TYPES = Object.keys(CHANNEL_LABEL) as AlertChannel['type'][];
export const COMPARATORS = Object.keys(COMPARATOR_SYMBOL) as AlertRule['comparator'][];
const SEVERITY_ORDER: Record<AlertRule['severity'], number> = { info: 0, warning: 1, critical: 2 };
export const SEVERITIES = Object.keys(SEVERITY_ORDER) as AlertRule['severity'][];

/** Where a channel goes, in a few words. */
export function channelSummary(channel: AlertChannel): string {
  switch (channel.type) {
    case 'email':
      return channel.to;
    case 'pagerduty':
      return `routing key ${channel.routing_key}`;
    default:
      return channel.url;
  }
}
