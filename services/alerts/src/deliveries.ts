import { Type } from '@sinclair/typebox';
import { newId, type Logger } from '@tlm/core';
import {
  failAbandonedDeliveries,
  insertAlertDeliveries,
  recordDeliveryAttempt,
  type AlertChannel,
  type AlertDeliveryRow,
  type MetadataStore,
  type NewAlertDelivery,
} from '@tlm/metadata-store';
import type { Mailer } from '@tlm/runtime';
import { channelTarget, sendToChannel, type AttemptResult, type ChannelSettings, type Notification } from './channels';
import { WebhookBlockedError } from './webhook';

export const deliveryConfig = {
  WEBHOOK_TIMEOUT_MS: Type.Integer({ minimum: 100, default: 5_000, description: 'How long an alert webhook, Slack or PagerDuty may take to answer.' }),
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: Type.Boolean({
    default: false,
    description:
      'Lets alert webhooks and Slack URLs reach loopback, private, link-local and other non-public addresses; by default a rule naming one is refused and a host that resolves to one is not called.',
  }),
  PAGERDUTY_EVENTS_URL: Type.String({
    pattern: '^https?://',
    default: 'https://events.pagerduty.com/v2/enqueue',
    description: "PagerDuty's Events API v2 address, where PagerDuty channels send their trigger and resolve events.",
  }),
  ALERT_DELIVERY_ATTEMPTS: Type.Integer({ minimum: 1, maximum: 10, default: 4, description: 'Attempts at each alert notification before its delivery is failed.' }),
  ALERT_DELIVERY_BACKOFF_MS: Type.Integer({
    minimum: 10,
    default: 2_000,
    description: 'The wait before the second attempt at a notification; each later wait doubles (2 s, 4 s, 8 s by default).',
  }),
};

export interface NotifierSettings extends ChannelSettings {
  attempts: number;
  backoffMs: number;
}

/** The notifier's settings of a service configured with deliveryConfig and mailConfig. */
export function notifierSettings(
  config: {
    WEBHOOK_TIMEOUT_MS: number;
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: boolean;
    PAGERDUTY_EVENTS_URL: string;
    ALERT_DELIVERY_ATTEMPTS: number;
    ALERT_DELIVERY_BACKOFF_MS: number;
    PUBLIC_URL?: string;
    PORT: number;
  },
  mailer: Mailer,
): NotifierSettings {
  return {
    webhook: { timeoutMs: config.WEBHOOK_TIMEOUT_MS, allowPrivateNetworks: config.WEBHOOK_ALLOW_PRIVATE_NETWORKS },
    mailer,
    pagerDutyUrl: config.PAGERDUTY_EVENTS_URL,
    // Links in alert messages need an absolute address; without PUBLIC_URL it is this server on localhost.
    publicUrl: config.PUBLIC_URL ?? `http://localhost:${config.PORT}`,
    attempts: config.ALERT_DELIVERY_ATTEMPTS,
    backoffMs: config.ALERT_DELIVERY_BACKOFF_MS,
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref());

/**
 * Sends notifications to a rule's channels and records each as a delivery: pending before the first attempt, then
 * each attempt's answer, retried with doubling waits while a later attempt may succeed, and sent or failed at the end.
 * Deliveries run beside the evaluation, so a slow receiver holds back no rule; `drain` waits for those under way.
 */
export class Notifier {
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly metadata: MetadataStore,
    private readonly logger: Logger,
    readonly settings: NotifierSettings,
  ) {}

  /** Records a pending delivery per channel and starts sending them; resolves once they are recorded. */
  async notify(notification: Notification): Promise<void> {
    const deliveries = notification.rule.channels.map((channel, index) => ({ channel, row: this.newDelivery(notification, channel, index) }));
    await insertAlertDeliveries(this.metadata, deliveries.map((delivery) => delivery.row));
    for (const { channel, row } of deliveries) {
      const sending = this.deliver(row.id, channel, notification).finally(() => this.running.delete(sending));
      this.running.add(sending);
    }
  }

  /** A test notification to one channel: one attempt, answered with its delivery, so the person asking sees the result. */
  async test(notification: Notification, index: number): Promise<AlertDeliveryRow> {
    const channel = notification.rule.channels[index]!;
    const row = this.newDelivery(notification, channel, index);
    await insertAlertDeliveries(this.metadata, [row]);
    return (await this.attempt(row.id, channel, notification, true))!;
  }

  /**
   * Fails deliveries still pending well past their next attempt: the process retrying them stopped (retries live in
   * that process), and a delivery must not stay pending for ever. Run at each evaluation pass.
   */
  async failAbandoned(now: Date): Promise<number> {
    const { attempts, backoffMs, webhook } = this.settings;
    // The longest a live delivery goes unwritten: its longest wait, one attempt, and a minute for a slow store.
    const quietMs = backoffMs * 2 ** Math.max(attempts - 2, 0) + webhook.timeoutMs + 60_000;
    const failed = await failAbandonedDeliveries(this.metadata, new Date(now.getTime() - quietMs), 'not retried: the server stopped while retrying it');
    if (failed > 0) this.logger.warn({ deliveries: failed }, 'alert deliveries left pending by a stopped server are failed');
    return failed;
  }

  /** Waits for every delivery under way, retries included. */
  async drain(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running]);
  }

  private newDelivery(notification: Notification, channel: AlertChannel, index: number): NewAlertDelivery {
    return {
      id: newId(),
      project_id: notification.rule.project_id,
      rule_id: notification.rule.id,
      event_id: notification.eventId,
      kind: notification.kind,
      channel_index: index,
      channel_type: channel.type,
      target: channelTarget(channel),
    };
  }

  private async deliver(id: string, channel: AlertChannel, notification: Notification): Promise<void> {
    try {
      for (let attempt = 1; ; attempt += 1) {
        const last = attempt >= this.settings.attempts;
        const row = await this.attempt(id, channel, notification, last);
        if (row?.status !== 'pending') return;
        await sleep(this.settings.backoffMs * 2 ** (attempt - 1));
      }
    } catch (error) {
      this.logger.error({ err: error, delivery_id: id, rule_id: notification.rule.id }, 'alert delivery could not be recorded');
    }
  }

  /** One attempt, recorded: sent, failed (the last attempt, or nothing later can change), or pending for a retry. */
  private async attempt(id: string, channel: AlertChannel, notification: Notification, last: boolean): Promise<AlertDeliveryRow | undefined> {
    let result: AttemptResult;
    let error: string | null = null;
    try {
      result = await sendToChannel(channel, notification, id, this.settings);
    } catch (failure) {
      error = failure instanceof Error ? failure.message || failure.name : String(failure);
      result = { ok: false, retry: !(failure instanceof WebhookBlockedError), responseStatus: null, responseBody: null };
    }
    const status = result.ok ? 'sent' : last || !result.retry ? 'failed' : 'pending';
    if (status === 'failed') {
      this.logger.warn({ rule_id: notification.rule.id, delivery_id: id, channel: channel.type, status: result.responseStatus, error }, 'alert delivery failed');
    }
    return recordDeliveryAttempt(this.metadata, id, { status, responseStatus: result.responseStatus, responseBody: result.responseBody, error });
  }
}
