import type { Topic } from './topics';

export interface BusMessage<T> {
  /** Partition key; the project id for signal topics. */
  key: string;
  value: T;
}

/** Receives a batch of message values; a rejection means "not processed" and the bus delivers them again or fails the publish. */
export type BatchHandler<T> = (values: T[]) => Promise<void>;

export interface SubscribeOptions {
  /** Consumer group: each message is processed by one member of each group. */
  group: string;
  /** Every instance receives every message (cache invalidation) instead of sharing them within the group. */
  broadcast?: boolean;
  /**
   * How many handler calls may run at once (default 1): the embedded bus prepares the next batch while the previous
   * one is written; Kafka consumes that many partitions concurrently. Order is kept only with 1.
   */
  concurrency?: number;
}

export interface Subscription {
  /** Stops taking new messages after the batch in hand has been processed. */
  close(): Promise<void>;
}

export interface Bus {
  /**
   * Resolves once the messages are durable: embedded, when every subscribed group has processed them;
   * Kafka, when all in-sync replicas acknowledged them.
   */
  publish<T>(topic: Topic, messages: BusMessage<T>[]): Promise<void>;
  subscribe<T>(topic: Topic, options: SubscribeOptions, handler: BatchHandler<T>): Promise<Subscription>;
  ping(): Promise<void>;
  close(): Promise<void>;
}
