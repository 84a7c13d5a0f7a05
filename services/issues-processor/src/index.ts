import type { AnalyticsStore } from '@tlm/analytics-store';
import { ConsumerGroups, Topics, type Bus, type Subscription } from '@tlm/bus';
import type { Logger } from '@tlm/core';
import { countErrors, groupError, snapshotIssues, type ErrorEnricher, type GroupedError, type IssueStores } from '@tlm/issues';
import type { MetadataStore } from '@tlm/metadata-store';
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
  /** Finishes the batches in hand and stops consuming. */
  stop(): Promise<void>;
}

/**
 * Bus deliveries handed to the processor at once. Each is enriched and grouped as it arrives, then waits for the
 * pipeline; more than one at a time is what lets the pipeline gather them into one count. The embedded bus hands over
 * up to this many publishes; Kafka, one batch per assigned partition at a time (`partitionsConsumedConcurrently`),
 * each partition's next batch once the last one is stored.
 */
const DELIVERIES_IN_FLIGHT = 32;

/** Largest number of errors counted in one transaction; bounds the memory and the lock time of one batch. */
const MAX_BATCH_ERRORS = 20_000;

/**
 * Consumes captured errors (envelope `event` items, the log scanner): enriches and fingerprints each delivery, and
 * stores them through a two-stage group commit (see ErrorPipeline). A delivery is acknowledged once its issues are
 * counted and snapshotted; a failure fails it, so the bus delivers it again (Kafka) or the publish fails (embedded),
 * and processed event ids make the retry count nothing twice.
 */
export async function startIssuesProcessor(deps: IssuesProcessorDeps): Promise<IssuesProcessor> {
  const enrichers = deps.enrichers ?? [];
  const pipeline = new ErrorPipeline(deps, deps.logger);
  const subscription: Subscription = await deps.bus.subscribe<ErrorRecord>(
    Topics.errors,
    { group: ConsumerGroups.issuesProcessor, concurrency: DELIVERIES_IN_FLIGHT },
    async (records) => {
      let enriched = records;
      for (const enrich of enrichers) enriched = await enrich(enriched);
      await pipeline.submit(enriched.map(groupError));
    },
  );
  return { stop: () => subscription.close() };
}

interface Waiting {
  errors: GroupedError[];
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * Group commit in two stages. Stage one counts a batch: one metadata transaction that also writes the error rows
 * (`countErrors`). Stage two writes the batch's issue snapshots (`snapshotIssues`). One batch is counted at a time,
 * and what arrived while it was counted forms the next batch, whose counting starts while the previous batch's
 * snapshots are written. A delivery resolves when both stages of its batch are done.
 *
 * Under light load the deliveries waiting are fewer than the batch being snapshotted, and most senders of the next
 * batch are still waiting for that batch's answer (an SDK sends its next event when the last one is answered); the
 * next count then starts once the snapshots are written, so it takes those senders' events too, rather than a batch
 * of one event followed by a batch of the rest.
 */
class ErrorPipeline {
  private waiting: Waiting[] = [];
  private waitingErrors = 0;
  private counting = false;
  /** Errors of the batches whose snapshots are being written. */
  private snapshotting = 0;

  constructor(
    private readonly stores: IssueStores,
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

  private countNext(): void {
    if (this.counting || this.waiting.length === 0 || this.waitingErrors < this.snapshotting) return;
    let size = 0;
    let taken = 0;
    while (taken < this.waiting.length && (taken === 0 || size + this.waiting[taken]!.errors.length <= MAX_BATCH_ERRORS)) {
      size += this.waiting[taken]!.errors.length;
      taken += 1;
    }
    this.counting = true;
    this.waitingErrors -= size;
    void this.store(this.waiting.splice(0, taken), size);
  }

  private async store(batch: Waiting[], size: number): Promise<void> {
    const settle = (error?: unknown) => {
      for (const waiting of batch) error === undefined ? waiting.resolve() : waiting.reject(error);
    };
    let counted;
    try {
      counted = await countErrors(this.stores, batch.length === 1 ? batch[0]!.errors : batch.flatMap((waiting) => waiting.errors));
    } catch (error) {
      this.counting = false;
      settle(error);
      this.countNext();
      return;
    }
    this.counting = false;
    this.snapshotting += size;
    this.countNext();
    try {
      if (counted.duplicates > 0) this.logger.debug({ duplicates: counted.duplicates }, 'skipped errors whose event id was already processed');
      await snapshotIssues(this.stores, counted);
      settle();
    } catch (error) {
      settle(error);
    } finally {
      this.snapshotting -= size;
      this.countNext();
    }
  }
}
