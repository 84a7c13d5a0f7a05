import { createHmac, randomBytes } from 'node:crypto';
import { ALERT_CHANNEL_TYPES, CHANNEL_SCHEMAS, MAX_CHANNELS, type AlertChannel as ChannelInput, type AlertChannelTypes } from '@tlm/api-schemas';
import { ApiError, parseBody, validationError } from '@tlm/core';
import type { AlertChannel, AlertRuleRow } from '@tlm/metadata-store';
import type { Mailer } from '@tlm/runtime';
import { addressProblem, postWebhook, type ReceiverAnswer, type WebhookOptions } from './webhook';

/** What sending to channels needs: the webhook rules, the mailer and PagerDuty's Events API address. */
export interface ChannelSettings {
  webhook: WebhookOptions;
  mailer: Mailer;
  /** PAGERDUTY_EVENTS_URL: https://events.pagerduty.com/v2/enqueue unless configured. */
  pagerDutyUrl: string;
  /** The web app's address, for links to the rule. */
  publicUrl: string;
}

/** The header a webhook's signature travels in: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`. */
export const SIGNATURE_HEADER = 'X-Tlm-Signature';
/** The delivery's id, the same on each retry, so a receiver can drop a repeat. */
export const DELIVERY_HEADER = 'X-Tlm-Delivery';

/** The signature header's value for `body` sent at `unixSeconds`. */
export function signature(secret: string, unixSeconds: number, body: string): string {
  return `t=${unixSeconds},v1=${createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex')}`;
}

const newSecret = () => `whsec_${randomBytes(24).toString('base64url')}`;

/** One channel a rule cannot have: its place in the rule's list and why. */
export interface ChannelProblem {
  index: number;
  message: string;
}

/** Why a server without SMTP_URL refuses e-mail channels. */
const NO_MAIL = 'e-mail cannot be sent from this server: SMTP_URL is not configured';

/** Each channel type, and why this server cannot send to it when it cannot (what `refuseChannels` refuses by type). */
export function channelTypes(settings: ChannelSettings): AlertChannelTypes {
  return {
    channel_types: ALERT_CHANNEL_TYPES.map((type) =>
      type === 'email' && !settings.mailer.configured ? { type, available: false, reason: NO_MAIL } : { type, available: true },
    ),
  };
}

/**
 * Refuses, with 400 VALIDATION_ERROR, the channels of a create or update that the server would never deliver to,
 * every one of them at once: each is checked by the schema of its type (an unknown type, a field its type does not
 * have or needs), then, when it has its form, whether it can be called: a URL without a host, one that is or resolves
 * to a non-public address while WEBHOOK_ALLOW_PRIVATE_NETWORKS is off, or e-mail on a server without SMTP_URL. The
 * message names each (`channels[0].url: …; channels[2]: …`) and `details.channels` lists them by index. More channels
 * than a rule may have are left to the rule's schema, before any address is looked up.
 */
export async function refuseChannels(body: unknown, settings: ChannelSettings): Promise<void> {
  const channels = (body as { channels?: unknown } | null)?.channels;
  if (!Array.isArray(channels) || channels.length > MAX_CHANNELS) return;
  const problems: ChannelProblem[] = [];
  for (const [index, channel] of channels.entries()) {
    const message = formProblem(channel, index) ?? (await reachProblem(channel as ChannelInput, index, settings));
    if (message !== undefined) problems.push({ index, message });
  }
  if (problems.length > 0) throw validationError(problems.map((problem) => problem.message).join('; '), { channels: problems });
}

/** Why a channel does not have the form of its type, or undefined when it does. */
function formProblem(channel: unknown, index: number): string | undefined {
  const type = (channel as { type?: unknown } | null)?.type;
  if (typeof type !== 'string' || !(ALERT_CHANNEL_TYPES as readonly string[]).includes(type)) {
    return `channels[${index}].type must be one of ${ALERT_CHANNEL_TYPES.join(', ')}`;
  }
  try {
    parseBody(CHANNEL_SCHEMAS[type as keyof typeof CHANNEL_SCHEMAS], channel, `channels[${index}]`);
    return undefined;
  } catch (error) {
    if (error instanceof ApiError) return error.message;
    throw error;
  }
}

/** Why the server would never deliver to a channel of a valid form, or undefined when it can. */
async function reachProblem(channel: ChannelInput, index: number, settings: ChannelSettings): Promise<string | undefined> {
  if (channel.type === 'email') return settings.mailer.configured ? undefined : `channels[${index}]: ${NO_MAIL}`;
  if (channel.type === 'pagerduty') return undefined;
  const url = URL.canParse(channel.url) ? new URL(channel.url) : null;
  if (!url || url.hostname === '' || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    return `channels[${index}].url must be an http or https URL with a host`;
  }
  const problem = await addressProblem(channel.url, settings.webhook);
  return problem ? `channels[${index}].url: ${problem}` : undefined;
}

/**
 * The channels as stored: a webhook keeps the secret it was given, or the secret of the current channel with the same
 * URL (a form sends channels back without re-typing it), or gets a new one.
 */
export function withSecrets(channels: readonly ChannelInput[], current: readonly AlertChannel[] = []): AlertChannel[] {
  return channels.map((channel) => {
    if (channel.type !== 'webhook') return channel;
    const kept = current.find((candidate) => candidate.type === 'webhook' && candidate.url === channel.url);
    return { type: 'webhook', url: channel.url, secret: channel.secret ?? (kept?.type === 'webhook' ? kept.secret : newSecret()) };
  });
}

const origin = (url: string) => (URL.canParse(url) ? `${new URL(url).origin}/…` : '…');

/**
 * A channel as someone who may only read rules sees it: a URL's scheme and host (a Slack hook's path is its secret),
 * no webhook secret, a routing key's last four characters. Those who may change rules see channels whole.
 */
export function redactedChannel(channel: AlertChannel): ChannelInput {
  switch (channel.type) {
    case 'webhook':
      return { type: 'webhook', url: origin(channel.url) };
    case 'slack':
      return { type: 'slack', url: origin(channel.url) };
    case 'pagerduty':
      return { type: 'pagerduty', routing_key: `…${channel.routing_key.slice(-4)}` };
    case 'email':
      return channel;
  }
}

/** Where a delivery went, as the delivery record names it (readable by readers of the rule). */
export function channelTarget(channel: AlertChannel): string {
  const shown = redactedChannel(channel);
  return shown.type === 'email' ? shown.to : shown.type === 'pagerduty' ? `PagerDuty routing key ${shown.routing_key}` : shown.url;
}

/** What a notification tells: a rule starting to fire, recovering, or a test of one channel. */
export interface Notification {
  kind: 'trigger' | 'resolve' | 'test';
  rule: AlertRuleRow;
  orgId: string;
  /** The value of the evaluation that started or ended the firing; null for a test or no value. */
  value: number | null;
  at: Date;
  /** The alert event the firing is told by; null for a test. */
  eventId: string | null;
  /** Names the firing to receivers: PagerDuty's dedup_key, the same on trigger and resolve. */
  dedupKey: string;
}

/** The outcome of one attempt at one channel; `retry` says whether another attempt may succeed. */
export interface AttemptResult {
  ok: boolean;
  retry: boolean;
  responseStatus: number | null;
  responseBody: string | null;
}

const SYMBOL = { gt: '>', gte: '≥', lt: '<', lte: '≤' } as const;
const HEADLINE = { trigger: 'Firing', resolve: 'Resolved', test: 'Test notification' } as const;

export const ruleLink = (settings: ChannelSettings, notification: Notification) =>
  `${settings.publicUrl.replace(/\/+$/, '')}/orgs/${notification.orgId}/projects/${notification.rule.project_id}/alerts/${notification.rule.id}`;

const shownValue = (value: number | null) => (value === null ? 'no value' : String(value));
const condition = (rule: AlertRuleRow) => `${SYMBOL[rule.comparator]} ${rule.threshold}`;

/** The webhook's JSON: the rule, the event and what happened (docs/api.md "Webhook payload"). */
export function webhookPayload(notification: Notification, link: string): string {
  const { rule } = notification;
  return JSON.stringify({
    type: `alert.${notification.kind === 'trigger' ? 'triggered' : notification.kind === 'resolve' ? 'resolved' : 'test'}`,
    rule: { id: rule.id, name: rule.name, metric: rule.metric, threshold: rule.threshold, comparator: rule.comparator, window_minutes: rule.window_minutes, severity: rule.severity, url: link },
    event:
      notification.eventId === null
        ? null
        : { id: notification.eventId, rule_id: rule.id, rule_name: rule.name, value: notification.value, threshold: rule.threshold, severity: rule.severity },
    value: notification.value,
    at: notification.at.toISOString(),
    dedup_key: notification.dedupKey,
  });
}

/** Slack's mrkdwn needs &, < and > escaped (api.slack.com/reference/surfaces/formatting#escaping). */
const mrkdwn = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** An incoming-webhook message: `text` for notifications and clients without blocks, and the same told in `blocks`. */
export function slackPayload(notification: Notification, link: string): Record<string, unknown> {
  const { rule } = notification;
  const headline = `${HEADLINE[notification.kind]}: ${rule.name}`;
  return {
    text: `${headline} (value ${shownValue(notification.value)}, threshold ${condition(rule)} over ${rule.window_minutes} min) ${link}`,
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: headline.slice(0, 150) } },
      {
        type: 'section',
        fields: [
          { type: 'mrkdwn', text: `*Value*\n${shownValue(notification.value)}` },
          { type: 'mrkdwn', text: `*Threshold*\n${mrkdwn(condition(rule))}` },
          { type: 'mrkdwn', text: `*Window*\n${rule.window_minutes} min` },
          { type: 'mrkdwn', text: `*Severity*\n${rule.severity}` },
        ],
      },
      { type: 'section', text: { type: 'mrkdwn', text: `*Metric*\n\`${mrkdwn(rule.metric).slice(0, 2_900)}\`` } },
      { type: 'actions', elements: [{ type: 'button', text: { type: 'plain_text', text: 'Open the rule' }, url: link }] },
    ],
  };
}

/** PagerDuty Events API v2 (developer.pagerduty.com/docs/events-api-v2/trigger-events): trigger and resolve by dedup_key. */
export function pagerDutyPayload(routingKey: string, notification: Notification, action: 'trigger' | 'resolve', link: string): Record<string, unknown> {
  const { rule } = notification;
  if (action === 'resolve') return { routing_key: routingKey, event_action: 'resolve', dedup_key: notification.dedupKey };
  const summary = notification.kind === 'test' ? `Test notification: ${rule.name}` : `${rule.name}: ${shownValue(notification.value)} ${condition(rule)}`;
  return {
    routing_key: routingKey,
    event_action: 'trigger',
    dedup_key: notification.dedupKey,
    payload: {
      summary: summary.slice(0, 1024),
      source: 'tlm',
      severity: notification.kind === 'test' ? 'info' : rule.severity,
      timestamp: notification.at.toISOString(),
      component: rule.name,
      class: 'alert',
      custom_details: { metric: rule.metric, value: notification.value, comparator: rule.comparator, threshold: rule.threshold, window_minutes: rule.window_minutes, rule_id: rule.id, event_id: notification.eventId },
    },
    client: 'tlm',
    client_url: link,
    links: [{ href: link, text: 'Open the rule' }],
  };
}

/** The alert mail: subject and plain text naming the rule, the value, the threshold and the link. */
export function alertMail(notification: Notification, link: string): { subject: string; text: string } {
  const { rule } = notification;
  return {
    subject: `[${rule.severity}] ${HEADLINE[notification.kind]}: ${rule.name}`,
    text: [
      `${HEADLINE[notification.kind]}: ${rule.name}`,
      '',
      `Value: ${shownValue(notification.value)}`,
      `Threshold: ${condition(rule)} over ${rule.window_minutes} min`,
      `Metric: ${rule.metric}`,
      `Severity: ${rule.severity}`,
      `At: ${notification.at.toISOString()}`,
      '',
      `Open the rule: ${link}`,
    ].join('\n'),
  };
}

/** A receiver's status: 2xx delivered; 408, 429 and 5xx may pass on a later attempt, other answers will not. */
function fromAnswer(answer: ReceiverAnswer): AttemptResult {
  const ok = answer.status >= 200 && answer.status <= 299;
  const retry = !ok && (answer.status === 408 || answer.status === 429 || answer.status >= 500);
  return { ok, retry, responseStatus: answer.status, responseBody: answer.body };
}

/** One attempt at one channel; errors (refused connection, timeout, blocked address, SMTP refusal) propagate. */
export async function sendToChannel(channel: AlertChannel, notification: Notification, deliveryId: string, settings: ChannelSettings): Promise<AttemptResult> {
  const link = ruleLink(settings, notification);
  switch (channel.type) {
    case 'webhook': {
      const body = webhookPayload(notification, link);
      const signed = signature(channel.secret, Math.floor(Date.now() / 1000), body);
      return fromAnswer(await postWebhook(channel.url, body, settings.webhook, { [SIGNATURE_HEADER]: signed, [DELIVERY_HEADER]: deliveryId }));
    }
    case 'slack':
      return fromAnswer(await postWebhook(channel.url, JSON.stringify(slackPayload(notification, link)), settings.webhook));
    case 'pagerduty': {
      const action = notification.kind === 'resolve' ? 'resolve' : 'trigger';
      const result = fromAnswer(await postWebhook(settings.pagerDutyUrl, JSON.stringify(pagerDutyPayload(channel.routing_key, notification, action, link)), settings.webhook));
      // A test opens no incident that someone has to close: its trigger is resolved at once.
      if (result.ok && notification.kind === 'test') {
        await postWebhook(settings.pagerDutyUrl, JSON.stringify(pagerDutyPayload(channel.routing_key, notification, 'resolve', link)), settings.webhook);
      }
      return result;
    }
    case 'email': {
      const sent = await settings.mailer.send({ to: channel.to, ...alertMail(notification, link) });
      return { ok: true, retry: false, responseStatus: null, responseBody: sent.response };
    }
  }
}
