-- Saved dashboards (docs/decisions.md "Dashboards"): a project's named pages of GQL panels, kept for its members.

create table dashboards (
  id uuid primary key,
  project_id uuid not null references projects (id) on delete cascade,
  name text not null,
  description text not null default '',
  -- The panels in the order shown: [{id, title, query, width}], replaced as a whole list.
  panels jsonb not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index dashboards_project on dashboards (project_id);
