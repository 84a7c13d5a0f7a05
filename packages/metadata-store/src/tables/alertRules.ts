import type { SqlClient } from '../store';

export type Comparator = 'gt' | 'gte' | 'lt' | 'lte';
export type AlertSeverity = 'info' | 'warning' | 'critical';

/** Where a rule's notifications go (docs/api.md "Alert channels"). */
export type AlertChannel =
  | { type: 'webhook'; url: string; secret: string }
  | { type: 'email'; to: string }
  | { type: 'slack'; url: string }
  | { type: 'pagerduty'; routing_key: string };

export type AlertState = 'ok' | 'firing';

export interface AlertRuleFields {
  name: string;
  metric: string;
  threshold: number;
  comparator: Comparator;
  window_minutes: number;
  severity: AlertSeverity;
  enabled: boolean;
  channels: AlertChannel[];
}

/** A stored rule: the fields people set, and what the service keeps about it. */
export interface AlertRuleRow extends AlertRuleFields {
  id: string;
  project_id: string;
  muted_until: Date | null;
  /** ok or firing as of the last evaluation (migration 0013). */
  state: AlertState;
  /** The firing under way: names it to receivers (PagerDuty's dedup_key), with its start and the event it is told by. */
  firing_id: string | null;
  firing_since: Date | null;
  firing_event_id: string | null;
  last_event_id: string | null;
  last_evaluated_at: Date | null;
  last_value: number | null;
  last_triggered_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export async function insertAlertRule(sql: SqlClient, id: string, projectId: string, rule: AlertRuleFields): Promise<AlertRuleRow> {
  const rows = await sql.query<AlertRuleRow>(
    `insert into alert_rules (id, project_id, name, metric, threshold, comparator, window_minutes, severity, enabled, channels)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::jsonb) returning *`,
    [id, projectId, rule.name, rule.metric, rule.threshold, rule.comparator, rule.window_minutes, rule.severity, rule.enabled, JSON.stringify(rule.channels)],
  );
  return rows[0]!;
}

export async function listAlertRules(sql: SqlClient, projectId: string): Promise<AlertRuleRow[]> {
  return sql.query<AlertRuleRow>('select * from alert_rules where project_id = $1 order by created_at', [projectId]);
}

export async function findAlertRule(sql: SqlClient, projectId: string, id: string): Promise<AlertRuleRow | undefined> {
  return (await sql.query<AlertRuleRow>('select * from alert_rules where project_id = $1 and id = $2', [projectId, id]))[0];
}

export async function updateAlertRule(sql: SqlClient, id: string, rule: AlertRuleFields): Promise<AlertRuleRow> {
  const rows = await sql.query<AlertRuleRow>(
    `update alert_rules set name = $2, metric = $3, threshold = $4, comparator = $5, window_minutes = $6, severity = $7,
       enabled = $8, channels = $9::jsonb, updated_at = now()
     where id = $1 returning *`,
    [id, rule.name, rule.metric, rule.threshold, rule.comparator, rule.window_minutes, rule.severity, rule.enabled, JSON.stringify(rule.channels)],
  );
  return rows[0]!;
}

export async function setAlertRuleMutedUntil(sql: SqlClient, id: string, mutedUntil: Date | null): Promise<AlertRuleRow> {
  const rows = await sql.query<AlertRuleRow>('update alert_rules set muted_until = $2, updated_at = now() where id = $1 returning *', [id, mutedUntil]);
  return rows[0]!;
}

export async function deleteAlertRule(sql: SqlClient, id: string): Promise<AlertRuleRow | undefined> {
  return (await sql.query<AlertRuleRow>('delete from alert_rules where id = $1 returning *', [id]))[0];
}

/** A rule as the evaluator reads it: with its organization (for links to it) and that organization's plan (retention). */
export type RuleToEvaluate = AlertRuleRow & { org_id: string; plan: string };

/** Rules due for evaluation: enabled, not muted, of live projects; with their organization and its plan. */
export async function listRulesToEvaluate(sql: SqlClient, now: Date): Promise<RuleToEvaluate[]> {
  return sql.query<RuleToEvaluate>(
    `select r.*, p.org_id, o.plan from alert_rules r
       join projects p on p.id = r.project_id
       join organizations o on o.id = p.org_id
     where r.enabled and (r.muted_until is null or r.muted_until <= $1) and p.deleted_at is null and o.deleted_at is null
     order by r.id`,
    [now],
  );
}

/** What one evaluation of a rule leaves on it: the value seen, the event written if any, and the firing state. */
export interface Evaluation {
  at: Date;
  value: number | null;
  /** The alert event written by this evaluation, or null. */
  eventId: string | null;
  state: AlertState;
  firingId: string | null;
  firingSince: Date | null;
  firingEventId: string | null;
}

export async function recordEvaluation(sql: SqlClient, id: string, evaluation: Evaluation): Promise<void> {
  await sql.query(
    `update alert_rules set last_evaluated_at = $2, last_value = $3,
       last_triggered_at = case when $4::uuid is null then last_triggered_at else $2 end,
       last_event_id = coalesce($4::uuid, last_event_id),
       state = $5, firing_id = $6, firing_since = $7, firing_event_id = $8
     where id = $1`,
    [id, evaluation.at, evaluation.value, evaluation.eventId, evaluation.state, evaluation.firingId, evaluation.firingSince, evaluation.firingEventId],
  );
}
