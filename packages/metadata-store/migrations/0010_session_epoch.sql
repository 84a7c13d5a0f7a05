-- Dashboard tokens carry the user's session epoch when they were issued; log-out and account deletion raise it,
-- which ends every token issued before.
alter table users add column if not exists session_epoch integer not null default 0;
