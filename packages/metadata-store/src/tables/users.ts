import type { SqlClient } from '../store';

export interface UserRow {
  id: string;
  email: string;
  name: string | null;
  password_hash: string;
  created_at: Date;
  deleted_at: Date | null;
  /** Raised by log-out and account deletion: tokens issued under a lower epoch are no longer accepted. */
  session_epoch: number;
}

/** Inserts a user; null when the address is taken (by a live or a soft-deleted account). */
export async function insertUser(
  sql: SqlClient,
  user: { id: string; email: string; name: string | null; passwordHash: string },
): Promise<UserRow | null> {
  const rows = await sql.query<UserRow>(
    `insert into users (id, email, name, password_hash) values ($1, $2, $3, $4)
     on conflict ((lower(email))) do nothing
     returning *`,
    [user.id, user.email, user.name, user.passwordHash],
  );
  return rows[0] ?? null;
}

export async function findUserByEmail(sql: SqlClient, email: string): Promise<UserRow | undefined> {
  return (await sql.query<UserRow>('select * from users where lower(email) = lower($1)', [email]))[0];
}

export async function findUserById(sql: SqlClient, id: string): Promise<UserRow | undefined> {
  return (await sql.query<UserRow>('select * from users where id = $1', [id]))[0];
}

/** Takes the user's row lock for the rest of the transaction: checks of what they may be sent take turns with the sends. */
export async function lockUser(sql: SqlClient, id: string): Promise<void> {
  await sql.query('select id from users where id = $1 for update', [id]);
}

export async function setUserPasswordHash(sql: SqlClient, id: string, passwordHash: string): Promise<void> {
  await sql.query('update users set password_hash = $2 where id = $1', [id, passwordHash]);
}

/**
 * Sets a new password and ends every session the user had (a reset or a change locks out whoever knew the old one);
 * answers the new session epoch, under which the caller's own new token is issued.
 */
export async function replaceUserPassword(sql: SqlClient, id: string, passwordHash: string): Promise<number> {
  const rows = await sql.query<{ session_epoch: number }>(
    'update users set password_hash = $2, session_epoch = session_epoch + 1 where id = $1 returning session_epoch',
    [id, passwordHash],
  );
  return rows[0]!.session_epoch;
}

/** Ends every dashboard session of the user: tokens issued before this answer 401. */
export async function endUserSessions(sql: SqlClient, id: string): Promise<void> {
  await sql.query('update users set session_epoch = session_epoch + 1 where id = $1', [id]);
}

export async function setUserDeletedAt(sql: SqlClient, id: string, deletedAt: Date | null): Promise<void> {
  await sql.query('update users set deleted_at = $2 where id = $1', [id, deletedAt]);
}

export async function purgeUser(sql: SqlClient, id: string): Promise<void> {
  await sql.query('delete from users where id = $1', [id]);
}
