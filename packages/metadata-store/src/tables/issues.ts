import type { SqlClient, SqlParams } from '../store';

export const ISSUE_STATUSES = ['unresolved', 'resolved', 'ignored', 'regressed'] as const;
export type IssueStatus = (typeof ISSUE_STATUSES)[number];

/** An issue as the metadata store holds it (migration 0002); the analytics `issues` table holds snapshots of it. */
export interface IssueStateRow {
  id: string;
  project_id: string;
  fingerprint: string;
  short_id: number;
  title: string;
  culprit: string;
  status: IssueStatus;
  level: string;
  event_count: number;
  user_count: number;
  first_seen: Date;
  last_seen: Date;
  release_first: string | null;
  release_last: string | null;
  resolved_in_release: string | null;
  /** When a person last changed the status; null if nobody has. */
  status_changed_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** What a new issue starts from: its first event; counts start at zero and are added like any event's. */
export interface NewIssue {
  id: string;
  projectId: string;
  fingerprint: string;
  title: string;
  culprit: string;
  level: string;
  /** Epoch milliseconds of its first event. */
  firstSeen: number;
}

/** The counted state of an issue after a batch of events, written over the locked row. */
export interface IssueCounts {
  id: string;
  status: IssueStatus;
  level: string;
  eventCount: number;
  userCount: number;
  firstSeen: number;
  lastSeen: number;
  releaseFirst: string | null;
  releaseLast: string | null;
}

const iso = (epochMs: number) => new Date(epochMs).toISOString();
/** Strictly increasing per issue, in whole milliseconds, so the newest analytics snapshot always wins. */
const NEXT_VERSION = `greatest(date_trunc('milliseconds', clock_timestamp()), issues.updated_at + interval '1 millisecond')`;

/** How far the issues processor has counted one partition of the errors stream: -1 when it has counted nothing. */
export async function errorPositions(sql: SqlClient, partitions: readonly number[]): Promise<Map<number, number>> {
  const rows = await sql.query<{ partition: number; counted_through: string | number }>(
    'select partition, counted_through from error_positions where partition = any($1::int[])',
    [[...partitions]],
  );
  const positions = new Map(partitions.map((partition) => [partition, -1]));
  for (const row of rows) positions.set(row.partition, Number(row.counted_through));
  return positions;
}

/** A partition counted from just after `from` (what this processor last stored or read) through `to`. */
export interface PositionAdvance {
  partition: number;
  from: number;
  to: number;
}

/**
 * Stores how far partitions are counted, in the transaction that stores their counts; returns the partitions whose
 * stored position was no longer `from`: another processor counted them meanwhile (a Kafka rebalance), so this
 * transaction must not commit its counts of them. Rows are written in partition order, so two processors never
 * deadlock.
 */
export async function advanceErrorPositions(sql: SqlClient, advances: readonly PositionAdvance[]): Promise<number[]> {
  if (advances.length === 0) return [];
  const sorted = [...advances].sort((a, b) => a.partition - b.partition);
  // A partition's row is made by its first count (from -1); a later count finds it, or finds it moved.
  const first = sorted.filter((advance) => advance.from === -1);
  if (first.length > 0) {
    await sql.query('insert into error_positions (partition, counted_through) select unnest($1::int[]), -1 on conflict do nothing', [
      first.map((advance) => advance.partition),
    ]);
  }
  const moved = await jsonOf<number[]>(
    sql,
    `with moved as (
       update error_positions p set counted_through = a.to_offset, updated_at = now()
       from unnest($1::int[], $2::bigint[], $3::bigint[]) as a(partition, from_offset, to_offset)
       where p.partition = a.partition and p.counted_through = a.from_offset
       returning p.partition)
     select coalesce(json_agg(partition), '[]')::text as json from moved`,
    [sorted.map((advance) => advance.partition), sorted.map((advance) => advance.from), sorted.map((advance) => advance.to)],
  );
  const advanced = new Set(moved);
  return sorted.filter((advance) => !advanced.has(advance.partition)).map((advance) => advance.partition);
}

/** Locks the issues that exist among `ids`, in id order (the order every writer takes them in). */
export async function lockIssues(sql: SqlClient, ids: readonly string[]): Promise<IssueStateRow[]> {
  if (ids.length === 0) return [];
  return issueRows(sql, 'select * from issues where id = any($1::uuid[]) order by id for update', [[...ids]]);
}

/** The issues stored for (project, fingerprint) pairs, as (project, fingerprint, id); pairs without one are left out. */
export async function issueIdsByFingerprint(
  sql: SqlClient,
  keys: readonly { projectId: string; fingerprint: string }[],
): Promise<{ projectId: string; fingerprint: string; id: string }[]> {
  if (keys.length === 0) return [];
  const rows = await sql.query<{ id: string; project_id: string; fingerprint: string }>(
    `select i.id, i.project_id, i.fingerprint from issues i
     join unnest($1::uuid[], $2::text[]) as k(project_id, fingerprint) on i.project_id = k.project_id and i.fingerprint = k.fingerprint`,
    [keys.map((key) => key.projectId), keys.map((key) => key.fingerprint)],
  );
  return rows.map((row) => ({ projectId: row.project_id, fingerprint: row.fingerprint, id: row.id }));
}

export async function findIssues(sql: SqlClient, ids: readonly string[]): Promise<IssueStateRow[]> {
  if (ids.length === 0) return [];
  return issueRows(sql, 'select * from issues where id = any($1::uuid[]) order by id', [[...ids]]);
}

/**
 * Up to `limit` issues changed after `since` (their `updated_at`, the snapshot version) whose id follows `afterId`, in
 * id order: what the issues processor snapshots again when it starts, in case a crash lost snapshots it had not
 * written yet. Pass the last id of a page as `afterId` for the next.
 */
export async function issuesUpdatedSince(sql: SqlClient, since: Date, afterId: string | null, limit: number): Promise<IssueStateRow[]> {
  return issueRows(
    sql,
    `select * from issues where updated_at > $1 and ($2::uuid is null or id > $2::uuid) order by id limit $3`,
    [since.toISOString(), afterId, limit],
  );
}

/**
 * Creates the issues among `issues` that do not exist yet, unresolved with no events counted, numbering them per
 * project. The project's counter row is locked first and existence checked under that lock, so simultaneous first
 * events of one fingerprint create one issue and use one short id.
 */
export async function insertNewIssues(sql: SqlClient, issues: readonly NewIssue[]): Promise<void> {
  if (issues.length === 0) return;
  const projects = [...new Set(issues.map((issue) => issue.projectId))].sort(compare);
  await sql.query(
    `insert into issue_short_ids (project_id, last_short_id) select unnest($1::uuid[]), 0 on conflict do nothing`,
    [projects],
  );
  await sql.query('select project_id from issue_short_ids where project_id = any($1::uuid[]) order by project_id for update', [projects]);
  const existing = new Set(
    (await sql.query<{ id: string }>('select id from issues where id = any($1::uuid[])', [issues.map((issue) => issue.id)])).map((row) => row.id),
  );
  const missing = issues.filter((issue) => !existing.has(issue.id)).sort((a, b) => compare(a.id, b.id));
  if (missing.length === 0) return;
  const perProject = new Map<string, number>();
  for (const issue of missing) perProject.set(issue.projectId, (perProject.get(issue.projectId) ?? 0) + 1);
  const counted = [...perProject.keys()].sort(compare);
  const counters = await sql.query<{ project_id: string; last_short_id: number }>(
    `update issue_short_ids c set last_short_id = c.last_short_id + n.added
     from unnest($1::uuid[], $2::bigint[]) as n(project_id, added)
     where c.project_id = n.project_id
     returning c.project_id, c.last_short_id`,
    [counted, counted.map((project) => perProject.get(project)!)],
  );
  const next = new Map(counters.map((row) => [row.project_id, Number(row.last_short_id) - perProject.get(row.project_id)! + 1]));
  const shortIds = missing.map((issue) => {
    const shortId = next.get(issue.projectId)!;
    next.set(issue.projectId, shortId + 1);
    return shortId;
  });
  await sql.query(
    `insert into issues (id, project_id, fingerprint, short_id, title, culprit, status, level, first_seen, last_seen, updated_at)
     select id, project_id, fingerprint, short_id, title, culprit, 'unresolved', level, first_seen, first_seen,
            date_trunc('milliseconds', clock_timestamp())
     from unnest($1::uuid[], $2::uuid[], $3::text[], $4::bigint[], $5::text[], $6::text[], $7::text[], $8::timestamptz[])
       as n(id, project_id, fingerprint, short_id, title, culprit, level, first_seen)`,
    [
      missing.map((issue) => issue.id),
      missing.map((issue) => issue.projectId),
      missing.map((issue) => issue.fingerprint),
      shortIds,
      missing.map((issue) => issue.title),
      missing.map((issue) => issue.culprit),
      missing.map((issue) => issue.level),
      missing.map((issue) => iso(issue.firstSeen)),
    ],
  );
}

/** Adds users to issues; returns, per issue id, how many of them the issue had not seen. */
export async function addIssueUsers(
  sql: SqlClient,
  users: readonly { projectId: string; issueId: string; userKey: string }[],
): Promise<Map<string, number>> {
  const added = new Map<string, number>();
  if (users.length === 0) return added;
  const sorted = sortedByKey(users, (user) => `${user.issueId}\u0000${user.userKey}`);
  const issueIds = await jsonOf<string[]>(
    sql,
    `with added as (
       insert into issue_users (issue_id, user_key, project_id)
       select * from unnest($1::uuid[], $2::text[], $3::uuid[])
       on conflict do nothing
       returning issue_id)
     select coalesce(json_agg(issue_id), '[]')::text as json from added`,
    [sorted.map((user) => user.issueId), sorted.map((user) => user.userKey), sorted.map((user) => user.projectId)],
  );
  for (const issueId of issueIds) added.set(issueId, (added.get(issueId) ?? 0) + 1);
  return added;
}

/** Per project, how many GDPR erasures have removed issue users (0 when none ever did). */
export async function issueUserErasures(sql: SqlClient, projectIds: readonly string[]): Promise<Map<string, number>> {
  if (projectIds.length === 0) return new Map();
  const rows = await sql.query<{ project_id: string; erasures: string | number }>(
    'select project_id, erasures from issue_user_erasures where project_id = any($1::uuid[])',
    [[...projectIds]],
  );
  return new Map(rows.map((row) => [row.project_id, Number(row.erasures)]));
}

/** Writes the counted state of locked issues and returns the rows as stored. */
export async function updateIssueCounts(sql: SqlClient, issues: readonly IssueCounts[]): Promise<IssueStateRow[]> {
  if (issues.length === 0) return [];
  return issueRows(
    sql,
    `update issues set status = u.status, level = u.level, event_count = u.event_count, user_count = u.user_count,
       first_seen = u.first_seen, last_seen = u.last_seen, release_first = u.release_first, release_last = u.release_last,
       updated_at = ${NEXT_VERSION}
     from unnest($1::uuid[], $2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::timestamptz[], $7::timestamptz[], $8::text[], $9::text[])
       as u(id, status, level, event_count, user_count, first_seen, last_seen, release_first, release_last)
     where issues.id = u.id
     returning issues.*`,
    [
      issues.map((issue) => issue.id),
      issues.map((issue) => issue.status),
      issues.map((issue) => issue.level),
      issues.map((issue) => issue.eventCount),
      issues.map((issue) => issue.userCount),
      issues.map((issue) => iso(issue.firstSeen)),
      issues.map((issue) => iso(issue.lastSeen)),
      issues.map((issue) => issue.releaseFirst),
      issues.map((issue) => issue.releaseLast),
    ],
  );
}

/** A person's status change (SPEC.md Issue status); undefined when the project has no such issue. */
export async function setIssueStatus(
  sql: SqlClient,
  projectId: string,
  issueId: string,
  status: IssueStatus,
  resolvedInRelease: string | null,
): Promise<IssueStateRow | undefined> {
  const rows = await issueRows(
    sql,
    `update issues set status = $3, resolved_in_release = $4, status_changed_at = clock_timestamp(), updated_at = ${NEXT_VERSION}
     where project_id = $1 and id = $2 returning *`,
    [projectId, issueId, status, resolvedInRelease],
  );
  return rows[0];
}

/**
 * Forgets one user among the users of a project's issues (GDPR erasure): their rows go and the user count of each
 * issue they were counted in drops by one, and, when any rows went, the project's erasure count goes up
 * (issueUserErasures). Returns those issues as stored.
 */
export async function removeIssueUser(sql: SqlClient, projectId: string, userKey: string): Promise<IssueStateRow[]> {
  const issues = await issueRows(
    sql,
    `update issues set user_count = greatest(user_count - 1, 0), updated_at = ${NEXT_VERSION}
     from removed where issues.id = removed.issue_id
     returning issues.*`,
    [projectId, userKey],
    'removed as (delete from issue_users where project_id = $1 and user_key = $2 returning issue_id)',
  );
  // After the issues, as a purge takes them; only when rows went, so processors keep what they know otherwise.
  if (issues.length > 0) await countIssueUserErasures(sql, [projectId]);
  return issues;
}

/**
 * Removes a project's issues last seen before `cutoff` (its plan's retention: every error of theirs is past it too),
 * with their users, as Sentry's cleanup drops groups by `last_seen`; returns their ids. A count holding an issue's lock
 * makes the delete wait and read its new `last_seen`. The short-id counter stays, so no number shown before is reused.
 */
export async function purgeExpiredIssues(sql: SqlClient, projectId: string, cutoff: Date): Promise<string[]> {
  const expired = await sql.query<{ id: string }>('delete from issues where project_id = $1 and last_seen < $2 returning id', [
    projectId,
    cutoff.toISOString(),
  ]);
  if (expired.length === 0) return [];
  const ids = expired.map((row) => row.id);
  const users = await sql.query('delete from issue_users where issue_id = any($1::uuid[]) returning issue_id', [ids]);
  if (users.length > 0) await countIssueUserErasures(sql, [projectId]);
  return ids;
}

/** Raises the projects' erasure counts (issueUserErasures): call it wherever rows leave issue_users. */
export async function countIssueUserErasures(sql: SqlClient, projectIds: readonly string[]): Promise<void> {
  await sql.query(
    `insert into issue_user_erasures (project_id, erasures) select unnest($1::uuid[]), 1
     on conflict (project_id) do update set erasures = issue_user_erasures.erasures + 1`,
    [[...projectIds]],
  );
}

/** The columns of an issue row (IssueStateRow; a column added to `issues` goes here too). */
const ISSUE_VALUES = [
  'id', 'project_id', 'fingerprint', 'short_id', 'title', 'culprit', 'status', 'level', 'event_count', 'user_count',
  'release_first', 'release_last', 'resolved_in_release',
];
const ISSUE_TIMES = ['first_seen', 'last_seen', 'created_at', 'updated_at', 'status_changed_at'] as const;

/** An issue row as issueRows aggregates it. */
type IssueJson = Omit<IssueStateRow, (typeof ISSUE_TIMES)[number]> &
  Record<Exclude<(typeof ISSUE_TIMES)[number], 'status_changed_at'>, number> & { status_changed_at: number | null };

/** `json_build_object` of an issue row `r`, listed rather than `to_json(r)` so the times can be numbers. */
const ISSUE_JSON = `json_build_object(${[
  ...ISSUE_VALUES.map((column) => `'${column}', r.${column}`),
  ...ISSUE_TIMES.map((column) => `'${column}', date_part('epoch', r.${column}) * 1000`),
].join(', ')})`;

/**
 * The issues `statement` returns (a select or a `returning *`; `ctes` are WITH queries it reads), in id order. They
 * travel as one JSON value: PGlite decodes a result row by row in JavaScript, about 20 µs per issue row, and
 * JSON.parse does it in one pass. Times go as epoch milliseconds (float8 seconds times 1000, rounded here): the
 * JSON text of a timestamptz follows the session's time zone, whose offsets in old dates have seconds
 * (`-00:44:30`) that Date cannot parse, and `extract`'s numeric arithmetic costs PGlite more than float8's.
 */
async function issueRows(sql: SqlClient, statement: string, params: SqlParams, ctes?: string): Promise<IssueStateRow[]> {
  const rows = await jsonOf<IssueJson[]>(
    sql,
    `with ${ctes ? `${ctes}, ` : ''}r as (${statement}) select coalesce(json_agg(${ISSUE_JSON} order by r.id), '[]')::text as json from r`,
    params,
  );
  return rows.map((row) => ({
    ...row,
    first_seen: new Date(Math.round(row.first_seen)),
    last_seen: new Date(Math.round(row.last_seen)),
    created_at: new Date(Math.round(row.created_at)),
    updated_at: new Date(Math.round(row.updated_at)),
    status_changed_at: row.status_changed_at === null ? null : new Date(Math.round(row.status_changed_at)),
  }));
}

/** The one JSON value (`json`, as text) a statement answers. */
async function jsonOf<T>(sql: SqlClient, statement: string, params: SqlParams): Promise<T> {
  const [row] = await sql.query<{ json: string }>(statement, params);
  return JSON.parse(row!.json) as T;
}

/** `items` in the order of their keys, each key built once rather than twice per comparison. */
function sortedByKey<T>(items: readonly T[], keyOf: (item: T) => string): T[] {
  return items
    .map((item) => ({ item, key: keyOf(item) }))
    .sort((a, b) => compare(a.key, b.key))
    .map(({ item }) => item);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
