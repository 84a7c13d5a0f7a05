import { lastStreamOffset, uncountedEvents, uncountedLogs, type AnalyticsStore, type StreamPosition } from '@tlm/analytics-store';
import { Topics, type MessagePosition } from '@tlm/bus';
import { waiter, type Logger, type Waiter } from '@tlm/core';
import { statsPositions, type MetadataStore } from '@tlm/metadata-store';
import type { Properties } from '@tlm/signals';
import { PartitionTakenError, StatsTally, writeStats, type StatsTaken } from './stats';

/** The topics whose rows are counted into the schema registry and usage. */
export type CountedTopic = typeof Topics.logs | typeof Topics.events;

/** What counting a log or an event needs; an event also has its name. */
export interface CountedRecord {
  projectId: string;
  receivedAt: number;
  properties: Properties;
  event?: string;
}

/** Rows read and counted per page on start. */
const RECOVERY_PAGE = 5_000;

/** What one partition's uncounted rows add up to. */
interface PartitionTally {
  topic: CountedTopic;
  partition: number;
  tally: StatsTally;
  /** The highest offset they reach (a failed embedded batch moves it too: its offsets hold no rows). */
  through: number;
  /** Settles when they are counted and stored. */
  counted: Waiter;
}

/** A batch of the embedded bus, numbered before it is stored; counted once every batch numbered before it settled. */
interface OwnBatch {
  last: number;
  /** The stored records; null when storing them failed. */
  records: readonly CountedRecord[] | null;
  settled: boolean;
}

const keyOf = (topic: string, partition: number) => `${topic}\u0000${partition}`;

/**
 * Counts stored log and event rows into the schema registry and usage counters exactly once (docs/decisions.md "Derived
 * counts follow the rows"), as IssueCounter counts errors into issues. Each row carries its place in its topic's stream;
 * a count adds the tallies and moves each partition's stored position (`stats_positions`) in one metadata transaction.
 * `own` positions (the embedded bus, which never delivers again): the writer numbers each topic as partition 0, a
 * batch is answered once its rows are stored, counts follow on the timer, and a start counts the rows above the stored
 * position first. `bus` positions (Kafka): a delivery is acknowledged once counted, so Kafka delivers again what was
 * not, and what a redelivery brings at or below the position counted is skipped.
 */
export class StatsCounter {
  private pending = new Map<string, PartitionTally>();
  private counting: Promise<boolean> | undefined;
  /** Bus positions: a count is wanted once the running one ends. */
  private again = false;
  private closed = false;
  /** Per partition, the position the metadata store holds, as this writer last read or wrote it. */
  private readonly positions = new Map<string, number>();
  /** Per partition, the highest offset tallied by this writer: a redelivery at or below it is counted already. */
  private readonly tallied = new Map<string, number>();
  /** Own positions: the next offset of each topic, and its batches in offset order until they are tallied. */
  private readonly nextOffset = new Map<CountedTopic, number>();
  private readonly inFlight = new Map<CountedTopic, OwnBatch[]>();

  private constructor(
    private readonly metadata: MetadataStore,
    private readonly logger: Logger,
    private readonly mode: 'own' | 'bus',
  ) {}

  /** With `own` positions, counts what a crash left stored but uncounted before anything new is numbered. */
  static async start(stores: { metadata: MetadataStore; analytics: AnalyticsStore }, logger: Logger, mode: 'own' | 'bus'): Promise<StatsCounter> {
    const counter = new StatsCounter(stores.metadata, logger, mode);
    if (mode === 'own') {
      await counter.recoverOwnStream(Topics.logs, stores.analytics);
      await counter.recoverOwnStream(Topics.events, stores.analytics);
    }
    return counter;
  }

  /**
   * Stores a batch through `store` with each record's stream position and tallies it. `positions` come from a bus that
   * delivers again (one per record); without them the counter numbers the batch. With bus positions it resolves once
   * the batch is counted; with its own, once the rows are stored.
   */
  async write(
    topic: CountedTopic,
    records: readonly CountedRecord[],
    positions: readonly MessagePosition[] | undefined,
    store: (positions: readonly StreamPosition[]) => Promise<void>,
  ): Promise<void> {
    if ((positions !== undefined) !== (this.mode === 'bus')) {
      throw new Error(`records counted with ${this.mode} positions must ${positions ? 'not ' : ''}come with positions`);
    }
    if (positions) return this.writeDelivered(topic, records, positions, store);
    const first = this.nextOffset.get(topic) ?? 0;
    this.nextOffset.set(topic, first + records.length);
    const batch: OwnBatch = { last: first + records.length - 1, records: null, settled: false };
    const queue = this.inFlight.get(topic) ?? [];
    this.inFlight.set(topic, queue);
    queue.push(batch);
    try {
      await store(records.map((_, index) => ({ partition: 0, offset: first + index })));
      batch.records = records;
    } finally {
      batch.settled = true;
      this.tallySettled(topic, queue);
    }
  }

  /** Counts what is tallied now; rejects when that count fails (it stays tallied for the next one). */
  async flush(): Promise<void> {
    while (this.counting) await this.counting;
    if (this.pending.size > 0 && !(await this.startCount())) throw new Error('the schema registry and usage counters could not be updated');
  }

  /** Counts what is tallied; what cannot be counted is given up (its rows are stored and counted by the next start, or delivered again). */
  async close(): Promise<void> {
    try {
      await this.flush();
    } finally {
      this.closed = true;
      const error = new Error('the stats counter closed before counting these rows');
      for (const partition of this.pending.values()) partition.counted.reject(error);
      this.pending = new Map();
    }
  }

  /** Kafka: skips what is counted already, stores the rest, and waits for its count. */
  private async writeDelivered(
    topic: CountedTopic,
    records: readonly CountedRecord[],
    positions: readonly MessagePosition[],
    store: (positions: readonly StreamPosition[]) => Promise<void>,
  ): Promise<void> {
    await this.load(topic, positions);
    // Every row is stored again (ClickHouse collapses a redelivered row into the first), but counted only above the position.
    await store(positions);
    const fresh = new Map<number, { records: CountedRecord[]; through: number }>();
    records.forEach((record, index) => {
      const { partition, offset } = positions[index]!;
      let kept = fresh.get(partition);
      if (!kept) fresh.set(partition, (kept = { records: [], through: -1 }));
      if (offset > (this.tallied.get(keyOf(topic, partition)) ?? -1)) kept.records.push(record);
      kept.through = Math.max(kept.through, offset);
    });
    const waits: Promise<void>[] = [];
    for (const [partition, kept] of fresh) {
      // A redelivery of rows tallied but not counted yet is acknowledged with their count, never before it.
      if (kept.records.length > 0) waits.push(this.add(topic, partition, kept.records, kept.through));
      else {
        const pending = this.pending.get(keyOf(topic, partition));
        if (pending) waits.push(pending.counted.promise);
      }
    }
    if (waits.length > 0) this.schedule();
    await Promise.all(waits);
  }

  /** Reads the stored positions of partitions this writer has not counted yet. */
  private async load(topic: CountedTopic, positions: readonly MessagePosition[]): Promise<void> {
    const unknown = [...new Set(positions.map((position) => position.partition))].filter((partition) => !this.positions.has(keyOf(topic, partition)));
    if (unknown.length === 0) return;
    for (const [partition, through] of await statsPositions(this.metadata, topic, unknown)) this.learnPosition(topic, partition, through);
  }

  private learnPosition(topic: CountedTopic, partition: number, through: number): void {
    this.positions.set(keyOf(topic, partition), through);
    this.tallied.set(keyOf(topic, partition), through);
  }

  /** Own positions: tallies the settled batches at the head of a topic's queue, so a count never skips a batch in flight. */
  private tallySettled(topic: CountedTopic, queue: OwnBatch[]): void {
    while (queue.length > 0 && queue[0]!.settled) {
      const batch = queue.shift()!;
      void this.add(topic, 0, batch.records ?? [], batch.last);
    }
  }

  private add(topic: CountedTopic, partition: number, records: readonly CountedRecord[], through: number): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the stats counter is closed'));
    const key = keyOf(topic, partition);
    let pending = this.pending.get(key);
    if (!pending) {
      pending = { topic, partition, tally: new StatsTally(), through: -1, counted: waiter() };
      this.pending.set(key, pending);
    }
    tallyRecords(pending.tally, topic, records);
    pending.through = Math.max(pending.through, through);
    this.tallied.set(key, Math.max(this.tallied.get(key) ?? -1, through));
    return pending.counted.promise;
  }

  /** Bus positions: a delivery waits for its count, so one starts at once, or as soon as the running one ends. */
  private schedule(): void {
    if (this.counting) this.again = true;
    else void this.startCount();
  }

  /** One count of everything tallied; true when it was stored. Never rejects. */
  private startCount(): Promise<boolean> {
    const batch = this.pending;
    this.pending = new Map();
    this.again = false;
    const counted = this.count(batch).then(
      () => true,
      (error: unknown) => {
        this.countFailed(batch, error);
        return false;
      },
    );
    this.counting = counted.finally(() => {
      this.counting = undefined;
      // A failed count waits for the timer; deliveries that came meanwhile start the next one.
      if (this.again && this.mode === 'bus' && this.pending.size > 0) this.schedule();
    });
    return this.counting;
  }

  private async count(batch: Map<string, PartitionTally>): Promise<void> {
    const taken = new Map<string, StatsTaken>();
    for (const [key, partition] of batch) taken.set(key, partition.tally.take());
    const combined = new StatsTally();
    for (const deltas of taken.values()) combined.restore(deltas);
    const advances = [...batch].map(([key, partition]) => ({
      topic: partition.topic,
      partition: partition.partition,
      from: this.positions.get(key) ?? -1,
      to: partition.through,
    }));
    try {
      await writeStats(this.metadata, combined.take(), advances);
    } catch (error) {
      // Back into their partitions, so a later count writes them (or a taken partition drops them).
      for (const [key, deltas] of taken) batch.get(key)!.tally.restore(deltas);
      throw error;
    }
    for (const [key, partition] of batch) this.positions.set(key, partition.through);
    for (const partition of batch.values()) partition.counted.resolve();
  }

  private countFailed(batch: Map<string, PartitionTally>, error: unknown): void {
    if (error instanceof PartitionTakenError) {
      this.logger.warn({ partitions: error.partitions }, 'another writer counts these partitions now; dropping their tallies');
      for (const { topic, partition } of error.partitions) {
        const key = keyOf(topic, partition);
        batch.get(key)?.counted.reject(error);
        batch.delete(key);
        this.positions.delete(key);
        this.tallied.delete(key);
      }
      this.requeue(batch);
      this.again = true;
      return;
    }
    this.logger.error({ err: error }, 'updating the schema registry and usage counters failed; retrying at the next flush');
    this.requeue(batch);
  }

  /** Puts a batch that was not counted back in front of what was tallied since. */
  private requeue(batch: Map<string, PartitionTally>): void {
    for (const [key, later] of this.pending) {
      const earlier = batch.get(key);
      if (!earlier) {
        batch.set(key, later);
        continue;
      }
      earlier.tally.restore(later.tally.take());
      earlier.through = Math.max(earlier.through, later.through);
      // One count settles both: the later waiter is the merged tally's, and the earlier one follows it.
      later.counted.promise.then(earlier.counted.resolve, earlier.counted.reject);
      earlier.counted = later.counted;
    }
    this.pending = batch;
  }

  /** Own positions: counts the rows stored above the stored position, then numbers new rows after every stored one. */
  private async recoverOwnStream(topic: CountedTopic, analytics: AnalyticsStore): Promise<void> {
    let after = (await statsPositions(this.metadata, topic, [0])).get(0)!;
    this.learnPosition(topic, 0, after);
    const table = topic === Topics.logs ? 'logs' : 'events';
    let recovered = 0;
    for (;;) {
      const page = topic === Topics.logs ? await uncountedLogs(analytics, 0, after, RECOVERY_PAGE) : await uncountedEvents(analytics, 0, after, RECOVERY_PAGE);
      if (page.length === 0) break;
      const last = page[page.length - 1]!.offset;
      void this.add(topic, 0, page, last);
      // A count that fails here fails the start: the rows are stored, and the next start counts them.
      await this.flush();
      recovered += page.length;
      after = last;
    }
    if (recovered > 0) this.logger.info({ topic, rows: recovered }, 'counted into the schema registry and usage the rows stored before a crash');
    this.nextOffset.set(topic, Math.max(after, await lastStreamOffset(analytics, table, 0)) + 1);
  }
}

function tallyRecords(tally: StatsTally, topic: CountedTopic, records: readonly CountedRecord[]): void {
  if (records.length === 0) return;
  if (topic === Topics.logs) {
    tally.addRecords('logs', records);
  } else {
    tally.addRecords('events', records);
    tally.addEventNames(records as readonly (CountedRecord & { event: string })[]);
  }
}
