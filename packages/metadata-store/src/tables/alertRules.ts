import type { SqlClient } from '../store';

export type Comparator = 'gt' | 'gte' | 'lt' | 'lte';
export type AlertSeverity = 'info' | 'warning' | 'critical';

export interface AlertChannel {
  type: 'webhook';
  url: string;
}

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

/** Rules due for evaluation: enabled, not muted, of live projects; with their organization's plan for retention. */
export async function listRulesToEvaluate(sql: SqlClient, now: Date): Promise<(AlertRuleRow & { plan: string })[]> {
  return sql.query<AlertRuleRow & { plan: string }>(
    `select r.*, o.plan from alert_rules r
       join projects p on p.id = r.project_id
       join organizations o on o.id = p.org_id
     where r.enabled and (r.muted_until is null or r.muted_until <= $1) and p.deleted_at is null and o.deleted_at is null
     order by r.id`,
    [now],
  );
}

export async function recordEvaluation(sql: SqlClient, id: string, at: Date, value: number | null, triggered: boolean): Promise<void> {
  await sql.query(
    `update alert_rules set last_evaluated_at = $2, last_value = $3,
       last_triggered_at = case when $4 then $2 else last_triggered_at end
     where id = $1`,
    [id, at, value, triggered],
  );
}
