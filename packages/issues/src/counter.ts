import { waiter, type Logger, type Waiter } from '@tlm/core';
import {
  addIssueUsers,
  advanceErrorPositions,
  insertNewIssues,
  issueUserErasures,
  lockIssues,
  updateIssueCounts,
  type IssueStateRow,
  type MetadataStore,
  type SqlClient,
} from '@tlm/metadata-store';
import { countTally, IssueTally, type CountableError } from './lifecycle';
import { runAfter } from './schedule';

/**
 * Least time between the starts of two counts when nobody waits for them: under load, the errors stored meanwhile
 * share one metadata transaction, whose cost grows with the issues it touches, not with their errors.
 */
export const COUNT_INTERVAL_MS = 500;

/** A place in the errors stream: a bus's partition and offset (Kafka's MessagePosition), or partition 0 and the recorder's own numbering. */
export interface StreamPosition {
  partition: number;
  offset: number;
}

/** An error whose row is stored, with its place in the errors stream. */
export interface PositionedError extends CountableError, StreamPosition {}

/** Postgres errors a concurrent writer can cause; the transaction is retried, since it changed nothing. */
const RETRYABLE_SQLSTATES = new Set(['40001', '40P01', '23505']);
const MAX_ATTEMPTS = 5;

/** A count refused because another processor has counted a partition further (a Kafka rebalance handed it over). */
export class PartitionTakenError extends Error {
  constructor(readonly partitions: number[]) {
    super(`partitions ${partitions.join(', ')} of the errors stream are counted by another processor`);
  }
}

/** What one partition's uncounted errors add up to. */
interface PartitionTally {
  issues: Map<string, IssueTally>;
  /** The highest offset among them. */
  through: number;
  /** Settles when they are counted and stored. */
  counted: Waiter;
}

/**
 * Counts stored errors into their issues in the metadata store (docs/decisions.md "Issue counts follow the rows"). Errors
 * are tallied per issue as their rows are stored; one transaction then creates the new issues, adds the users and
 * counts every tallied issue, and moves each partition's stored position to the last offset it counted, so a restart
 * counts exactly the errors after it. A count runs at most every `intervalMs`, at once when somebody waits for it
 * (`add` with `urgent`), and one at a time; a failed count stays tallied and is tried again after the interval.
 */
export class IssueCounter {
  private pending = new Map<number, PartitionTally>();
  private pendingErrors = 0;
  private urgent = false;
  private counting: Promise<boolean> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private lastStart = Number.NEGATIVE_INFINITY;
  /** After a failed count, when the next may start, waiters or not. */
  private retryAt = Number.NEGATIVE_INFINITY;
  private closed = false;
  /** Per partition, the position the metadata store holds, as this processor last read or wrote it. */
  private readonly positions = new Map<number, number>();
  private readonly knownUsers = new KnownIssueUsers();

  constructor(
    private readonly metadata: MetadataStore,
    private readonly logger: Logger,
    /** Called with the issues each count changed, as stored. */
    private readonly onCounted: (issues: IssueStateRow[]) => void,
    /** Called with partitions another processor took over; their tallies are dropped. */
    private readonly onTaken: (partitions: number[]) => void,
    private readonly intervalMs = COUNT_INTERVAL_MS,
  ) {}

  /** The position of a partition as stored, once read or written; undefined before. */
  position(partition: number): number | undefined {
    return this.positions.get(partition);
  }

  /** What the metadata store holds for a partition, read by the caller before the partition's first errors. */
  learnPosition(partition: number, countedThrough: number): void {
    this.positions.set(partition, countedThrough);
  }

  /**
   * Tallies stored errors; resolves once they are counted and stored, or rejects when their partition was taken by
   * another processor or the counter closed before it could count them. `urgent`: somebody waits, count at once.
   */
  add(errors: readonly PositionedError[], urgent: boolean): Promise<void> {
    if (errors.length === 0) return Promise.resolve();
    if (this.closed) return Promise.reject(new Error('the issue counter is closed'));
    const touched = new Set<PartitionTally>();
    for (const error of errors) {
      let partition = this.pending.get(error.partition);
      if (!partition) {
        partition = { issues: new Map(), through: -1, counted: waiter() };
        this.pending.set(error.partition, partition);
      }
      const tally = partition.issues.get(error.issueId);
      if (tally) tally.add(error);
      else partition.issues.set(error.issueId, new IssueTally(error));
      if (error.offset > partition.through) partition.through = error.offset;
      touched.add(partition);
    }
    this.pendingErrors += errors.length;
    this.urgent ||= urgent;
    this.schedule();
    if (touched.size === 1) return [...touched][0]!.counted.promise;
    const all = Promise.all([...touched].map((partition) => partition.counted.promise)).then(() => undefined);
    all.catch(() => undefined);
    return all;
  }

  /** Counts what is tallied now, without waiting for the interval; rejects when that count fails (it stays tallied). */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    while (this.counting) await this.counting;
    if (this.pendingErrors === 0) return;
    if (!(await this.countPending())) throw new Error(`${this.pendingErrors} tallied errors could not be counted`);
  }

  /** Counts what is tallied; what cannot be counted is given up (its rows are stored and counted after a restart). */
  async close(): Promise<void> {
    try {
      await this.flush();
    } finally {
      this.closed = true;
      const error = new Error('the issue counter closed before counting these errors');
      for (const partition of this.pending.values()) partition.counted.reject(error);
      this.pending = new Map();
      this.pendingErrors = 0;
    }
  }

  private schedule(): void {
    if (this.counting || this.pendingErrors === 0 || this.closed) return;
    const earliest = this.urgent ? this.retryAt : Math.max(this.retryAt, this.lastStart + this.intervalMs);
    const wait = earliest - performance.now();
    if (this.timer) {
      if (wait > 0) return;
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    // Tallies never hold a process open: closing the counter counts them.
    this.timer = runAfter(wait, () => {
      this.timer = undefined;
      void this.countPending();
    });
  }

  /** One count of everything tallied; true when it was stored. Never rejects. */
  private countPending(): Promise<boolean> {
    const batch = this.pending;
    const errors = this.pendingErrors;
    this.pending = new Map();
    this.pendingErrors = 0;
    this.urgent = false;
    this.lastStart = performance.now();
    const counted = this.count(batch).then(
      () => {
        this.retryAt = Number.NEGATIVE_INFINITY;
        return true;
      },
      (error: unknown) => {
        if (error instanceof PartitionTakenError) {
          this.giveUp(batch, error);
        } else {
          // Back in front of what was tallied meanwhile; tried again after the interval.
          this.logger.error({ err: error, errors }, 'tallied errors were not counted; trying again');
          this.requeue(batch, errors);
          this.retryAt = performance.now() + this.intervalMs;
        }
        return false;
      },
    );
    this.counting = counted.finally(() => {
      this.counting = undefined;
      this.schedule();
    });
    return this.counting;
  }

  private async count(batch: Map<number, PartitionTally>): Promise<void> {
    const tallies = new Map<string, IssueTally>();
    for (const partition of batch.values()) for (const [id, tally] of partition.issues) tallies.set(id, tally);
    const { issues, users } = await retrying(() =>
      this.metadata.transaction(async (tx) => {
        const taken = await advanceErrorPositions(
          tx,
          [...batch].map(([partition, tally]) => ({ partition, from: this.positions.get(partition) ?? -1, to: tally.through })),
        );
        // Thrown inside the transaction, so its counts roll back with it.
        if (taken.length > 0) throw new PartitionTakenError(taken);
        return countIntoLockedIssues(tx, tallies, this.knownUsers);
      }),
    );
    for (const [partition, tally] of batch) this.positions.set(partition, tally.through);
    this.knownUsers.learn(users);
    this.onCounted(issues);
    for (const partition of batch.values()) partition.counted.resolve();
  }

  /** Drops the taken partitions' tallies and counts the others again at once. */
  private giveUp(batch: Map<number, PartitionTally>, error: PartitionTakenError): void {
    this.logger.warn({ partitions: error.partitions }, 'another processor counts these partitions now; dropping their tallies');
    let errors = 0;
    for (const partition of error.partitions) {
      batch.get(partition)?.counted.reject(error);
      batch.delete(partition);
      this.positions.delete(partition);
    }
    for (const tally of batch.values()) for (const issue of tally.issues.values()) errors += issue.events;
    this.onTaken(error.partitions);
    this.requeue(batch, errors);
    this.lastStart = Number.NEGATIVE_INFINITY;
  }

  /** Puts a batch that was not counted back in front of the errors tallied since. */
  private requeue(batch: Map<number, PartitionTally>, errors: number): void {
    for (const [partition, later] of this.pending) {
      const earlier = batch.get(partition);
      if (!earlier) {
        batch.set(partition, later);
        continue;
      }
      for (const [id, tally] of later.issues) {
        const before = earlier.issues.get(id);
        if (before) before.merge(tally);
        else earlier.issues.set(id, tally);
      }
      earlier.through = Math.max(earlier.through, later.through);
      // One count settles both: the later waiter is the merged tally's, and the earlier one follows it.
      later.counted.promise.then(earlier.counted.resolve, earlier.counted.reject);
      earlier.counted = later.counted;
    }
    this.pending = batch;
    this.pendingErrors += errors;
  }
}

/**
 * Creates the tallied issues that do not exist yet, locks all of them in id order and writes their counts; returns them
 * as stored, and the (issue, user) pairs not known before, stored once the transaction commits.
 */
async function countIntoLockedIssues(
  tx: SqlClient,
  tallies: ReadonlyMap<string, IssueTally>,
  known: KnownIssueUsers,
): Promise<{ issues: IssueStateRow[]; users: StoredUsers }> {
  const ids = [...tallies.keys()];
  let locked = await lockIssues(tx, ids);
  if (locked.length < ids.length) {
    const existing = new Set(locked.map((issue) => issue.id));
    await insertNewIssues(
      tx,
      ids
        .filter((id) => !existing.has(id))
        .map((id) => {
          const { first } = tallies.get(id)!;
          return {
            id,
            projectId: first.projectId,
            fingerprint: first.fingerprint,
            title: first.title,
            culprit: first.culprit,
            level: first.level,
            firstSeen: first.timestamp,
          };
        }),
    );
    locked = await lockIssues(tx, ids);
  }
  const pairs: IssueUser[] = [];
  for (const [issueId, tally] of tallies) {
    for (const userKey of tally.users) pairs.push({ projectId: tally.first.projectId, issueId, userKey });
  }
  const erasures = await issueUserErasures(tx, [...new Set(pairs.map((pair) => pair.projectId))]);
  // Only these need learning once committed: the others are known under the same erasure counts.
  const unknownPairs = known.unknown(pairs, erasures);
  const newUsers = await addIssueUsers(tx, unknownPairs);
  const issues = await updateIssueCounts(
    tx,
    locked.map((issue) => countTally(issue, tallies.get(issue.id)!, newUsers.get(issue.id) ?? 0)),
  );
  return { issues, users: { pairs: unknownPairs, erasures } };
}

interface IssueUser {
  projectId: string;
  issueId: string;
  userKey: string;
}

const pairKey = (pair: IssueUser) => `${pair.issueId}\u0000${pair.userKey}`;

/** Pairs not known before, stored in issue_users once a transaction commits, with the erasure counts it read. */
interface StoredUsers {
  pairs: IssueUser[];
  erasures: Map<string, number>;
}

/** Pairs remembered per process before the whole memory is dropped. */
const MAX_KNOWN_ISSUE_USERS = 200_000;

/**
 * The (issue, user) pairs known to be in issue_users, per project: most errors come from a user their issue has
 * seen, and each pair skipped saves a primary-key probe in the metadata store (about 6 µs in PGlite). A pair is
 * learnt only after its transaction commits. Pairs leave issue_users only by GDPR erasure or a project purge, which
 * raise the project's erasure count in the same transaction; a count that reads another erasure count than the one its
 * project's pairs were learnt under forgets them first. An erasure racing a count can leave one user uncounted, as if
 * their error had come just before the erasure.
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
