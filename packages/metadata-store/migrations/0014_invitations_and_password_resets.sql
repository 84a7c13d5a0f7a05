-- Invitations to an organization by e-mail, and password resets by e-mail. Only the SHA-256 of each link's token is
-- kept, as with API keys, so a copy of the database cannot accept an invitation or reset a password.

create table invitations (
  id uuid primary key,
  org_id uuid not null references organizations (id) on delete cascade,
  email text not null,
  role text not null check (role in ('owner', 'member')),
  -- Hex SHA-256 of the link's token; a re-invitation replaces it, so the earlier link stops working.
  token_hash text not null unique,
  invited_by uuid references users (id) on delete set null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  accepted_at timestamptz,
  accepted_by uuid references users (id) on delete set null,
  revoked_at timestamptz
);
-- One pending invitation per address and organization.
create unique index invitations_pending on invitations (org_id, lower(email)) where accepted_at is null and revoked_at is null;

create table password_resets (
  -- Hex SHA-256 of the mailed token.
  token_hash text primary key,
  user_id uuid not null references users (id) on delete cascade,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  used_at timestamptz
);
create index password_resets_user on password_resets (user_id, created_at);
