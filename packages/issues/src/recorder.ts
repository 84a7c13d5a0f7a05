import {
  countedErrorIds,
  errorRecordMapping,
  errorRow,
  errorsTable,
  lastErrorOffset,
  stacksTable,
  storedIds,
  uncountedErrors,
  type ErrorGrouping,
  type Stack,
  type StackRow,
  type StoredError,
} from '@tlm/analytics-store';
import type { Logger } from '@tlm/core';
import { errorPositions, issueIdsByFingerprint, type IssueStateRow } from '@tlm/metadata-store';
import { IssueCounter, COUNT_INTERVAL_MS, type PositionedError, type StreamPosition } from './counter';
import { culpritOf, titleOf, userKeyOf, type GroupedError } from './grouping';
import { RecentEventIds, RECENT_EVENTS } from './recentEvents';
import { SnapshotWriter, snapshotRecentIssues } from './snapshots';
import { StackMemo } from './stackMemo';
import type { IssueStores } from './store';

export interface ErrorRecorderOptions {
  /**
   * `own`: the recorder numbers the errors stream itself (partition 0) and, on start, counts the rows stored after the
   * stored position: standalone, where the embedded bus never delivers a message again and the rows are the only
   * record. `bus`: every error comes with its position in a bus that delivers again what was not acknowledged (Kafka),
   * so a delivery is acknowledged only once counted, and what a redelivery brings at or below the stored position is
   * skipped.
   */
  positions: 'own' | 'bus';
  /** Least time between two counts nobody waits for; COUNT_INTERVAL_MS by default. */
  countIntervalMs?: number;
  /** Least time between the starts of two issue snapshot writes; SNAPSHOT_INTERVAL_MS by default. */
  snapshotIntervalMs?: number;
  /** Event ids remembered per generation; RECENT_EVENTS by default. */
  recentEvents?: number;
}

export interface Recorded {
  /** Errors whose rows were stored. */
  recorded: number;
  /** Errors skipped: their event id was stored before (SDK retries), or a redelivery brought them again. */
  duplicates: number;
  /** Whether an error needed an issue the metadata store does not hold yet. */
  createsIssues: boolean;
  /** Settles once the recorded errors are counted into their issues in the metadata store. */
  counted: Promise<void>;
}

/** How far back, at most, a start looks for the event ids of counted errors. */
const RECENT_IDS_LOOKBACK_MS = 24 * 60 * 60 * 1000;
/** Uncounted rows read and counted per page on start. */
const RECOVERY_PAGE = 5_000;
/** (project, fingerprint) pairs whose stored issue id is remembered before the memory is dropped. */
const MAX_STORED_ISSUE_IDS = 10_000;
/** Stacks remembered as written before the memory is dropped. */
const MAX_WRITTEN_STACKS = 100_000;
const DAY_MS = 24 * 60 * 60 * 1000;

const fingerprintKey = (projectId: string, fingerprint: string) => `${projectId}\u0000${fingerprint}`;

/**
 * Stores captured errors and counts them into issues (docs/decisions.md "Issue counts follow the rows"). `record`
 * writes a batch's error rows and tallies the batch; the rows are the record of the errors, so a delivery can be
 * answered once they are stored. The IssueCounter counts the tallies into the metadata store behind them, and a
 * SnapshotWriter copies the counted issues to the analytics `issues` table. Event ids stored recently are remembered,
 * so an error is stored and counted once. One batch is recorded at a time, in the order `record` is called.
 */
export class ErrorRecorder {
  private readonly recent: RecentEventIds;
  private readonly counter: IssueCounter;
  private readonly snapshots: SnapshotWriter;
  /** (project, fingerprint) → the id of its stored issue: known to exist, and for issues with version 8 ids, not the derived id. */
  private readonly storedIssueIds = new Map<string, string>();
  /** (project, stack id) → the UTC day this recorder last wrote the stack. */
  private readonly writtenStacks = new Map<string, number>();
  private readonly stackMemo = new StackMemo();
  /** Partitions whose stored position and recent event ids have been read (`bus` positions). */
  private readonly loaded = new Set<number>();
  /** The next offset of partition 0 (`own` positions). */
  private nextOffset = 0;
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly stores: IssueStores,
    private readonly logger: Logger,
    private readonly options: ErrorRecorderOptions,
  ) {
    this.recent = new RecentEventIds(options.recentEvents ?? RECENT_EVENTS);
    this.snapshots = new SnapshotWriter(stores, logger, options.snapshotIntervalMs);
    this.counter = new IssueCounter(
      stores.metadata,
      logger,
      (issues) => this.counted(issues),
      (partitions) => this.taken(partitions),
      options.countIntervalMs ?? COUNT_INTERVAL_MS,
    );
  }

  /**
   * Writes again the snapshots a crash may have kept from the analytics store, and with `own` positions counts the
   * rows stored after the stored position (a crash between storing rows and counting them) before anything new.
   */
  static async start(stores: IssueStores, logger: Logger, options: ErrorRecorderOptions): Promise<ErrorRecorder> {
    const recorder = new ErrorRecorder(stores, logger, options);
    const rewritten = await snapshotRecentIssues(stores);
    if (rewritten > 0) logger.info({ issues: rewritten }, 'wrote again the snapshots of recently changed issues');
    if (options.positions === 'own') await recorder.recoverOwnStream();
    return recorder;
  }

  /**
   * Stores a batch of grouped errors, in order, skipping the ones stored before; `positions` (from a bus that
   * redelivers) give each error's place in the stream, else the recorder numbers them. `encoded`, the records as the
   * bus journaled them (JSON arrays, in order), lets a store that reads them (insertRecords) take the rows from those
   * bytes when every error of the batch is stored. Rejects when the rows could not be stored: nothing of the batch is
   * then remembered or counted.
   */
  record(errors: readonly GroupedError[], positions?: readonly StreamPosition[], redelivered = false, encoded?: readonly Buffer[]): Promise<Recorded> {
    if ((positions !== undefined) !== (this.options.positions === 'bus')) {
      return Promise.reject(new Error(`errors recorded with ${this.options.positions} positions must ${positions ? 'not ' : ''}come with positions`));
    }
    const recorded = this.queue.then(() => this.recordInOrder(errors, positions, redelivered, encoded));
    this.queue = recorded.catch(() => undefined);
    return recorded;
  }

  /** Counts everything recorded so far and writes its snapshots; rejects when either fails. */
  async flush(): Promise<void> {
    await this.queue;
    await this.counter.flush();
    await this.snapshots.flush();
  }

  /**
   * Counts what is tallied and writes the snapshots held. Failures are logged, not thrown, so the stores still close:
   * the rows are stored, and the next start (or the bus's redelivery) counts them; it also writes the snapshots.
   */
  async close(): Promise<void> {
    await this.queue;
    await this.counter.close().catch((error: unknown) => this.logger.error({ err: error }, 'errors left uncounted at close'));
    await this.snapshots.flush().catch((error: unknown) => this.logger.error({ err: error }, 'issue snapshots left unwritten at close'));
  }

  private async recordInOrder(
    errors: readonly GroupedError[],
    positions: readonly StreamPosition[] | undefined,
    redelivered: boolean,
    encoded: readonly Buffer[] | undefined,
  ): Promise<Recorded> {
    if (positions) for (const partition of new Set(positions.map((position) => position.partition))) await this.load(partition);
    const kept: { error: GroupedError; partition: number; offset: number }[] = [];
    const inBatch = errors.length > 1 ? new Set<string>() : undefined;
    for (let index = 0; index < errors.length; index++) {
      const error = errors[index]!;
      const { projectId, id } = error.record;
      if (positions && positions[index]!.offset <= (this.counter.position(positions[index]!.partition) ?? -1)) continue;
      if (this.recent.has(projectId, id)) continue;
      if (inBatch) {
        const key = `${projectId}\u0000${id}`;
        if (inBatch.has(key)) continue;
        inBatch.add(key);
      }
      kept.push(positions ? { error, ...positions[index]! } : { error, partition: 0, offset: this.nextOffset++ });
    }
    const duplicates = errors.length - kept.length;
    if (kept.length === 0) return { recorded: 0, duplicates, createsIssues: false, counted: Promise.resolve() };
    const createsIssues = await this.withStoredIssueIds(kept);
    const stacks = kept.map(({ error }) =>
      error.record.frames.length > 0 ? this.stackMemo.stackOf(fingerprintKey(error.record.projectId, error.fingerprint.hash), error.record.frames) : null,
    );
    // Stacks before the rows that name them, so a row never names a stack a crash kept from the store.
    const unwritten = this.unwrittenStacks(kept, stacks);
    if (unwritten.length > 0) await this.stores.analytics.insert(stacksTable, unwritten);
    // A redelivery may bring errors stored but not counted (a crash between the two): they are counted, not stored again.
    const stored = redelivered ? await storedIds(this.stores.analytics, 'errors', kept.map(({ error }) => error.record.id)) : new Set<string>();
    const groupings = kept.map(({ error, partition, offset }, index): ErrorGrouping => ({
      issueId: error.issueId,
      fingerprintHash: error.fingerprint.hash,
      partition,
      offset,
      stackId: stacks[index]?.id ?? null,
    }));
    const { analytics } = this.stores;
    if (encoded && analytics.insertRecords && kept.length === errors.length && stored.size === 0) {
      await analytics.insertRecords(
        errorsTable,
        errorRecordMapping.fields,
        encoded,
        kept.map(({ error }, index) => errorRecordMapping.computed(error.record, groupings[index]!)),
      );
    } else {
      await analytics.insert(
        errorsTable,
        kept.map(({ error }, index) => errorRow(error.record, groupings[index]!)).filter((row) => !stored.has(row.id)),
      );
    }
    this.rememberStacks(unwritten);
    for (const { error } of kept) this.recent.add(error.record.projectId, error.record.id);
    const counted = this.counter.add(
      kept.map(({ error, partition, offset }) => positioned(error, partition, offset)),
      createsIssues || this.options.positions === 'bus',
    );
    return { recorded: kept.length, duplicates, createsIssues, counted };
  }

  /**
   * Gives each error the id of its stored issue (issues stored by earlier versions have ids in the version 8 layout,
   * which `issueIdOf` no longer derives: errors of their fingerprints go to the stored id, so an upgraded installation
   * keeps counting into its issues). Answers whether some error's issue is not stored yet. A pair is looked up until
   * its issue is found; issues created since carry the derived id.
   */
  private async withStoredIssueIds(kept: { error: GroupedError }[]): Promise<boolean> {
    const unknown = new Map<string, { projectId: string; fingerprint: string }>();
    for (const { error } of kept) {
      const key = fingerprintKey(error.record.projectId, error.fingerprint.hash);
      if (!this.storedIssueIds.has(key)) unknown.set(key, { projectId: error.record.projectId, fingerprint: error.fingerprint.hash });
    }
    if (unknown.size === 0) return false;
    const found = await issueIdsByFingerprint(this.stores.metadata, [...unknown.values()]);
    this.rememberIssueIds(found.map((issue) => ({ key: fingerprintKey(issue.projectId, issue.fingerprint), id: issue.id })));
    let creates = false;
    for (const entry of kept) {
      const stored = this.storedIssueIds.get(fingerprintKey(entry.error.record.projectId, entry.error.fingerprint.hash));
      if (stored === undefined) creates = true;
      else if (stored !== entry.error.issueId) entry.error = { ...entry.error, issueId: stored };
    }
    return creates;
  }

  /**
   * The batch's stacks this recorder has not written today, once each. Writing a stack again once a day keeps its
   * `updated_at`, on which retention cuts, within a day of the errors that name it; the purge keeps it while they do.
   */
  private unwrittenStacks(kept: readonly { error: GroupedError }[], stacks: readonly (Stack | null)[]): StackRow[] {
    const now = Date.now();
    const today = Math.floor(now / DAY_MS);
    const rows = new Map<string, StackRow>();
    stacks.forEach((stack, index) => {
      if (!stack) return;
      const { record } = kept[index]!.error;
      const key = `${record.projectId}\u0000${stack.id}`;
      if (this.writtenStacks.get(key) === today || rows.has(key)) return;
      rows.set(key, { project_id: record.projectId, id: stack.id, frames: stack.frames, updated_at: now, retention_days: record.retentionDays });
    });
    return [...rows.values()];
  }

  private rememberStacks(written: readonly StackRow[]): void {
    if (this.writtenStacks.size + written.length > MAX_WRITTEN_STACKS) this.writtenStacks.clear();
    for (const stack of written) this.writtenStacks.set(`${stack.project_id}\u0000${stack.id}`, Math.floor(stack.updated_at / DAY_MS));
  }

  private rememberIssueIds(issues: readonly { key: string; id: string }[]): void {
    if (this.storedIssueIds.size + issues.length > MAX_STORED_ISSUE_IDS) this.storedIssueIds.clear();
    for (const issue of issues) this.storedIssueIds.set(issue.key, issue.id);
  }

  /** After each count: its issues exist now, and their snapshots follow. */
  private counted(issues: IssueStateRow[]): void {
    this.rememberIssueIds(issues.map((issue) => ({ key: fingerprintKey(issue.project_id, issue.fingerprint), id: issue.id })));
    this.snapshots.add(issues);
  }

  /**
   * Another processor counts these partitions now (Kafka rebalance): what this one remembers of them may include
   * errors it stored but never counted, so it forgets every event id and reads each partition again when it comes back.
   */
  private taken(partitions: number[]): void {
    this.logger.warn({ partitions }, 'forgetting recent event ids; partitions are read again when they come back');
    this.recent.clear();
    this.loaded.clear();
  }

  /** A partition's stored position and the ids of its counted errors, read before its first errors are recorded. */
  private async load(partition: number): Promise<void> {
    if (this.loaded.has(partition)) return;
    const position = (await errorPositions(this.stores.metadata, [partition])).get(partition)!;
    await this.rememberCountedIds(partition, position);
    this.counter.learnPosition(partition, position);
    this.loaded.add(partition);
  }

  private async rememberCountedIds(partition: number, through: number): Promise<void> {
    const ids = await countedErrorIds(this.stores.analytics, partition, through, Date.now() - RECENT_IDS_LOOKBACK_MS, this.options.recentEvents ?? RECENT_EVENTS);
    // Oldest first, so the newest stay in the current generation.
    for (let index = ids.length - 1; index >= 0; index--) this.recent.add(ids[index]!.projectId, ids[index]!.id);
  }

  /** `own` positions: count what a crash left stored but uncounted, then number new errors after every stored one. */
  private async recoverOwnStream(): Promise<void> {
    let after = (await errorPositions(this.stores.metadata, [0])).get(0)!;
    this.counter.learnPosition(0, after);
    let recovered = 0;
    for (;;) {
      const page = await uncountedErrors(this.stores.analytics, 0, after, RECOVERY_PAGE);
      if (page.length === 0) break;
      void this.counter.add(page.map(countableOfRow), false);
      await this.counter.flush();
      recovered += page.length;
      after = page[page.length - 1]!.offset;
    }
    if (recovered > 0) {
      await this.snapshots.flush();
      this.logger.info({ errors: recovered }, 'counted the errors stored before a crash');
    }
    this.nextOffset = Math.max(after, await lastErrorOffset(this.stores.analytics, 0)) + 1;
    await this.rememberCountedIds(0, this.nextOffset - 1);
  }
}

function positioned(error: GroupedError, partition: number, offset: number): PositionedError {
  return {
    projectId: error.record.projectId,
    issueId: error.issueId,
    fingerprint: error.fingerprint.hash,
    title: error.title,
    culprit: error.culprit,
    level: error.record.level,
    timestamp: error.record.timestamp,
    receivedAt: error.record.receivedAt,
    release: error.record.release,
    userKey: error.userKey,
    partition,
    offset,
  };
}

/** An uncounted error as its row has it; title and culprit are derived as grouping derived them. */
function countableOfRow(row: StoredError): PositionedError {
  return {
    projectId: row.projectId,
    issueId: row.issueId,
    fingerprint: row.fingerprintHash,
    title: titleOf(row),
    culprit: culpritOf(row),
    level: row.level,
    timestamp: row.timestamp,
    receivedAt: row.receivedAt,
    release: row.release,
    userKey: userKeyOf(row),
    partition: 0,
    offset: row.offset,
  };
}
