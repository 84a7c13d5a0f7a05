import { Type, type Static, type TSchema } from '@sinclair/typebox';

/**
 * Alert rules, their channels and deliveries, and SLOs (DECISIONS.md "Alerts", "SLOs"; docs/api.md "Alerts"): the
 * alerts service validates with these and the web app takes its types from them.
 */

/** A string enum as JSON Schema `enum`, so ajv names the allowed values rather than every branch of a union. */
const Enum = <const T extends readonly string[]>(values: T) => Type.Unsafe<T[number]>({ type: 'string', enum: [...values] });
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const Time = Type.String({ description: 'ISO 8601 UTC with milliseconds' });

export const ALERT_CHANNEL_TYPES = ['webhook', 'email', 'slack', 'pagerduty'] as const;
/** Channels a rule may have. */
export const MAX_CHANNELS = 10;
export type AlertChannelType = (typeof ALERT_CHANNEL_TYPES)[number];

const HttpUrl = Type.String({ format: 'uri', pattern: '^https?://', maxLength: 2000 });

/**
 * A JSON POST signed with HMAC-SHA256 (`X-Tlm-Signature: t=<unix seconds>,v1=<hex>` of `<t>.<body>`); the secret is
 * generated when none is given and is shown to those who may change the rule.
 */
export const WebhookChannel = Type.Object(
  { type: Type.Literal('webhook'), url: HttpUrl, secret: Type.Optional(Type.String({ minLength: 16, maxLength: 200 })) },
  { additionalProperties: false },
);
/** A mail over the server's SMTP_URL. */
export const EmailChannel = Type.Object({ type: Type.Literal('email'), to: Type.String({ format: 'email', maxLength: 320 }) }, { additionalProperties: false });
/** A Slack incoming webhook (https://hooks.slack.com/services/…). */
export const SlackChannel = Type.Object({ type: Type.Literal('slack'), url: HttpUrl }, { additionalProperties: false });
/** A PagerDuty Events API v2 integration, by its routing (integration) key. */
export const PagerDutyChannel = Type.Object(
  { type: Type.Literal('pagerduty'), routing_key: Type.String({ pattern: '^[A-Za-z0-9]{8,64}$', title: '8 to 64 letters and digits, the integration key of an Events API v2 integration' }) },
  { additionalProperties: false },
);
export const CHANNEL_SCHEMAS = { webhook: WebhookChannel, email: EmailChannel, slack: SlackChannel, pagerduty: PagerDutyChannel } as const;

export const AlertChannel = Type.Union([WebhookChannel, EmailChannel, SlackChannel, PagerDutyChannel]);
export type AlertChannel = Static<typeof AlertChannel>;

export const COMPARATORS = ['gt', 'gte', 'lt', 'lte'] as const;
export const SEVERITIES = ['info', 'warning', 'critical'] as const;

const ruleFields = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  metric: Type.String({ minLength: 1, maxLength: 4000 }),
  // Bounded so that 1e400, which JSON.parse reads as Infinity, is refused rather than stored as a number no JSON holds.
  threshold: Type.Number({ minimum: -Number.MAX_VALUE, maximum: Number.MAX_VALUE }),
  comparator: Enum(COMPARATORS),
  window_minutes: Type.Integer({ minimum: 1, maximum: 10_080 }),
  severity: Enum(SEVERITIES),
  enabled: Type.Boolean(),
  channels: Type.Array(AlertChannel, { maxItems: MAX_CHANNELS }),
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
export type NewAlertRule = Static<typeof NewAlertRule>;

/** PUT /v1/alerts/:id: any of the fields. */
export const AlertRulePatch = Type.Partial(Type.Object(ruleFields), { additionalProperties: false });
export type AlertRulePatch = Static<typeof AlertRulePatch>;

/** POST /v1/alerts/:id/mute: minutes from now; 0 unmutes. */
export const Mute = Type.Object({ minutes: Type.Integer({ minimum: 0, maximum: 525_600 }) }, { additionalProperties: false });
export type Mute = Static<typeof Mute>;

/** POST /v1/alerts/:id/test: the index of the channel in the rule's `channels`. */
/**
 * The channel types and whether this server can send to each: e-mail needs the operator's SMTP_URL, and a rule with a
 * channel the server cannot call is refused.
 */
export const AlertChannelTypes = Type.Object({
  channel_types: Type.Array(
    Type.Object({
      type: Enum(ALERT_CHANNEL_TYPES),
      available: Type.Boolean(),
      reason: Type.Optional(Type.String({ description: 'Why the server cannot send to it, when it cannot' })),
    }),
  ),
});
export type AlertChannelTypes = Static<typeof AlertChannelTypes>;

export const ChannelTest = Type.Object({ channel: Type.Integer({ minimum: 0, maximum: 9 }) }, { additionalProperties: false });
export type ChannelTest = Static<typeof ChannelTest>;

/** POST /v1/alerts/preview: the metric over the last day, in buckets of the window. */
export const AlertPreviewBody = Type.Object({ metric: ruleFields.metric, window_minutes: ruleFields.window_minutes }, { additionalProperties: false });
export type AlertPreviewBody = Static<typeof AlertPreviewBody>;
export const AlertPreview = Type.Object({
  bucket_minutes: Type.Integer(),
  points: Type.Array(Type.Object({ time: Time, value: Nullable(Type.Number()) })),
});
export type AlertPreview = Static<typeof AlertPreview>;

export const ALERT_STATES = ['ok', 'firing'] as const;

export const AlertRule = Type.Object({
  id: Type.String(),
  name: Type.String(),
  metric: Type.String(),
  threshold: Type.Number(),
  comparator: Enum(COMPARATORS),
  window_minutes: Type.Integer(),
  severity: Enum(SEVERITIES),
  enabled: Type.Boolean(),
  muted_until: Nullable(Time),
  channels: Type.Array(AlertChannel),
  /** ok or firing, as of the last evaluation; `enabled` and `muted_until` tell whether it is evaluated at all. */
  state: Enum(ALERT_STATES),
  firing_since: Nullable(Time),
  last_evaluated_at: Nullable(Time),
  last_value: Nullable(Type.Number()),
  last_triggered_at: Nullable(Time),
  created_at: Time,
  updated_at: Time,
});
export type AlertRule = Static<typeof AlertRule>;

export const DELIVERY_KINDS = ['trigger', 'resolve', 'test'] as const;
export const DELIVERY_STATUSES = ['pending', 'sent', 'failed'] as const;

/** One notification to one channel: its attempts so far and the receiver's last answer or the error. */
export const AlertDelivery = Type.Object({
  id: Type.String(),
  rule_id: Type.String(),
  event_id: Nullable(Type.String()),
  kind: Enum(DELIVERY_KINDS),
  channel_index: Type.Integer(),
  channel_type: Enum(ALERT_CHANNEL_TYPES),
  target: Type.String(),
  status: Enum(DELIVERY_STATUSES),
  attempts: Type.Integer(),
  response_status: Nullable(Type.Integer()),
  /** The receiver's answer, its first 1,000 characters. */
  response_body: Nullable(Type.String()),
  error: Nullable(Type.String()),
  created_at: Time,
  updated_at: Time,
});
export type AlertDelivery = Static<typeof AlertDelivery>;

const sloFields = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  target_percent: Type.Number({ exclusiveMinimum: 0, maximum: 100 }),
  good: Type.String({ minLength: 1, maxLength: 4000 }),
  total: Type.String({ minLength: 1, maxLength: 4000 }),
  window_days: Type.Integer({ minimum: 1, maximum: 365 }),
};

export const NewSlo = Type.Object({ ...sloFields, window_days: Type.Optional(sloFields.window_days) }, { additionalProperties: false });
export type NewSlo = Static<typeof NewSlo>;
export const SloPatch = Type.Partial(Type.Object(sloFields), { additionalProperties: false });
export type SloPatch = Static<typeof SloPatch>;

export const Slo = Type.Object({
  id: Type.String(),
  name: Type.String(),
  target_percent: Type.Number(),
  good: Type.String(),
  total: Type.String(),
  window_days: Type.Integer(),
  current_percent: Nullable(Type.Number()),
  error_budget_remaining: Nullable(Type.Number()),
  good_count: Type.Number(),
  total_count: Type.Number(),
  created_at: Time,
  updated_at: Time,
});
export type Slo = Static<typeof Slo>;

/**
 * GET /v1/slos/:id/history: good and total per bucket over the SLO's window, and the burn rate of each bucket (its
 * error rate over the error rate the target allows; 1 spends the budget exactly over the window).
 */
export const SloHistory = Type.Object({
  bucket_minutes: Type.Integer(),
  points: Type.Array(Type.Object({ time: Time, good: Type.Number(), total: Type.Number(), burn_rate: Nullable(Type.Number()) })),
});
export type SloHistory = Static<typeof SloHistory>;
