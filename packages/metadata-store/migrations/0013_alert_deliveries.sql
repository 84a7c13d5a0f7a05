-- Alert notifications (docs/decisions.md "Alerts"): a rule keeps whether it is firing, so people are notified when it
-- starts firing and when it recovers rather than at every evaluation, and every notification to every channel is a
-- delivery row with its attempts and the receiver's answer.

alter table alert_rules add column state text not null default 'ok' check (state in ('ok', 'firing'));
-- The firing under way: its start, and the alert event it is told by (PagerDuty's dedup_key names the firing).
alter table alert_rules add column firing_id uuid;
alter table alert_rules add column firing_since timestamptz;
alter table alert_rules add column firing_event_id uuid;
-- The newest alert event of the rule, so a firing that starts inside the window of an earlier event names that event.
alter table alert_rules add column last_event_id uuid;
-- Webhooks are signed with a secret of their own; those stored before signing get one.
update alert_rules set channels = (
  select jsonb_agg(case when c->>'type' = 'webhook' and not (c ? 'secret')
    then c || jsonb_build_object('secret', 'whsec_' || md5(random()::text || clock_timestamp()::text || id::text)) else c end)
  from jsonb_array_elements(channels) c)
where jsonb_array_length(channels) > 0;

create table alert_deliveries (
  id uuid primary key,
  project_id uuid not null references projects (id) on delete cascade,
  rule_id uuid not null references alert_rules (id) on delete cascade,
  -- The alert event notified about; null for a test notification.
  event_id uuid,
  kind text not null check (kind in ('trigger', 'resolve', 'test')),
  channel_index integer not null,
  channel_type text not null check (channel_type in ('webhook', 'email', 'slack', 'pagerduty')),
  -- Where it went, as a reader of the rule may see it (a webhook's origin, an e-mail address, a routing key's end).
  target text not null,
  status text not null check (status in ('pending', 'sent', 'failed')),
  attempts integer not null default 0,
  response_status integer,
  response_body text,
  error text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index alert_deliveries_rule on alert_deliveries (rule_id, created_at desc);
