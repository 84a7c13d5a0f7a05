import type { AnalyticsStore } from '@tlm/analytics-store';
import { ConsumerGroups, Topics, type Bus, type MessagePosition, type Subscription } from '@tlm/bus';
import type { Logger } from '@tlm/core';
import { ErrorRecorder, groupError, type ErrorEnricher, type GroupedError } from '@tlm/issues';
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
  /** Least time between two counts nobody waits for (tests shorten or lengthen it); COUNT_INTERVAL_MS by default. */
  countIntervalMs?: number;
  /** Least time between the starts of two issue snapshot writes (tests lengthen it); SNAPSHOT_INTERVAL_MS by default. */
  snapshotIntervalMs?: number;
}

export interface IssuesProcessor {
  /** Finishes the batches in hand, counts what it has stored, writes the issue snapshots it holds, and stops consuming. */
  stop(): Promise<void>;
}

/**
 * Bus deliveries handed to the processor at once. Each is enriched and grouped as it arrives, then waits for the
 * pipeline; more than one at a time is what lets the pipeline gather them into one write. The embedded bus hands over
 * up to this many publishes; Kafka, one batch per assigned partition at a time (`partitionsConsumedConcurrently`),
 * each partition's next batch once the last one is counted.
 */
const DELIVERIES_IN_FLIGHT = 32;

/** Largest number of errors stored in one write; bounds the memory of one batch. */
const MAX_BATCH_ERRORS = 20_000;

/**
 * How long a write may wait for more errors when fewer than half as many wait as the last write took: clients whose
 * events that write answered are sending their next ones, and writing the first to arrive alone would make one small
 * batch, paying a write's fixed cost, ahead of the rest. An idle processor never waits: its last write was as small as
 * what arrives.
 */
const GATHER_MS = 3;

/**
 * Consumes captured errors (envelope `event` items, the log scanner): enriches and fingerprints each delivery, and
 * stores them through a group commit of error rows (see ErrorPipeline). The ErrorRecorder counts them into their
 * issues behind the rows (docs/decisions.md "Issue counts follow the rows"). A delivery from the embedded bus is
 * answered once its rows are stored, since they are then durable and a restart counts them; once counted as well when
 * it needs an issue that does not exist yet, so the issue exists when the answer goes out. A Kafka delivery is
 * acknowledged once counted: Kafka delivers again what was not, and the stored stream position skips what was.
 */
export async function startIssuesProcessor(deps: IssuesProcessorDeps): Promise<IssuesProcessor> {
  const enrichers = deps.enrichers ?? [];
  const recorder = await ErrorRecorder.start(deps, deps.logger, {
    positions: deps.bus.redelivers ? 'bus' : 'own',
    countIntervalMs: deps.countIntervalMs,
    snapshotIntervalMs: deps.snapshotIntervalMs,
  });
  const pipeline = new ErrorPipeline(recorder, deps.bus.redelivers);
  const subscription: Subscription = await deps.bus.subscribe<ErrorRecord>(
    Topics.errors,
    { group: ConsumerGroups.issuesProcessor, concurrency: DELIVERIES_IN_FLIGHT },
    async (records, positions, delivery) => {
      let enriched = records;
      for (const enrich of enrichers) enriched = await enrich(enriched);
      // The journaled bytes stand for the records only while no enricher replaced one (a symbolicated stack).
      const encoded = enriched.every((record, index) => record === records[index]) ? delivery?.encoded : undefined;
      await pipeline.submit(enriched.map(groupError), positions, delivery?.redelivered ?? false, encoded);
    },
  );
  return {
    stop: async () => {
      await subscription.close();
      await recorder.close();
    },
  };
}

interface Waiting {
  errors: GroupedError[];
  positions: readonly MessagePosition[] | undefined;
  redelivered: boolean;
  /** The records as the bus journaled them, when it did and they are unchanged (Delivery.encoded). */
  encoded: readonly Buffer[] | undefined;
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * Group commit: one batch is stored at a time (`ErrorRecorder.record`: one insert of error rows), and what arrived
 * while it was stored forms the next batch (gathered for up to GATHER_MS when it is small). A delivery resolves when its
 * rows are stored, or when they are counted too (`waitForCount`, or when they need a new issue); a failed write fails
 * the deliveries of its batch, and a retry stores them again.
 */
class ErrorPipeline {
  private waiting: Waiting[] = [];
  private waitingErrors = 0;
  private storing = false;
  /** Errors the last write took. */
  private lastWrite = 0;
  private gathering: NodeJS.Timeout | undefined;

  constructor(
    private readonly recorder: ErrorRecorder,
    private readonly waitForCount: boolean,
  ) {}

  submit(errors: GroupedError[], positions: readonly MessagePosition[] | undefined, redelivered: boolean, encoded: readonly Buffer[] | undefined): Promise<void> {
    if (errors.length === 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ errors, positions, redelivered, encoded, resolve, reject });
      this.waitingErrors += errors.length;
      this.storeNext();
    });
  }

  private storeNext(gathered = false): void {
    if (this.storing || this.waiting.length === 0) return;
    if (!gathered && this.waitingErrors * 2 < this.lastWrite) {
      this.gathering ??= setTimeout(() => {
        this.gathering = undefined;
        this.storeNext(true);
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
    this.storing = true;
    this.waitingErrors -= size;
    this.lastWrite = size;
    void this.store(this.waiting.splice(0, taken));
  }

  private async store(batch: Waiting[]): Promise<void> {
    const errors = batch.length === 1 ? batch[0]!.errors : batch.flatMap((waiting) => waiting.errors);
    const positions = batch[0]!.positions && (batch.length === 1 ? batch[0]!.positions : batch.flatMap((waiting) => waiting.positions!));
    const encoded = batch.every((waiting) => waiting.encoded) ? batch.flatMap((waiting) => waiting.encoded!) : undefined;
    try {
      const recorded = await this.recorder.record(errors, positions, batch.some((waiting) => waiting.redelivered), encoded);
      if (this.waitForCount || recorded.createsIssues) {
        recorded.counted.then(
          () => batch.forEach((waiting) => waiting.resolve()),
          (error: unknown) => batch.forEach((waiting) => waiting.reject(error)),
        );
      } else {
        for (const waiting of batch) waiting.resolve();
      }
    } catch (error) {
      for (const waiting of batch) waiting.reject(error);
    } finally {
      this.storing = false;
      this.storeNext();
    }
  }
}
