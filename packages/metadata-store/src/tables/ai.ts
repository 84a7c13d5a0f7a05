import type { SqlClient } from '../store';

export interface AiMessageRow {
  id: string;
  conversation_id: string;
  role: 'user' | 'assistant';
  content: string;
  queries: string[];
  created_at: Date;
}

/** The conversation of a project, or undefined; `id` must already be checked to be a UUID. */
export async function findConversation(sql: SqlClient, projectId: string, id: string): Promise<{ id: string } | undefined> {
  return (await sql.query<{ id: string }>('select id from ai_conversations where project_id = $1 and id = $2', [projectId, id]))[0];
}

export async function insertConversation(sql: SqlClient, id: string, projectId: string): Promise<void> {
  await sql.query('insert into ai_conversations (id, project_id) values ($1, $2)', [id, projectId]);
}

export async function appendMessages(
  sql: SqlClient,
  conversationId: string,
  messages: { id: string; role: 'user' | 'assistant'; content: string; queries: string[] }[],
): Promise<void> {
  for (const message of messages) {
    await sql.query(
      `insert into ai_messages (id, conversation_id, role, content, queries) values ($1, $2, $3, $4, $5::jsonb)`,
      [message.id, conversationId, message.role, message.content, JSON.stringify(message.queries)],
    );
  }
  await sql.query('update ai_conversations set updated_at = now() where id = $1', [conversationId]);
}

/** The conversation's latest `limit` messages, oldest first. */
export async function listMessages(sql: SqlClient, conversationId: string, limit = 1_000): Promise<AiMessageRow[]> {
  return sql.query<AiMessageRow>(
    `select * from (select * from ai_messages where conversation_id = $1 order by created_at desc, id desc limit $2) latest
     order by created_at, id`,
    [conversationId, limit],
  );
}

/** AI queries an organization used in a month (signal 'ai_queries' of the usage counters of its projects). */
export async function countOrganizationUsage(sql: SqlClient, orgId: string, signal: string, month: string): Promise<number> {
  const rows = await sql.query<{ used: number }>(
    `select coalesce(sum(u.items), 0)::int as used from usage_counters u join projects p on p.id = u.project_id
     where p.org_id = $1 and u.signal = $2 and u.month = $3`,
    [orgId, signal, month],
  );
  return rows[0]!.used;
}
