-- Alert rules and SLOs (DECISIONS.md "Alerts", "SLOs"), and leases that keep a periodic job to one runner.

create table alert_rules (
  id uuid primary key,
  project_id uuid not null references projects (id) on delete cascade,
  name text not null,
  -- A GQL aggregate query without a time range; the window supplies the range.
  metric text not null,
  threshold double precision not null,
  comparator text not null check (comparator in ('gt', 'gte', 'lt', 'lte')),
  window_minutes integer not null check (window_minutes between 1 and 10080),
  severity text not null check (severity in ('info', 'warning', 'critical')),
  enabled boolean not null default true,
  muted_until timestamptz,
  channels jsonb not null default '[]',
  last_evaluated_at timestamptz,
  last_value double precision,
  last_triggered_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index alert_rules_project on alert_rules (project_id);

create table slos (
  id uuid primary key,
  project_id uuid not null references projects (id) on delete cascade,
  name text not null,
  target_percent double precision not null check (target_percent > 0 and target_percent <= 100),
  -- GQL count queries without a time range; window_days supplies the range.
  good text not null,
  total text not null,
  window_days integer not null default 30 check (window_days between 1 and 365),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index slos_project on slos (project_id);

-- One row per periodic job; a runner takes the job by moving `until` forward when it has passed.
create table job_leases (
  name text primary key,
  holder text not null,
  until timestamptz not null
);
