-- Public status pages (SPEC.md "Public status pages"; DECISIONS.md managed endpoints).

create table status_pages (
  id uuid primary key,
  org_id uuid not null references organizations (id) on delete cascade,
  slug text not null unique check (slug ~ '^[a-z0-9][a-z0-9-]{1,62}$'),
  title text not null,
  project_id uuid references projects (id) on delete set null,
  -- [{name}] in display order.
  components jsonb not null default '[]',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index status_pages_org on status_pages (org_id);

create table status_incidents (
  id uuid primary key,
  page_id uuid not null references status_pages (id) on delete cascade,
  title text not null,
  status text not null check (status in ('investigating', 'identified', 'monitoring', 'resolved')),
  impact text not null check (impact in ('none', 'minor', 'major', 'critical')),
  -- Names of the affected components.
  components jsonb not null default '[]',
  -- [{status, message, at}] oldest first.
  updates jsonb not null default '[]',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  resolved_at timestamptz
);
create index status_incidents_page on status_incidents (page_id, created_at desc);
