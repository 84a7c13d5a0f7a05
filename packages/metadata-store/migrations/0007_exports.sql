-- Export jobs (DECISIONS.md "Exports"): queued by POST /v1/exports, run in the background, downloaded by signed URL.

create table export_jobs (
  id uuid primary key,
  project_id uuid not null references projects (id) on delete cascade,
  format text not null check (format in ('csv', 'json', 'gdpr_zip')),
  query text,
  source text,
  status text not null default 'queued' check (status in ('queued', 'running', 'done', 'failed')),
  rows bigint,
  size bigint,
  error text,
  blob_key text,
  created_at timestamptz not null default now(),
  started_at timestamptz,
  finished_at timestamptz
);
create index export_jobs_project on export_jobs (project_id, created_at desc);
create index export_jobs_queued on export_jobs (created_at) where status = 'queued';
