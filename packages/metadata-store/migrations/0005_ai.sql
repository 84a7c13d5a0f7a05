-- AI chat conversations (SPEC.md "AI chat"): removed with their project, and so with an account.

create table ai_conversations (
  id uuid primary key,
  project_id uuid not null references projects (id) on delete cascade,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index ai_conversations_project on ai_conversations (project_id);

create table ai_messages (
  id uuid primary key,
  conversation_id uuid not null references ai_conversations (id) on delete cascade,
  role text not null check (role in ('user', 'assistant')),
  content text not null,
  queries jsonb not null default '[]',
  created_at timestamptz not null default now()
);
create index ai_messages_conversation on ai_messages (conversation_id, created_at);
