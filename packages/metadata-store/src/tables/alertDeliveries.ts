import type { SqlClient } from '../store';

export type DeliveryKind = 'trigger' | 'resolve' | 'test';
export type DeliveryStatus = 'pending' | 'sent' | 'failed';

/** One notification of a rule to one of its channels (migration 0013). */
export interface AlertDeliveryRow {
  id: string;
  project_id: string;
  rule_id: string;
  event_id: string | null;
  kind: DeliveryKind;
  channel_index: number;
  channel_type: 'webhook' | 'email' | 'slack' | 'pagerduty';
  target: string;
  status: DeliveryStatus;
  attempts: number;
  response_status: number | null;
  response_body: string | null;
  error: string | null;
  created_at: Date;
  updated_at: Date;
}

export type NewAlertDelivery = Pick<AlertDeliveryRow, 'id' | 'project_id' | 'rule_id' | 'event_id' | 'kind' | 'channel_index' | 'channel_type' | 'target'>;

/** Records deliveries as pending, before their first attempt, so one that never completes still shows. */
export async function insertAlertDeliveries(sql: SqlClient, deliveries: readonly NewAlertDelivery[]): Promise<void> {
  if (deliveries.length === 0) return;
  await sql.query(
    `insert into alert_deliveries (id, project_id, rule_id, event_id, kind, channel_index, channel_type, target, status)
     select id, project_id, rule_id, event_id, kind, channel_index, channel_type, target, 'pending'
     from unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::uuid[], $5::text[], $6::int[], $7::text[], $8::text[])
       as d(id, project_id, rule_id, event_id, kind, channel_index, channel_type, target)`,
    [
      deliveries.map((delivery) => delivery.id),
      deliveries.map((delivery) => delivery.project_id),
      deliveries.map((delivery) => delivery.rule_id),
      deliveries.map((delivery) => delivery.event_id),
      deliveries.map((delivery) => delivery.kind),
      deliveries.map((delivery) => delivery.channel_index),
      deliveries.map((delivery) => delivery.channel_type),
      deliveries.map((delivery) => delivery.target),
    ],
  );
}

/** The outcome of one attempt: the receiver's answer, or the error that kept it from answering. */
export interface DeliveryAttempt {
  status: DeliveryStatus;
  responseStatus: number | null;
  responseBody: string | null;
  error: string | null;
}

export async function recordDeliveryAttempt(sql: SqlClient, id: string, attempt: DeliveryAttempt): Promise<AlertDeliveryRow | undefined> {
  const rows = await sql.query<AlertDeliveryRow>(
    `update alert_deliveries set attempts = attempts + 1, status = $2, response_status = $3, response_body = $4, error = $5, updated_at = now()
     where id = $1 returning *`,
    [id, attempt.status, attempt.responseStatus, attempt.responseBody, attempt.error],
  );
  return rows[0];
}

/** A rule's deliveries, newest first; of one alert event when `eventId` is given. */
export async function listAlertDeliveries(
  sql: SqlClient,
  projectId: string,
  ruleId: string,
  options: { eventId?: string; limit: number },
): Promise<AlertDeliveryRow[]> {
  return sql.query<AlertDeliveryRow>(
    `select * from alert_deliveries
     where project_id = $1 and rule_id = $2 and ($3::uuid is null or event_id = $3::uuid)
     order by created_at desc, id limit $4`,
    [projectId, ruleId, options.eventId ?? null, options.limit],
  );
}

/**
 * Fails the deliveries left pending longer than `olderThan` allows: their process stopped while retrying them, since a
 * delivery under way is written at every attempt. Answers how many.
 */
export async function failAbandonedDeliveries(sql: SqlClient, olderThan: Date, error: string): Promise<number> {
  const rows = await sql.query<{ id: string }>(
    `update alert_deliveries set status = 'failed', error = coalesce(error || '; ', '') || $2, updated_at = now()
     where status = 'pending' and updated_at < $1 returning id`,
    [olderThan, error],
  );
  return rows.length;
}
