import type { SqlClient } from '../store';

export interface PasswordResetRow {
  token_hash: string;
  user_id: string;
  created_at: Date;
  expires_at: Date;
  used_at: Date | null;
}

/** Adds a reset of the user, and forgets their resets that expired a day ago or more, so the table stays small. */
export async function insertPasswordReset(sql: SqlClient, reset: { tokenHash: string; userId: string; expiresAt: Date }): Promise<void> {
  await sql.query(`delete from password_resets where user_id = $1 and expires_at < now() - interval '1 day'`, [reset.userId]);
  await sql.query('insert into password_resets (token_hash, user_id, expires_at) values ($1, $2, $3)', [reset.tokenHash, reset.userId, reset.expiresAt]);
}

/** Resets the user asked for since `since`, to bound how many mails one address can be sent. */
export async function countPasswordResetsSince(sql: SqlClient, userId: string, since: Date): Promise<number> {
  const rows = await sql.query<{ n: number }>('select count(*)::int as n from password_resets where user_id = $1 and created_at > $2', [userId, since]);
  return rows[0]!.n;
}

export async function findPasswordReset(sql: SqlClient, tokenHash: string): Promise<PasswordResetRow | undefined> {
  return (await sql.query<PasswordResetRow>('select * from password_resets where token_hash = $1', [tokenHash]))[0];
}

/**
 * Uses the reset of this token when it is unused and unexpired, in one statement, so a token sent twice at once
 * works once; with it every other open reset of the person is used up too. Answers the person's id, or undefined.
 */
export async function claimPasswordReset(sql: SqlClient, tokenHash: string): Promise<string | undefined> {
  const rows = await sql.query<{ user_id: string }>(
    `update password_resets set used_at = now()
     where token_hash = $1 and used_at is null and expires_at > now()
     returning user_id`,
    [tokenHash],
  );
  const userId = rows[0]?.user_id;
  if (userId) await sql.query('update password_resets set used_at = now() where user_id = $1 and used_at is null', [userId]);
  return userId;
}
