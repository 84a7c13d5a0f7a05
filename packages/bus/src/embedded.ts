import { metrics } from '@tlm/core';
import type { BatchHandler, Bus, BusMessage, SubscribeOptions, Subscription } from './bus';
import type { Topic } from './topics';

/** Largest number of values handed to one handler call; bounds the memory of one group commit. */
const MAX_BATCH_VALUES = 20_000;

interface PendingPublish<T> {
  values: T[];
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

  constructor(
    private readonly topic: Topic,
    private readonly group: string,
    private readonly handler: BatchHandler<T>,
    private readonly concurrency: number,
  ) {}

  enqueue(values: T[]): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ values, resolve, reject });
      this.pendingValues += values.length;
      this.reportLag();
      this.pump();
    });
  }

  private pump(): void {
    while (this.running < this.concurrency && this.pending.length > 0) {
      const taken: PendingPublish<T>[] = [];
      let count = 0;
      while (this.pending.length > 0 && (taken.length === 0 || count + this.pending[0]!.values.length <= MAX_BATCH_VALUES)) {
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
    try {
      await this.handler(values);
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

/**
 * In-process bus for standalone mode. Publishing runs the subscribed handlers (the writers), so a publish that
 * resolves means the rows are committed: 202 is durable without a broker.
 */
export class EmbeddedBus implements Bus {
  readonly redelivers = false;
  private readonly groups = new Map<Topic, Map<string, GroupQueue<unknown>>>();
  /** Numbers broadcast subscribers; a count of live groups would repeat a name after a close. */
  private broadcastSubscribers = 0;
  private closed = false;

  async publish<T>(topic: Topic, messages: BusMessage<T>[]): Promise<void> {
    if (this.closed) throw new Error('bus is closed');
    if (messages.length === 0) return;
    const queues = [...(this.groups.get(topic)?.values() ?? [])].filter((queue) => !queue.closed);
    // A topic nobody consumes would drop accepted data; refuse instead.
    if (queues.length === 0) throw new Error(`no consumer is subscribed to ${topic}`);
    const stopTimer = metrics.busPublishDuration.startTimer({ topic });
    const values = messages.map((message) => message.value);
    try {
      await Promise.all(queues.map((queue) => queue.enqueue(values)));
    } finally {
      stopTimer();
    }
  }

  async subscribe<T>(topic: Topic, options: SubscribeOptions, handler: BatchHandler<T>): Promise<Subscription> {
    const groups = this.groups.get(topic) ?? new Map<string, GroupQueue<unknown>>();
    this.groups.set(topic, groups);
    // In one process a broadcast subscriber is just another group.
    const name = options.broadcast ? `${options.group}#${(this.broadcastSubscribers += 1)}` : options.group;
    if (groups.has(name)) throw new Error(`group ${name} already consumes ${topic} in this process`);
    const queue = new GroupQueue<T>(topic, name, handler, options.concurrency ?? 1);
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
    for (const groups of this.groups.values()) {
      for (const queue of groups.values()) await queue.idle();
    }
  }
}
