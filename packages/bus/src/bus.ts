import type { Topic } from './topics';

export interface BusMessage<T> {
  /** Partition key; the project id for signal topics. */
  key: string;
  value: T;
}

/** Where a message sits in its topic's log (Kafka): its partition, and its offset within that partition. */
export interface MessagePosition {
  partition: number;
  offset: number;
}

/**
 * Receives a batch of message values; a rejection means "not processed" and the bus delivers them again or fails the
 * publish. A bus that keeps a log (`redelivers`) also passes each value's position, in the same order: a consumer that
 * stores how far it got together with its results can tell a redelivery from new messages.
 */
export type BatchHandler<T> = (values: T[], positions?: readonly MessagePosition[], delivery?: Delivery) => Promise<void>;

/** How a batch reaches its handler. */
export interface Delivery {
  /**
   * The batch may have been processed before (the embedded bus's journal delivers again, on start, what it had not
   * seen processed when the process stopped): a handler that appends rows skips those it stored already.
   */
  redelivered: boolean;
  /**
   * The batch's values as the JSON arrays (UTF-8) the bus journaled them in, in order, when it has them (the embedded
   * bus with a journal): a handler may hand these bytes on instead of serialising the values once more.
   */
  encoded?: readonly Buffer[];
}

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
   * Whether messages whose handler did not finish are delivered again from the bus's log (Kafka: at least once, with
   * positions); otherwise the publish fails instead and nothing is delivered again (embedded: the handler's success is
   * the publisher's answer).
   */
  readonly redelivers: boolean;
  /**
   * Resolves once the messages are durable: embedded, when every subscribed group has processed them, or for a
   * journaled topic once they are in the journal and processed or a short wait has passed; Kafka, when all in-sync
   * replicas acknowledged them.
   */
  publish<T>(topic: Topic, messages: BusMessage<T>[]): Promise<void>;
  subscribe<T>(topic: Topic, options: SubscribeOptions, handler: BatchHandler<T>): Promise<Subscription>;
  ping(): Promise<void>;
  close(): Promise<void>;
}
