import { newestIssueSnapshot } from '@tlm/analytics-store';
import type { Logger } from '@tlm/core';
import { issuesUpdatedSince, type IssueStateRow } from '@tlm/metadata-store';
import { runAfter } from './schedule';
import { writeIssueSnapshots, type IssueStores } from './store';

/**
 * Least time between the starts of two snapshot writes. An insert into the analytics `issues` table costs the same
 * for one issue as for a hundred (in DuckDB about 10 ms of CPU: it replaces rows by key), so under load the batches
 * counted within this time share one write; when errors arrive slowly, each batch's snapshots are written at once.
 */
export const SNAPSHOT_INTERVAL_MS = 250;

/**
 * How far before the newest stored snapshot `snapshotRecentIssues` looks: a snapshot lost to a crash is at most one
 * interval and one write older than the newest one written, unless writes had been failing, which this also covers
 * for ten minutes of failures.
 */
const RECENT_MARGIN_MS = 10 * 60 * 1000;

/** Issues read and written per page by `snapshotRecentIssues`: an emptied analytics store means every issue. */
const RECENT_PAGE_SIZE = 5_000;

/**
 * Writes issue snapshots behind the counts (docs/decisions.md "Issue snapshots are written behind the count"). The
 * issues processor hands over each counted batch's issues and answers its deliveries at once; the writer keeps the
 * newest state of each issue (by `updated_at`, the snapshot version) and writes all it holds in one insert, at most
 * one every `intervalMs`. A failed write keeps its issues (unless a newer state came meanwhile) and is tried again
 * after the interval. What a crash loses is written again by `snapshotRecentIssues` when the processor starts.
 */
export class SnapshotWriter {
  private readonly pending = new Map<string, IssueStateRow>();
  private writing: Promise<boolean> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private lastStart = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly stores: Pick<IssueStores, 'analytics'>,
    private readonly logger: Logger,
    private readonly intervalMs = SNAPSHOT_INTERVAL_MS,
  ) {}

  /** Issues whose state changed: written at once when the writer is idle, else with the next write. */
  add(issues: readonly IssueStateRow[]): void {
    for (const issue of issues) this.hold(issue);
    this.schedule();
  }

  /** Writes what is held now, without waiting for the interval; rejects when that write fails (the issues stay held). */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.writing) await this.writing;
    if (this.pending.size === 0) return;
    if (!(await this.write())) throw new Error(`${this.pending.size} issue snapshots could not be written`);
  }

  private hold(issue: IssueStateRow): void {
    const held = this.pending.get(issue.id);
    if (!held || issue.updated_at.getTime() >= held.updated_at.getTime()) this.pending.set(issue.id, issue);
  }

  private schedule(): void {
    if (this.writing || this.timer || this.pending.size === 0) return;
    const wait = this.lastStart + this.intervalMs - performance.now();
    // Pending snapshots never hold a process open: stopping the processor flushes them.
    this.timer = runAfter(wait, () => {
      this.timer = undefined;
      void this.write();
    });
  }

  /** One insert of everything held; true when it was written. Never rejects. */
  private write(): Promise<boolean> {
    const issues = [...this.pending.values()];
    this.pending.clear();
    this.lastStart = performance.now();
    const written = writeIssueSnapshots(this.stores.analytics, issues).then(
      () => true,
      (error: unknown) => {
        for (const issue of issues) this.hold(issue);
        this.logger.error({ err: error, issues: issues.length }, 'issue snapshots were not written; trying again');
        return false;
      },
    );
    this.writing = written.finally(() => {
      this.writing = undefined;
      this.schedule();
    });
    return this.writing;
  }
}

/**
 * Writes again the snapshot of every issue the metadata store changed shortly before the newest snapshot stored, or
 * since: those a crash kept the SnapshotWriter from writing are among them. Returns how many were written.
 */
export async function snapshotRecentIssues(stores: IssueStores, pageSize = RECENT_PAGE_SIZE): Promise<number> {
  const newest = await newestIssueSnapshot(stores.analytics);
  const since = new Date(newest === undefined ? 0 : newest - RECENT_MARGIN_MS);
  let written = 0;
  for (let afterId: string | null = null; ; ) {
    const issues = await issuesUpdatedSince(stores.metadata, since, afterId, pageSize);
    await writeIssueSnapshots(stores.analytics, issues);
    written += issues.length;
    if (issues.length < pageSize) return written;
    afterId = issues[issues.length - 1]!.id;
  }
}
