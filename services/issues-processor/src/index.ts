import type { AnalyticsStore } from '@tlm/analytics-store';
import { ConsumerGroups, Topics, type Bus, type Subscription } from '@tlm/bus';
import type { Logger } from '@tlm/core';
import {
  countErrors,
  groupError,
  snapshotRecentIssues,
  SnapshotWriter,
  touchedIssues,
  type ErrorEnricher,
  type GroupedError,
  type IssueStores,
} from '@tlm/issues';
import type { IssueStateRow, MetadataStore } from '@tlm/metadata-store';
import type { ErrorRecord } from '@tlm/signals';

export type { ErrorEnricher } from '@tlm/issues';

export interface IssuesProcessorDeps {
  bus: Bus;
  analytics: AnalyticsStore;
  metadata: MetadataStore;
  logger: Logger;
  /** Run in order over every batch before fingerprinting (source-map symbolication plugs in here). */
  enrichers?: readonly ErrorEnricher[];
}

export interface IssuesProcessor {
  /** Finishes the batches in hand, writes the issue snapshots it holds, and stops consuming. */
  stop(): Promise<void>;
}

/**
 * Bus deliveries handed to the processor at once. Each is enriched and grouped as it arrives, then waits for the
 * pipeline; more than one at a time is what lets the pipeline gather them into one count. The embedded bus hands over
 * up to this many publishes; Kafka, one batch per assigned partition at a time (`partitionsConsumedConcurrently`),
 * each partition's next batch once the last one is counted.
 */
const DELIVERIES_IN_FLIGHT = 32;

/** Largest number of errors counted in one transaction; bounds the memory and the lock time of one batch. */
const MAX_BATCH_ERRORS = 20_000;

/**
 * How long a count may wait for more errors when fewer than half as many wait as the last count took: clients whose
 * events that count answered are sending their next ones, and counting the first to arrive alone would make one small
 * batch, paying a transaction's fixed cost, ahead of the rest (about 7% more errors/s in envelopes of 100 in a scratch
 * comparison; docs/performance.md). An idle processor never waits: its last count was as small as what arrives.
 */
const GATHER_MS = 3;

/**
 * Consumes captured errors (envelope `event` items, the log scanner): enriches and fingerprints each delivery, and
 * counts them through a group commit (see ErrorPipeline). A delivery is acknowledged once its errors are stored and
 * counted; a failure fails it, so the bus delivers it again (Kafka) or the publish fails (embedded), and processed
 * event ids make the retry count nothing twice. Issue snapshots follow behind the counts (SnapshotWriter); those a
 * crash lost are written again first thing on start.
 */
export async function startIssuesProcessor(deps: IssuesProcessorDeps): Promise<IssuesProcessor> {
  const enrichers = deps.enrichers ?? [];
  const recovered = await snapshotRecentIssues(deps);
  if (recovered > 0) deps.logger.info({ issues: recovered }, 'wrote again the snapshots of recently changed issues');
  const snapshots = new SnapshotWriter(deps, deps.logger);
  const pipeline = new ErrorPipeline(deps, snapshots, deps.logger);
  const subscription: Subscription = await deps.bus.subscribe<ErrorRecord>(
    Topics.errors,
    { group: ConsumerGroups.issuesProcessor, concurrency: DELIVERIES_IN_FLIGHT },
    async (records) => {
      let enriched = records;
      for (const enrich of enrichers) enriched = await enrich(enriched);
      await pipeline.submit(enriched.map(groupError));
    },
  );
  return {
    stop: async () => {
      await subscription.close();
      // Not thrown: the stores still have to close; the next start writes these snapshots (snapshotRecentIssues).
      await snapshots.flush().catch((error: unknown) => deps.logger.error({ err: error }, 'issue snapshots left unwritten at stop'));
    },
  };
}

interface Waiting {
  errors: GroupedError[];
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * Group commit: one batch is counted at a time (`countErrors`: one metadata transaction that also writes the error
 * rows), and what arrived while it was counted forms the next batch (gathered for up to GATHER_MS when it is small).
 * A delivery resolves when its batch is counted and the batch's issues are handed to the SnapshotWriter. Issues all of whose events in the batch were duplicates
 * are read back for it (a crash may have lost their snapshot); failing to, the batch fails, and its redelivery counts
 * nothing twice.
 */
class ErrorPipeline {
  private waiting: Waiting[] = [];
  private waitingErrors = 0;
  private counting = false;
  /** Errors the last count took. */
  private lastCount = 0;
  private gathering: NodeJS.Timeout | undefined;

  constructor(
    private readonly stores: IssueStores,
    private readonly snapshots: SnapshotWriter,
    private readonly logger: Logger,
  ) {}

  submit(errors: GroupedError[]): Promise<void> {
    if (errors.length === 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ errors, resolve, reject });
      this.waitingErrors += errors.length;
      this.countNext();
    });
  }

  private countNext(gathered = false): void {
    if (this.counting || this.waiting.length === 0) return;
    if (!gathered && this.waitingErrors * 2 < this.lastCount) {
      this.gathering ??= setTimeout(() => {
        this.gathering = undefined;
        this.countNext(true);
      }, GATHER_MS);
      return;
    }
    clearTimeout(this.gathering);
    this.gathering = undefined;
    let size = 0;
    let taken = 0;
    while (taken < this.waiting.length && (taken === 0 || size + this.waiting[taken]!.errors.length <= MAX_BATCH_ERRORS)) {
      size += this.waiting[taken]!.errors.length;
      taken += 1;
    }
    this.counting = true;
    this.waitingErrors -= size;
    this.lastCount = size;
    void this.count(this.waiting.splice(0, taken));
  }

  private async count(batch: Waiting[]): Promise<void> {
    let touched: IssueStateRow[];
    try {
      const counted = await countErrors(this.stores, batch.length === 1 ? batch[0]!.errors : batch.flatMap((waiting) => waiting.errors));
      if (counted.duplicates > 0) this.logger.debug({ duplicates: counted.duplicates }, 'skipped errors whose event id was already processed');
      touched = await touchedIssues(this.stores, counted);
    } catch (error) {
      for (const waiting of batch) waiting.reject(error);
      return;
    } finally {
      this.counting = false;
      this.countNext();
    }
    this.snapshots.add(touched);
    for (const waiting of batch) waiting.resolve();
  }
}
