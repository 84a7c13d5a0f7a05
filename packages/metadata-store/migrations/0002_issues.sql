-- Issues: errors grouped by fingerprint (SPEC.md "Error and issue", "Issue status"; docs/fingerprinting.md).
-- The issues processor owns these rows; every change is copied as a snapshot to the analytics `issues` table.
-- No foreign keys: a processor may still hold errors of a project that is being purged.

create table issues (
  -- Derived from (project_id, fingerprint), so error rows name their issue before this row exists.
  id uuid primary key,
  project_id uuid not null,
  fingerprint text not null,
  -- Per-project counter shown to people (DECISIONS.md Ids).
  short_id bigint not null,
  title text not null,
  culprit text not null,
  status text not null check (status in ('unresolved', 'resolved', 'ignored', 'regressed')),
  level text not null,
  event_count bigint not null default 0,
  user_count bigint not null default 0,
  first_seen timestamptz not null,
  last_seen timestamptz not null,
  release_first text,
  release_last text,
  resolved_in_release text,
  created_at timestamptz not null default now(),
  -- Version of the analytics snapshot: strictly increasing per issue, whole milliseconds.
  updated_at timestamptz not null
);
create unique index issues_project_fingerprint on issues (project_id, fingerprint);
create unique index issues_project_short_id on issues (project_id, short_id);

create table issue_short_ids (
  project_id uuid primary key,
  last_short_id bigint not null
);

-- Distinct users per issue, for user_count.
create table issue_users (
  issue_id uuid not null,
  user_key text not null,
  project_id uuid not null,
  primary key (issue_id, user_key)
);
create index issue_users_project on issue_users (project_id);

-- Events already counted: SDK retries (same event_id) and bus redeliveries are skipped.
create table processed_errors (
  project_id uuid not null,
  event_id uuid not null,
  processed_at timestamptz not null default now(),
  primary key (project_id, event_id)
);
