-- Source maps uploaded per release (PUT /v1/artifacts; DECISIONS.md), read by POST /v1/symbolicate and by the
-- symbolication of errors at ingest. Kept here rather than in a blob store: maps are small next to telemetry
-- (10 MiB at most each), are read by key, and must be replaced atomically under one name; docs/decisions.md.

create table artifacts (
  id uuid primary key,
  -- Uploads come through a live key of the project, so the project exists; its removal takes its maps.
  project_id uuid not null references projects (id) on delete cascade,
  release text not null,
  -- '' when the upload named no dist, so that the unique key below covers it.
  dist text not null default '',
  name text not null,
  -- Bytes of content in UTF-8.
  size integer not null,
  content text not null,
  created_at timestamptz not null default now()
);
-- One map per name in a release and dist: uploading the same name again replaces it.
create unique index artifacts_release_name on artifacts (project_id, release, dist, name);
