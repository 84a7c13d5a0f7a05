import { appendFileSync, closeSync, fsyncSync, openSync } from 'node:fs';
import path from 'node:path';
import { ApiError, metrics, type Logger } from '@tlm/core';
import type { BatchHandler, Bus, BusMessage, SubscribeOptions, Subscription } from './bus';
import { DEFAULT_DEAD_LETTER_POLICY, backoff, describeError, FailingMessages, processNarrowing, type DeadLetterPolicy } from './deadLetter';
import type { IngestJournal, JournalEntry, JournaledBatch } from './journal';
import { deadLetterTopic, type Topic } from './topics';

/** Largest number of values handed to one handler call; bounds the memory of one group commit. */
const MAX_BATCH_VALUES = 20_000;

interface PendingPublish<T> {
  values: T[];
  /** The values as the JSON array the journal holds them in, when they were journaled. */
  encoded: Buffer | undefined;
  redelivered: boolean;
  /** Handed over on its own, never with other publishes: a retry that narrows down a failure. */
  alone: boolean;
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * One consumer group's queue. Publishes that arrive while the handler is busy are handed over together on the
 * next call (group commit), and each publish resolves only when the call holding its values has succeeded. Up to
 * `concurrency` calls run at once, so the next batch is prepared while the previous one is being written.
 */
class GroupQueue<T> {
  private pending: PendingPublish<T>[] = [];
  private pendingValues = 0;
  private running = 0;
  private idleWaiters: (() => void)[] = [];
  closed = false;
  /** This group's messages that keep failing, and how many handler calls succeeded. */
  readonly failing: FailingMessages;

  constructor(
    private readonly topic: Topic,
    readonly group: string,
    private readonly handler: BatchHandler<T>,
    private readonly concurrency: number,
    policy: DeadLetterPolicy,
  ) {
    this.failing = new FailingMessages(policy);
  }

  enqueue(values: T[], redelivered = false, alone = false, encoded?: Buffer): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ values, encoded, redelivered, alone, resolve, reject });
      this.pendingValues += values.length;
      this.reportLag();
      this.pump();
    });
  }

  private pump(): void {
    while (this.running < this.concurrency && this.pending.length > 0) {
      const taken: PendingPublish<T>[] = [];
      let count = 0;
      // A batch delivered again is handed over on its own, so the handler is told so; a narrowing retry alone.
      while (
        this.pending.length > 0 &&
        (taken.length === 0 ||
          (count + this.pending[0]!.values.length <= MAX_BATCH_VALUES &&
            this.pending[0]!.redelivered === taken[0]!.redelivered &&
            !this.pending[0]!.alone &&
            !taken[0]!.alone))
      ) {
        const next = this.pending.shift()!;
        taken.push(next);
        count += next.values.length;
      }
      this.running += 1;
      void this.run(taken, count);
    }
    if (this.running === 0 && this.pending.length === 0) for (const wake of this.idleWaiters.splice(0)) wake();
  }

  private async run(taken: PendingPublish<T>[], count: number): Promise<void> {
    const values = taken.length === 1 ? taken[0]!.values : taken.flatMap((publish) => publish.values);
    const encoded = taken.every((publish) => publish.encoded) ? taken.map((publish) => publish.encoded!) : undefined;
    try {
      await this.handler(values, undefined, { redelivered: taken[0]!.redelivered, encoded });
      this.failing.succeeded();
      for (const publish of taken) publish.resolve();
    } catch (error) {
      for (const publish of taken) publish.reject(error);
    }
    this.pendingValues -= count;
    this.reportLag();
    this.running -= 1;
    this.pump();
  }

  private reportLag(): void {
    metrics.busConsumerLag.set({ topic: this.topic, group: this.group }, this.pendingValues);
  }

  idle(): Promise<void> {
    if (this.running === 0 && this.pending.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }
}

/** How often the journal's record of what each group processed is written, and the files read past removed. */
const PERSIST_INTERVAL_MS = 100;

/** How long a journaled publish waits for its entry's fdatasync: `commitWaitMs` at most, or until it ends. */
export type JournalSync = 'bounded' | 'always';

export interface EmbeddedBusOptions {
  /**
   * Journal of the ingest topics: a publish to one of them is answered once it is written to the journal's file and
   * either processed and flushed to disk or `commitWaitMs` passed, so neither a slow commit (a store checkpoint) nor a
   * slow fdatasync holds the publisher.
   */
  journal?: IngestJournal;
  /**
   * How long a journaled publish, once in the journal's file, waits for its consumers and the journal's fdatasync
   * before it is answered anyway; default 50 ms.
   */
  commitWaitMs?: number;
  /**
   * `bounded` (the default): the fdatasync is waited for at most `commitWaitMs`, like the consumers; an answer
   * given before it ends stands on the operating system's page cache, which survives a crash of the process.
   * `always`: every answer waits for the fdatasync, however long the disk takes, and survives a crash of the machine.
   */
  journalSync?: JournalSync;
  /** Journaled messages a group may be behind before publishes to its topic are refused (503); default 200,000. */
  maxBehind?: number;
  /**
   * When a journaled message that keeps failing is set aside, in the journal's directory (JOURNAL_DIR, default
   * DATA_DIR/journal) as `<topic>.dead.jsonl`; DEFAULT_DEAD_LETTER_POLICY by default.
   */
  deadLetters?: DeadLetterPolicy;
  logger?: Logger;
}

/**
 * In-process bus for standalone mode. Publishing runs the subscribed handlers (the writers), so a publish that
 * resolves means the rows are committed: 202 is durable without a broker. With a journal, a journaled topic's publish
 * survives a crash of the process once it is written to the journal's file: it is answered when its rows are committed
 * and its entry is flushed to disk, or `commitWaitMs` after the write, whichever comes first, and what was answered but
 * not processed when the process stopped is delivered again by `replayJournal`.
 */
export class EmbeddedBus implements Bus {
  readonly redelivers = false;
  private readonly groups = new Map<Topic, Map<string, GroupQueue<unknown>>>();
  /** Numbers broadcast subscribers; a count of live groups would repeat a name after a close. */
  private broadcastSubscribers = 0;
  private closed = false;
  private readonly journal: IngestJournal | undefined;
  private readonly commitWaitMs: number;
  private readonly journalSync: JournalSync;
  private readonly maxBehind: number;
  private readonly logger: Logger | undefined;
  /** Journaled deliveries not yet processed or given up, so a close can wait for them. */
  private readonly deliveries = new Set<Promise<void>>();
  private readonly persistTimer: NodeJS.Timeout | undefined;
  private readonly deadLetters: DeadLetterPolicy;
  /** Resolves on close, ending the waits between retries. */
  private readonly closing: Promise<void>;
  private signalClosing!: () => void;

  constructor(options: EmbeddedBusOptions = {}) {
    this.journal = options.journal;
    this.deadLetters = options.deadLetters ?? DEFAULT_DEAD_LETTER_POLICY;
    this.closing = new Promise((resolve) => (this.signalClosing = resolve));
    this.commitWaitMs = options.commitWaitMs ?? 50;
    this.journalSync = options.journalSync ?? 'bounded';
    this.maxBehind = options.maxBehind ?? 200_000;
    this.logger = options.logger;
    if (this.journal) {
      this.persistTimer = setInterval(() => this.persistJournalInBackground(), PERSIST_INTERVAL_MS);
      this.persistTimer.unref();
    }
  }

  async publish<T>(topic: Topic, messages: BusMessage<T>[]): Promise<void> {
    if (this.closed) throw new Error('bus is closed');
    if (messages.length === 0) return;
    const queues = [...(this.groups.get(topic)?.values() ?? [])].filter((queue) => !queue.closed);
    // A topic nobody consumes would drop accepted data; refuse instead.
    if (queues.length === 0) throw new Error(`no consumer is subscribed to ${topic}`);
    const stopTimer = metrics.busPublishDuration.startTimer({ topic });
    const values = messages.map((message) => message.value);
    try {
      if (this.journal?.journals(topic)) await this.publishJournaled(this.journal, topic, queues, values);
      else await Promise.all(queues.map((queue) => queue.enqueue(values)));
    } finally {
      stopTimer();
    }
  }

  private async publishJournaled(journal: IngestJournal, topic: Topic, queues: GroupQueue<unknown>[], values: unknown[]): Promise<void> {
    const behind = Math.max(...queues.map((queue) => journal.behind(topic, queue.group)));
    if (behind > this.maxBehind) {
      throw new ApiError(503, 'INTERNAL_ERROR', 'the server is behind on storing what it accepted; retry shortly', { behind }, { 'Retry-After': '1' });
    }
    const { entry, payload, written, synced } = journal.append(topic, values);
    let answered = false;
    synced.catch((error: unknown) => {
      // Before the answer the publish fails with it; after, the entry is in the page cache and the disk is failing.
      if (answered) this.logger?.error({ err: error, topic }, 'the ingest journal could not be flushed to disk');
    });
    await written;
    // Delivered once in the file, while its fdatasync runs: a commit and a sync that wait on the same disk overlap.
    const delivered = Promise.all(queues.map((queue) => this.deliver(journal, queue, { ...entry, values, payload }, false, () => answered)));
    let committed = false;
    let flushed = false;
    delivered.then(() => (committed = true), () => undefined);
    synced.then(() => (flushed = true), () => undefined);
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        // From here on a failure is retried: the publisher has its answer, and the entry is in the journal's file.
        answered = true;
        resolve();
      }, this.commitWaitMs);
    });
    try {
      await Promise.race([Promise.all([delivered, synced]), this.journalSync === 'always' ? waited.then(() => synced) : waited]);
    } finally {
      clearTimeout(timer);
    }
    if (answered && !committed) metrics.ingestAnsweredEarly.inc({ topic, pending: 'commit' });
    else if (answered && !flushed) metrics.ingestAnsweredEarly.inc({ topic, pending: 'sync' });
  }

  /**
   * Hands a journaled entry to one group and records it processed. A failure before the publisher is answered fails
   * the publish (the entry counts as done: the publisher retries); after it, the entry is retried as Kafka retries a
   * partition (docs/architecture.md, "Dead letters"): narrowed down to its first failing message, the messages before
   * it processed, that message tried again with backoff and set aside in `<topic>.dead.jsonl` once the rule says it
   * is the message's own fault; a store that is down is retried without end. On close, an unprocessed entry stays in
   * the journal.
   */
  private deliver(journal: IngestJournal, queue: GroupQueue<unknown>, batch: JournaledBatch<unknown>, redelivered: boolean, answered: () => boolean): Promise<void> {
    const { values, payload, ...entry } = batch;
    // Enqueued here, outside the closure below: the journaled bytes are let go once handed over, not held through
    // the retries, which never use them.
    const handedOver = queue.enqueue(values, redelivered, false, payload);
    const delivery = (async () => {
      try {
        await handedOver;
      } catch (error) {
        if (!answered()) {
          journal.processed(entry, queue.group);
          throw error;
        }
        this.logger?.warn({ err: error, topic: entry.topic, group: queue.group }, 'a journaled batch failed; delivering it again');
        if (!(await this.retryNarrowing(journal, queue, entry, values))) return;
      }
      journal.processed(entry, queue.group);
    })();
    this.deliveries.add(delivery);
    const forget = () => void this.deliveries.delete(delivery);
    delivery.then(forget, forget);
    return delivery;
  }

  /** Retries a failed journaled entry until each of its messages is processed or dead-lettered; false on close. */
  private async retryNarrowing(journal: IngestJournal, queue: GroupQueue<unknown>, entry: JournalEntry, values: unknown[]): Promise<boolean> {
    let at = 0;
    let waitMs = backoff(this.deadLetters, 1);
    // The message at `at` that failed alone last time, forgotten once it is processed.
    let failing: string | undefined;
    while (at < values.length) {
      if (!(await this.wait(waitMs))) return false;
      const rest = values.slice(at);
      const failure = await processNarrowing(
        0,
        rest.length,
        (from, to) => queue.enqueue(rest.slice(from, to), true, true),
        () => undefined,
      );
      if (failing !== undefined && (!failure || failure.index > 0)) queue.failing.forget(failing);
      if (!failure) return true;
      const offset = entry.first + at + failure.index;
      failing = `${offset}`;
      const verdict = queue.failing.failed(failing, failure.error, failure.alone);
      if (verdict.deadLetter) {
        this.setAside(journal, queue.group, entry.topic, offset, rest[failure.index], failure.error, verdict.attempts);
        this.logger?.warn(
          { topic: entry.topic, group: queue.group, offset, attempts: verdict.attempts, kind: verdict.kind, err: failure.error },
          `set a message aside in ${deadLetterTopic(entry.topic)}.jsonl: processing it kept failing`,
        );
        at += failure.index + 1;
        waitMs = 0;
        continue;
      }
      this.logger?.warn(
        { topic: entry.topic, group: queue.group, offset, attempts: verdict.attempts, kind: verdict.kind, retryInMs: verdict.retryInMs, err: failure.error },
        'processing a journaled message failed; trying it again',
      );
      at += failure.index;
      waitMs = verdict.retryInMs;
    }
    return true;
  }

  /** Appends a dead letter to `<journal dir>/<topic>.dead.jsonl`, on disk before it counts. */
  private setAside(journal: IngestJournal, group: string, topic: Topic, offset: number, value: unknown, error: unknown, attempts: number): void {
    const line = JSON.stringify({ topic, offset, group, error: describeError(error), attempts, at: new Date().toISOString(), value });
    const file = openSync(path.join(journal.dir, `${deadLetterTopic(topic)}.jsonl`), 'a');
    try {
      appendFileSync(file, `${line}\n`);
      fsyncSync(file);
    } finally {
      closeSync(file);
    }
    metrics.busDeadLetters.inc({ topic, group });
  }

  /** Waits `ms`; false when the bus closes first. */
  private async wait(ms: number): Promise<boolean> {
    if (this.closed) return false;
    if (ms <= 0) return true;
    let timer: NodeJS.Timeout | undefined;
    const waited = await Promise.race([new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), ms))), this.closing.then(() => false)]);
    clearTimeout(timer);
    return waited && !this.closed;
  }

  /**
   * Delivers again, marked as redelivered, every journaled entry a subscribed group had not processed when the process
   * last stopped; resolves once they are processed. Called once on start, after the consumers subscribed.
   */
  async replayJournal(): Promise<number> {
    const journal = this.journal;
    if (!journal) return 0;
    let replayed = 0;
    const deliveries: Promise<void>[] = [];
    for (const [topic, groups] of this.groups) {
      if (!journal.journals(topic)) continue;
      for (const queue of groups.values()) {
        for (const batch of journal.unprocessed(topic, queue.group)) {
          replayed += batch.count;
          deliveries.push(this.deliver(journal, queue, batch, true, () => true));
        }
      }
    }
    await Promise.all(deliveries);
    this.persistJournal();
    return replayed;
  }

  /** The groups of each journaled topic, whose progress the journal keeps. */
  private journaledGroups(): Map<Topic, string[]> {
    const groups = new Map<Topic, string[]>();
    for (const [topic, queues] of this.groups) {
      if (this.journal?.journals(topic)) groups.set(topic, [...queues.keys()]);
    }
    return groups;
  }

  private persistJournal(): void {
    if (!this.journal) return;
    try {
      this.journal.persist(this.journaledGroups());
    } catch (error) {
      this.logger?.error({ err: error }, 'the ingest journal could not record what was processed');
    }
  }

  private persistJournalInBackground(): void {
    this.journal?.persistInBackground(this.journaledGroups()).catch((error: unknown) => {
      this.logger?.error({ err: error }, 'the ingest journal could not record what was processed');
    });
  }

  async subscribe<T>(topic: Topic, options: SubscribeOptions, handler: BatchHandler<T>): Promise<Subscription> {
    const groups = this.groups.get(topic) ?? new Map<string, GroupQueue<unknown>>();
    this.groups.set(topic, groups);
    // In one process a broadcast subscriber is just another group.
    const name = options.broadcast ? `${options.group}#${(this.broadcastSubscribers += 1)}` : options.group;
    if (groups.has(name)) throw new Error(`group ${name} already consumes ${topic} in this process`);
    const queue = new GroupQueue<T>(topic, name, handler, options.concurrency ?? 1, this.deadLetters);
    groups.set(name, queue as GroupQueue<unknown>);
    return {
      close: async () => {
        queue.closed = true;
        await queue.idle();
        groups.delete(name);
      },
    };
  }

  async ping(): Promise<void> {
    if (this.closed) throw new Error('bus is closed');
  }

  async close(): Promise<void> {
    this.closed = true;
    this.signalClosing();
    await Promise.all([...this.deliveries]);
    for (const groups of this.groups.values()) {
      for (const queue of groups.values()) await queue.idle();
    }
    if (this.persistTimer) clearInterval(this.persistTimer);
    // A write from the timer may still run: the last progress goes after it, or the older one would rename over it.
    await this.journal?.backgroundPersistEnded();
    this.persistJournal();
    await this.journal?.close();
  }
}
