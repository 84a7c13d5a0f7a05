import { errorRow, errorsTable, issuesTable, type AnalyticsStore, type IssueRow } from '@tlm/analytics-store';
import {
  addIssueUsers,
  findIssues,
  insertNewIssues,
  issueIdsByFingerprint,
  issueUserErasures,
  lockIssues,
  markEventsProcessed,
  removeIssueUser,
  setIssueStatus,
  updateIssueCounts,
  type IssueStateRow,
  type MetadataStore,
  type SqlClient,
} from '@tlm/metadata-store';
import type { ErrorRecord } from '@tlm/signals';
import { groupError, type GroupedError } from './grouping';
import { countEvents, statusAfterAction, type IssueAction } from './lifecycle';

export interface IssueStores {
  metadata: MetadataStore;
  analytics: AnalyticsStore;
}

export interface RecordOutcome {
  /** Events counted by this call. */
  recorded: number;
  /** Events skipped because their event id was processed before (SDK retries, bus redelivery). */
  duplicates: number;
  /** Snapshots written: every issue the batch touched, as now stored. */
  issues: IssueStateRow[];
}

/** Postgres errors a concurrent writer can cause; the transaction is retried, since it changed nothing. */
const RETRYABLE_SQLSTATES = new Set(['40001', '40P01', '23505']);
const MAX_ATTEMPTS = 5;

const eventKey = (projectId: string, eventId: string) => `${projectId}\u0000${eventId}`;
const fingerprintKey = (projectId: string, fingerprint: string) => `${projectId}\u0000${fingerprint}`;

/**
 * Stores a batch of errors, exactly once in effect: `countErrors`, then `snapshotIssues`. The issues processor counts
 * and leaves the snapshots to a SnapshotWriter, which writes them behind the counts; tests and one-off callers use this.
 */
export async function recordErrors(stores: IssueStores, records: readonly ErrorRecord[]): Promise<RecordOutcome> {
  if (records.length === 0) return { recorded: 0, duplicates: 0, issues: [] };
  const counted = await countErrors(stores, records.map(groupError));
  return { recorded: counted.counted, duplicates: counted.duplicates, issues: await snapshotIssues(stores, counted) };
}

/** A batch counted into its issues and committed, before its issue snapshots are written. */
export interface CountedErrors {
  /** Events counted. */
  counted: number;
  /** Events skipped because their event id was processed before. */
  duplicates: number;
  /** The issues the count changed, as committed. */
  issues: IssueStateRow[];
  /** Issues of the batch that the count did not change (all of their events were duplicates). */
  untouched: string[];
}

/**
 * The first stage of storing a batch of grouped errors. In one metadata transaction:
 * 1. record the batch's event ids as processed; only those this transaction records go on (SDK retries and bus
 *    redeliveries of processed events stop here, and a concurrent transaction holding the same event id is waited
 *    for, so two batches never both take it);
 * 2. write their error rows to the analytics store (issue ids derive from project and fingerprint, so the rows need
 *    no issue row), overlapped with 3, and wait for the write before committing;
 * 3. create missing issues (unique per project and fingerprint), add users and count the events into the locked issues.
 * A failure before the commit leaves nothing counted, so the redelivered batch is counted in full; error rows written
 * again by it collapse in ClickHouse (ReplacingMergeTree on the row id).
 */
export async function countErrors(stores: IssueStores, errors: readonly GroupedError[]): Promise<CountedErrors> {
  if (errors.length === 0) return { counted: 0, duplicates: 0, issues: [], untouched: [] };
  const grouped = await withStoredIssueIds(stores.metadata, uniqueEvents(errors));
  const known = knownUsersOf(stores.metadata);
  const { counted, issues, users } = await retrying(() => stores.metadata.transaction((tx) => recordInTransaction(tx, stores.analytics, grouped, known)));
  known.learn(users);
  const updated = new Set(issues.map((issue) => issue.id));
  const untouched = [...new Set(grouped.map((error) => error.issueId))].filter((id) => !updated.has(id));
  return { counted, duplicates: errors.length - counted, issues, untouched };
}

/**
 * The second stage: a snapshot of every issue the batch touched goes to the analytics `issues` table (`updated_at`
 * orders snapshots, so one written after a newer one changes nothing). Returns the snapshotted issues. The issues
 * processor hands `touchedIssues` to a SnapshotWriter instead.
 */
export async function snapshotIssues(stores: IssueStores, batch: CountedErrors): Promise<IssueStateRow[]> {
  const snapshots = await touchedIssues(stores, batch);
  await writeIssueSnapshots(stores.analytics, snapshots);
  return snapshots;
}

/**
 * Every issue a counted batch touched, as now stored: those its count changed, and those all of whose events were
 * duplicates, whose snapshot a crash may have lost after their first count (their redelivery writes it again).
 */
export async function touchedIssues(stores: IssueStores, batch: CountedErrors): Promise<IssueStateRow[]> {
  if (batch.untouched.length === 0) return batch.issues;
  return [...batch.issues, ...(await findIssues(stores.metadata, batch.untouched))];
}

/** (project, fingerprint) pairs whose issue id is known to be the derived one, or the stored one when it differs. */
const storedIssueIds = new Map<string, string>();
const MAX_STORED_ISSUE_IDS = 10_000;

/**
 * Issues stored before stop 7 have ids in the older version 8 layout, which `issueIdOf` no longer derives: errors of
 * their fingerprints go to the stored id, so an upgraded installation keeps counting into its issues. A pair is
 * looked up once per process; issues created since carry the derived id, which is then what the lookup finds.
 */
async function withStoredIssueIds(metadata: MetadataStore, errors: GroupedError[]): Promise<GroupedError[]> {
  const unknown = new Map<string, { projectId: string; fingerprint: string }>();
  for (const error of errors) {
    const key = fingerprintKey(error.record.projectId, error.fingerprint.hash);
    if (!storedIssueIds.has(key)) unknown.set(key, { projectId: error.record.projectId, fingerprint: error.fingerprint.hash });
  }
  if (unknown.size > 0) {
    const found = await issueIdsByFingerprint(metadata, [...unknown.values()]);
    if (storedIssueIds.size + unknown.size > MAX_STORED_ISSUE_IDS) storedIssueIds.clear();
    // Only pairs whose issue exists are remembered: a new one gets the derived id when it is created.
    for (const issue of found) storedIssueIds.set(fingerprintKey(issue.projectId, issue.fingerprint), issue.id);
  }
  return errors.map((error) => {
    const stored = storedIssueIds.get(fingerprintKey(error.record.projectId, error.fingerprint.hash));
    return stored && stored !== error.issueId ? { ...error, issueId: stored } : error;
  });
}

/** The transaction of recordErrors; every lock is taken in key order, so concurrent batches wait rather than deadlock. */
async function recordInTransaction(
  tx: SqlClient,
  analytics: AnalyticsStore,
  errors: readonly GroupedError[],
  known: KnownIssueUsers,
): Promise<{ counted: number; issues: IssueStateRow[]; users: StoredUsers }> {
  const recorded = await markEventsProcessed(
    tx,
    errors.map((error) => ({ projectId: error.record.projectId, eventId: error.record.id })),
  );
  const counted = errors.filter((error) => recorded.has(eventKey(error.record.projectId, error.record.id)));
  if (counted.length === 0) return { counted: 0, issues: [], users: { pairs: [], erasures: new Map() } };
  const rowsWritten = analytics.insert(
    errorsTable,
    counted.map((error) => errorRow(error.record, { issueId: error.issueId, fingerprintHash: error.fingerprint.hash })),
  );
  try {
    const { issues, users } = await countIntoLockedIssues(tx, counted, known);
    await rowsWritten;
    return { counted: counted.length, issues, users };
  } finally {
    // A failed count still waits for the row write, so no write outlives its transaction unobserved.
    await rowsWritten.catch(() => undefined);
  }
}

/**
 * Creates the batch's new issues, locks all of its issues and writes their counts; returns them as stored, and the
 * (issue, user) pairs that are stored once the transaction commits.
 */
async function countIntoLockedIssues(
  tx: SqlClient,
  counted: readonly GroupedError[],
  known: KnownIssueUsers,
): Promise<{ issues: IssueStateRow[]; users: StoredUsers }> {
  const byIssue = new Map<string, GroupedError[]>();
  for (const error of counted) {
    const events = byIssue.get(error.issueId);
    if (events) events.push(error);
    else byIssue.set(error.issueId, [error]);
  }
  const ids = [...byIssue.keys()];
  let locked = await lockIssues(tx, ids);
  if (locked.length < ids.length) {
    const existing = new Set(locked.map((issue) => issue.id));
    await insertNewIssues(
      tx,
      ids
        .filter((id) => !existing.has(id))
        .map((id) => {
          const first = byIssue.get(id)!.reduce((earliest, error) => (error.record.timestamp < earliest.record.timestamp ? error : earliest));
          return {
            id,
            projectId: first.record.projectId,
            fingerprint: first.fingerprint.hash,
            title: first.title,
            culprit: first.culprit,
            level: first.record.level,
            firstSeen: first.record.timestamp,
          };
        }),
    );
    locked = await lockIssues(tx, ids);
  }
  const users = new Map<string, IssueUser>();
  for (const error of counted) {
    if (!error.userKey) continue;
    const pair = { projectId: error.record.projectId, issueId: error.issueId, userKey: error.userKey };
    users.set(pairKey(pair), pair);
  }
  const pairs = [...users.values()];
  const erasures = await issueUserErasures(tx, [...new Set(pairs.map((pair) => pair.projectId))]);
  const newUsers = await addIssueUsers(tx, known.unknown(pairs, erasures));
  const issues = await updateIssueCounts(
    tx,
    locked.map((issue) =>
      countEvents(
        issue,
        byIssue.get(issue.id)!.map((error) => ({ timestamp: error.record.timestamp, release: error.record.release, level: error.record.level })),
        newUsers.get(issue.id) ?? 0,
      ),
    ),
  );
  return { issues, users: { pairs, erasures } };
}

interface IssueUser {
  projectId: string;
  issueId: string;
  userKey: string;
}

const pairKey = (pair: IssueUser) => `${pair.issueId}\u0000${pair.userKey}`;

/** Pairs stored in issue_users once a transaction commits, with the erasure counts that transaction read. */
interface StoredUsers {
  pairs: IssueUser[];
  erasures: Map<string, number>;
}

/** Pairs remembered per process before the whole memory is dropped. */
const MAX_KNOWN_ISSUE_USERS = 200_000;

/**
 * The (issue, user) pairs known to be in issue_users, per project: most events come from a user their issue has
 * seen, and each pair skipped saves a primary-key probe in the metadata store (about 6 µs in PGlite). A pair is
 * learnt only after its transaction commits. Pairs leave issue_users only by GDPR erasure or a project purge, which
 * raise the project's erasure count in the same transaction; a batch that reads a count other than the one its
 * project's pairs were learnt under forgets them first. An erasure racing a batch can leave one event's user uncounted, as
 * if the event had come just before the erasure.
 */
class KnownIssueUsers {
  private readonly projects = new Map<string, { erasures: number; pairs: Set<string> }>();
  private size = 0;

  /** The pairs not known to be stored, given the erasure counts read in the current transaction. */
  unknown(pairs: readonly IssueUser[], erasures: ReadonlyMap<string, number>): IssueUser[] {
    return pairs.filter((pair) => {
      const project = this.projects.get(pair.projectId);
      if (!project || project.erasures !== (erasures.get(pair.projectId) ?? 0)) return true;
      return !project.pairs.has(pairKey(pair));
    });
  }

  learn({ pairs, erasures }: StoredUsers): void {
    if (this.size + pairs.length > MAX_KNOWN_ISSUE_USERS) {
      this.projects.clear();
      this.size = 0;
    }
    for (const pair of pairs) {
      const count = erasures.get(pair.projectId) ?? 0;
      let project = this.projects.get(pair.projectId);
      if (!project || project.erasures !== count) {
        if (project) this.size -= project.pairs.size;
        project = { erasures: count, pairs: new Set() };
        this.projects.set(pair.projectId, project);
      }
      const key = pairKey(pair);
      if (!project.pairs.has(key)) {
        project.pairs.add(key);
        this.size += 1;
      }
    }
  }
}

/** One memory of stored pairs per metadata store, so separate stores in one process never share one. */
const knownUsers = new WeakMap<MetadataStore, KnownIssueUsers>();

function knownUsersOf(metadata: MetadataStore): KnownIssueUsers {
  let known = knownUsers.get(metadata);
  if (!known) {
    known = new KnownIssueUsers();
    knownUsers.set(metadata, known);
  }
  return known;
}

/** A person's action on an issue (SPEC.md Issue status); undefined when the project has no such issue. */
export async function applyIssueAction(
  stores: IssueStores,
  projectId: string,
  issueId: string,
  action: IssueAction,
): Promise<IssueStateRow | undefined> {
  const next = statusAfterAction(action);
  const issue = await setIssueStatus(stores.metadata, projectId, issueId, next.status, next.resolvedInRelease);
  if (issue) await writeIssueSnapshots(stores.analytics, [issue]);
  return issue;
}

/**
 * GDPR erasure of a person from the issues: the user whose id is `distinctId` (error rows name users by `user.id`)
 * is no longer counted in any issue of the project; returns how many issues counted them.
 */
export async function forgetIssueUser(stores: IssueStores, projectId: string, distinctId: string): Promise<number> {
  const issues = await stores.metadata.transaction((tx) => removeIssueUser(tx, projectId, `id:${distinctId}`));
  await writeIssueSnapshots(stores.analytics, issues);
  return issues.length;
}

/** Writes the analytics snapshots of issues as stored; with none, the store is not called. */
export async function writeIssueSnapshots(analytics: AnalyticsStore, issues: readonly IssueStateRow[]): Promise<void> {
  if (issues.length > 0) await analytics.insert(issuesTable, issues.map(issueSnapshot));
}

/** The analytics snapshot of an issue; `updated_at` orders snapshots, so the newest wins wherever they race. */
export function issueSnapshot(issue: IssueStateRow): IssueRow {
  return {
    project_id: issue.project_id,
    id: issue.id,
    short_id: Number(issue.short_id),
    title: issue.title,
    culprit: issue.culprit,
    fingerprint: issue.fingerprint,
    status: issue.status,
    level: issue.level,
    event_count: Number(issue.event_count),
    user_count: Number(issue.user_count),
    first_seen: issue.first_seen.getTime(),
    last_seen: issue.last_seen.getTime(),
    release_first: issue.release_first,
    release_last: issue.release_last,
    resolved_in_release: issue.resolved_in_release,
    updated_at: issue.updated_at.getTime(),
  };
}

/** One entry per (project, event id): a batch may hold an event twice (an SDK retry published next to the original). */
function uniqueEvents(errors: readonly GroupedError[]): GroupedError[] {
  const byKey = new Map<string, GroupedError>();
  for (const error of errors) {
    const key = eventKey(error.record.projectId, error.record.id);
    if (!byKey.has(key)) byKey.set(key, error);
  }
  return [...byKey.values()];
}

async function retrying<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (attempt >= MAX_ATTEMPTS || typeof code !== 'string' || !RETRYABLE_SQLSTATES.has(code)) throw error;
    }
  }
}
