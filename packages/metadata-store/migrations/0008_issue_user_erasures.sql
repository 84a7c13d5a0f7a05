-- Per project, how many times GDPR erasure removed users from issue_users. Issue processors remember which
-- (issue, user) pairs are stored and skip them; a changed count tells them to forget the project's pairs.
create table issue_user_erasures (
  project_id uuid primary key,
  erasures bigint not null
);
