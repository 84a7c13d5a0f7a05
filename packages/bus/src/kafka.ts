import { Type } from '@sinclair/typebox';
import { type Logger, metrics, splitList } from '@tlm/core';
import {
  CompressionTypes,
  ConfigResourceTypes,
  ConfigSource,
  Kafka,
  logLevel,
  Partitioners,
  type Consumer,
  type DescribeConfigResponse,
  type IResourceConfig,
  type ITopicConfig,
  type KafkaMessage,
  type Producer,
  type ProducerConfig,
  type ProducerRecord,
} from 'kafkajs';
import type { BatchHandler, Bus, BusMessage, MessagePosition, SubscribeOptions, Subscription } from './bus';
import { DEFAULT_DEAD_LETTER_POLICY, deadLetterConfig, deadLetterPolicyOf, describeError, FailingMessages, processNarrowing, type DeadLetterPolicy, type FailureVerdict } from './deadLetter';
import { deadLetterTopic, SHORT_LIVED_TOPICS, Topics, type Topic } from './topics';

/** How long the brokers wait for a consumer's heartbeat (kafkajs's default, as the Java client's 45 s is near it). */
export const DEFAULT_SESSION_TIMEOUT_MS = 30_000;

export const kafkaConfig = {
  KAFKA_BROKERS: Type.String({
    pattern: '^\\s*(\\[[0-9A-Fa-f:.]+\\]|[^\\s,:\\[\\]]+):[0-9]+\\s*(,\\s*(\\[[0-9A-Fa-f:.]+\\]|[^\\s,:\\[\\]]+):[0-9]+\\s*)*$',
    description: 'Comma-separated Kafka bootstrap brokers (host:port); selects the Kafka bus.',
  }),
  KAFKA_CLIENT_ID: Type.String({ default: 'tlm', description: 'Client id reported to the brokers.' }),
  KAFKA_TOPIC_PARTITIONS: Type.Integer({ minimum: 1, default: 6, description: 'Partitions for topics this service creates.' }),
  KAFKA_REPLICATION_FACTOR: Type.Integer({ minimum: 1, default: 1, description: 'Replication factor for topics this service creates.' }),
  KAFKA_COMPRESSION: Type.Union([Type.Literal('none'), Type.Literal('gzip')], {
    default: 'none',
    description: 'Compression of produced batches; gzip trades gateway CPU for broker bandwidth.',
  }),
  KAFKA_SESSION_TIMEOUT_MS: Type.Integer({
    minimum: 6_000,
    maximum: 300_000,
    default: DEFAULT_SESSION_TIMEOUT_MS,
    description:
      "How long the brokers wait for a consumer's heartbeat before its partitions go to another member of its group: how long a crashed consumer's partitions stand still, against rebalances when a busy process misses heartbeats. The brokers' group.min.session.timeout.ms and group.max.session.timeout.ms bound it too.",
  }),
  ...deadLetterConfig,
};

export interface KafkaBusOptions {
  brokers: string[];
  clientId: string;
  partitions: number;
  replicationFactor: number;
  compression: 'none' | 'gzip';
  /** Distinguishes this process in broadcast groups. */
  instanceId: string;
  logger: Logger;
  /**
   * Put before every topic and consumer group name, so users of one cluster that must not read each other's messages
   * (the live test suites on one broker) each have their own; none by default.
   */
  namePrefix?: string;
  /** When a message that keeps failing goes to its dead-letter topic; DEFAULT_DEAD_LETTER_POLICY by default. */
  deadLetters?: DeadLetterPolicy;
  /** KAFKA_SESSION_TIMEOUT_MS (30 s by default): a consumer sends a heartbeat every tenth of it. */
  sessionTimeoutMs?: number;
}

/**
 * How often a publish is retried before it fails: kafkajs retries an idempotent producer's sends without end by
 * default, so during a broker outage a request would hang instead of failing. With these (300 ms doubling, at most
 * 30 s in all) a publish gives up after about ten seconds and the request answers 500, which SDKs retry.
 */
export const PUBLISH_RETRY = { retries: 5, initialRetryTime: 300, maxRetryTime: 30_000 } as const;

/**
 * Idempotent producer: the broker drops a retried batch it already has, so a retry never duplicates a message. Keys
 * go to partitions as the Java client puts them (murmur2), named here so kafkajs does not warn at every start.
 */
export function producerConfig(): ProducerConfig {
  return {
    idempotent: true,
    maxInFlightRequests: 1,
    allowAutoTopicCreation: false,
    createPartitioner: Partitioners.DefaultPartitioner,
    retry: { ...PUBLISH_RETRY },
  };
}

/** The exact record a publish sends: all in-sync replicas must acknowledge (acks -1), values are JSON. */
export function producerRecord<T>(topic: Topic, messages: BusMessage<T>[], compression: 'none' | 'gzip'): ProducerRecord {
  return {
    topic,
    acks: -1,
    compression: compression === 'gzip' ? CompressionTypes.GZIP : CompressionTypes.None,
    messages: messages.map((message) => ({ key: message.key, value: JSON.stringify(message.value) })),
  };
}

/** A fetched message, decoded: its value, or why it has none (not JSON, which no consumer can process). */
export type DecodedMessage<T> = { message: KafkaMessage; position: MessagePosition } & ({ value: T } | { malformed: Error });

/** Decodes a fetched batch of one partition, in order; a message without a value (a tombstone) is left out. */
export function decodeMessages<T>(messages: KafkaMessage[], partition: number): DecodedMessage<T>[] {
  const decoded: DecodedMessage<T>[] = [];
  for (const message of messages) {
    if (!message.value) continue;
    const position = { partition, offset: Number(message.offset) };
    try {
      decoded.push({ message, position, value: JSON.parse(message.value.toString('utf8')) as T });
    } catch (error) {
      decoded.push({ message, position, malformed: error as Error });
    }
  }
  return decoded;
}

/**
 * The record that sets a message aside on its topic's dead-letter topic: its own key, value and headers, and headers
 * naming where it came from, which consumer group gave up on it, after how many attempts, and the last error.
 */
export function deadLetterRecord(
  topic: string,
  message: KafkaMessage,
  failure: { partition: number; group: string; error: string; attempts: number; at: Date },
): ProducerRecord {
  return {
    topic,
    acks: -1,
    messages: [
      {
        key: message.key,
        value: message.value,
        headers: {
          ...message.headers,
          'tlm-dead-letter-partition': String(failure.partition),
          'tlm-dead-letter-offset': message.offset,
          'tlm-dead-letter-group': failure.group,
          'tlm-dead-letter-error': failure.error,
          'tlm-dead-letter-attempts': String(failure.attempts),
          'tlm-dead-letter-at': failure.at.toISOString(),
        },
      },
    ],
  };
}

/**
 * The largest record batch a topic takes. A publish sends a request's records with one key, so they travel as one
 * batch, and the broker's default limit (about 1 MB) is below what the API accepts: a 2 MB body, a 20 MiB envelope.
 */
export const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

/**
 * How a missing topic is created: the configured partitions and replicas, batches up to MAX_MESSAGE_BYTES; a minute's
 * retention for short-lived ones.
 */
export function topicSpec(topic: Topic, options: { partitions: number; replicationFactor: number }): ITopicConfig {
  return {
    topic,
    numPartitions: options.partitions,
    replicationFactor: options.replicationFactor,
    configEntries: [
      { name: 'max.message.bytes', value: String(MAX_MESSAGE_BYTES) },
      ...(SHORT_LIVED_TOPICS.has(topic) ? [{ name: 'retention.ms', value: '60000' }] : []),
    ],
  };
}

/** A dead-letter topic: one partition (dead letters are rare and read in order), batches up to MAX_MESSAGE_BYTES. */
export function deadLetterTopicSpec(topic: Topic, options: { replicationFactor: number }): ITopicConfig {
  return {
    topic: deadLetterTopic(topic),
    numPartitions: 1,
    replicationFactor: options.replicationFactor,
    configEntries: [{ name: 'max.message.bytes', value: String(MAX_MESSAGE_BYTES) }],
  };
}

/**
 * The configuration changes that raise existing topics to MAX_MESSAGE_BYTES (topics created before it was set keep the
 * broker's limit). Kafka's AlterConfigs replaces a topic's whole configuration, so each change carries the topic's
 * other own settings too (the retention of short-lived topics); topics already there are left alone.
 */
export function raisedMessageLimits(described: DescribeConfigResponse): IResourceConfig[] {
  return described.resources.flatMap((resource) => {
    const limit = resource.configEntries.find((entry) => entry.configName === 'max.message.bytes');
    if (resource.errorCode !== 0 || (limit && Number(limit.configValue) >= MAX_MESSAGE_BYTES)) return [];
    const own = resource.configEntries
      .filter((entry) => entry.configSource === ConfigSource.TOPIC_CONFIG && !entry.isSensitive && !entry.readOnly && entry.configName !== 'max.message.bytes')
      .map((entry) => ({ name: entry.configName, value: entry.configValue }));
    return [
      {
        type: ConfigResourceTypes.TOPIC,
        name: resource.resourceName,
        configEntries: [...own, { name: 'max.message.bytes', value: String(MAX_MESSAGE_BYTES) }],
      },
    ];
  });
}

/** Longest wait of an idle fetch, in milliseconds. */
export const CONSUMER_MAX_WAIT_MS = 500;

/**
 * Consumer group of a subscription: one per topic, shared by the group's processes, or one per process for broadcast.
 * kafkajs assigns a group's partitions only among the topics its leader subscribes to, so members of one group that
 * subscribe to different topics would leave most partitions unread; each topic gets a group of its own.
 */
export function consumerGroupId(topic: Topic, options: SubscribeOptions, instanceId: string): string {
  return options.broadcast ? `${options.group}.${topic}.${instanceId}` : `${options.group}.${topic}`;
}

/**
 * A consumer's lag over all its partitions: each batch reports its own partition's lag, and with several partitions
 * read at once the last batch alone would stand for the whole topic. Forgotten on a rebalance, which may move
 * partitions to another consumer.
 */
export class PartitionLag {
  private readonly lags = new Map<number, number>();

  /** Records a partition's lag; answers the total. */
  update(partition: number, lag: number): number {
    this.lags.set(partition, lag);
    let total = 0;
    for (const value of this.lags.values()) total += value;
    return total;
  }

  clear(): void {
    this.lags.clear();
  }
}

export class KafkaBus implements Bus {
  readonly redelivers = true;
  private readonly consumers: Consumer[] = [];

  private constructor(
    private readonly kafka: Kafka,
    private readonly producer: Producer,
    private readonly options: KafkaBusOptions,
  ) {}

  static async connect(options: KafkaBusOptions): Promise<KafkaBus> {
    const kafka = new Kafka({
      clientId: options.clientId,
      brokers: options.brokers,
      logLevel: logLevel.WARN,
      logCreator: () => (entry) => options.logger.warn({ kafka: entry.namespace, ...entry.log }, 'kafka'),
    });
    const prefixed = (topic: string) => `${options.namePrefix ?? ''}${topic}`;
    const admin = kafka.admin();
    await admin.connect();
    try {
      const existing = new Set(await admin.listTopics());
      const missing = [
        ...Object.values(Topics).map((topic) => topicSpec(topic, options)),
        ...Object.values(Topics).map((topic) => deadLetterTopicSpec(topic, options)),
      ]
        .map((spec) => ({ ...spec, topic: prefixed(spec.topic) }))
        .filter((spec) => !existing.has(spec.topic));
      if (missing.length > 0) await admin.createTopics({ waitForLeaders: true, topics: missing });
      const present = Object.values(Topics).filter((topic) => existing.has(prefixed(topic)));
      if (present.length > 0) {
        const described = await admin.describeConfigs({
          includeSynonyms: false,
          resources: present.map((topic) => ({ type: ConfigResourceTypes.TOPIC, name: prefixed(topic) })),
        });
        const raised = raisedMessageLimits(described);
        if (raised.length > 0) await admin.alterConfigs({ validateOnly: false, resources: raised });
      }
    } finally {
      await admin.disconnect();
    }
    const producer = kafka.producer(producerConfig());
    await producer.connect();
    return new KafkaBus(kafka, producer, options);
  }

  static fromConfig(
    config: {
      KAFKA_BROKERS: string;
      KAFKA_CLIENT_ID: string;
      KAFKA_TOPIC_PARTITIONS: number;
      KAFKA_REPLICATION_FACTOR: number;
      KAFKA_COMPRESSION: 'none' | 'gzip';
      KAFKA_SESSION_TIMEOUT_MS: number;
      BUS_DEAD_LETTER_ATTEMPTS: number;
      BUS_RETRY_BACKOFF_MS: number;
      BUS_RETRY_MAX_BACKOFF_MS: number;
    },
    instanceId: string,
    logger: Logger,
  ): Promise<KafkaBus> {
    return KafkaBus.connect({
      brokers: splitList(config.KAFKA_BROKERS),
      clientId: config.KAFKA_CLIENT_ID,
      partitions: config.KAFKA_TOPIC_PARTITIONS,
      replicationFactor: config.KAFKA_REPLICATION_FACTOR,
      compression: config.KAFKA_COMPRESSION,
      sessionTimeoutMs: config.KAFKA_SESSION_TIMEOUT_MS,
      instanceId,
      logger,
      deadLetters: deadLetterPolicyOf(config),
    });
  }

  async publish<T>(topic: Topic, messages: BusMessage<T>[]): Promise<void> {
    if (messages.length === 0) return;
    const stopTimer = metrics.busPublishDuration.startTimer({ topic });
    try {
      await this.producer.send({ ...producerRecord(topic, messages, this.options.compression), topic: this.prefixed(topic) });
    } finally {
      stopTimer();
    }
  }

  async subscribe<T>(topic: Topic, options: SubscribeOptions, handler: BatchHandler<T>): Promise<Subscription> {
    const groupId = this.prefixed(consumerGroupId(topic, options, this.options.instanceId));
    // An idle fetch waits at most 500 ms for messages (the Java client's fetch.max.wait.ms; kafkajs's own 5 s): a
    // partition resumed after a retry's backoff is fetched again with the next request.
    const sessionTimeout = this.options.sessionTimeoutMs ?? DEFAULT_SESSION_TIMEOUT_MS;
    const consumer = this.kafka.consumer({
      groupId,
      allowAutoTopicCreation: false,
      maxWaitTimeInMs: CONSUMER_MAX_WAIT_MS,
      sessionTimeout,
      heartbeatInterval: Math.floor(sessionTimeout / 10),
    });
    await consumer.connect();
    // Broadcast subscribers only care about changes from now on; shared groups must see every message.
    await consumer.subscribe({ topic: this.prefixed(topic), fromBeginning: !options.broadcast });
    const logger = this.options.logger;
    const lag = new PartitionLag();
    const failing = new FailingMessages(this.options.deadLetters ?? DEFAULT_DEAD_LETTER_POLICY);
    // Partitions this member has finished a batch of since it joined: a first batch may hold messages another member
    // (or this process before a crash) handled without committing, so it is marked redelivered, as is a batch retried.
    const settled = new Set<number>();
    // Paused partitions' resumes, so a close does not wait for them.
    const resumes = new Set<NodeJS.Timeout>();
    consumer.on(consumer.events.GROUP_JOIN, () => {
      lag.clear();
      settled.clear();
      failing.clear();
    });
    const deadLetter = async (decoded: DecodedMessage<T>, error: unknown, verdict: { attempts: number; kind: string }) => {
      const at = new Date();
      await this.producer.send(
        deadLetterRecord(this.prefixed(deadLetterTopic(topic)), decoded.message, {
          partition: decoded.position.partition,
          group: groupId,
          error: describeError(error),
          attempts: verdict.attempts,
          at,
        }),
      );
      metrics.busDeadLetters.inc({ topic, group: groupId });
      logger.warn(
        { topic, group: groupId, ...decoded.position, key: decoded.message.key?.toString('utf8'), attempts: verdict.attempts, kind: verdict.kind, err: error },
        `set a message aside on ${deadLetterTopic(topic)}: processing it kept failing`,
      );
    };
    await consumer.run({
      partitionsConsumedConcurrently: options.concurrency ?? 1,
      eachBatchAutoResolve: false,
      eachBatch: async ({ batch, resolveOffset, commitOffsetsIfNecessary, heartbeat, isRunning, isStale, pause }) => {
        if (!isRunning() || isStale()) return;
        const decoded = decodeMessages<T>(batch.messages, batch.partition);
        let redelivered = !settled.has(batch.partition);
        settled.delete(batch.partition);
        const idOf = (one: DecodedMessage<T>) => `${one.position.partition}:${one.position.offset}`;
        // Throwing leaves the offset uncommitted, so the messages are delivered again (at least once), marked so;
        // writers insert with each item's id, so a redelivery never makes a second row.
        const call = async (run: DecodedMessage<T>[]) => {
          try {
            await handler(
              run.map((one) => (one as { value: T }).value),
              run.map((one) => one.position),
              { redelivered },
            );
          } catch (error) {
            redelivered = true;
            throw error;
          }
        };
        const processed = async (run: DecodedMessage<T>[]) => {
          failing.succeeded(run.map(idOf));
          resolveOffset(run.at(-1)!.message.offset);
          await commitOffsetsIfNecessary();
          await heartbeat();
        };
        let at = 0;
        while (at < decoded.length) {
          if (!isRunning() || isStale()) return;
          const first = decoded[at]!;
          if ('malformed' in first) {
            // Not JSON: no consumer can ever process it.
            await deadLetter(first, first.malformed, { attempts: 1, kind: 'data' });
            resolveOffset(first.message.offset);
            at += 1;
            continue;
          }
          let end = at;
          while (end < decoded.length && !('malformed' in decoded[end]!)) end += 1;
          const run = decoded.slice(at, end);
          const failure = await processNarrowing(
            0,
            run.length,
            (from, to) => call(run.slice(from, to)),
            (from, to) => processed(run.slice(from, to)),
          );
          if (!failure) {
            at = end;
            continue;
          }
          const failed = run[failure.index]!;
          const verdict: FailureVerdict = failing.failed(idOf(failed), failure.error, failure.alone);
          if (verdict.deadLetter) {
            await deadLetter(failed, failure.error, verdict);
            resolveOffset(failed.message.offset);
            await commitOffsetsIfNecessary();
            at += failure.index + 1;
            continue;
          }
          logger.warn(
            { topic, group: groupId, ...failed.position, attempts: verdict.attempts, kind: verdict.kind, retryInMs: verdict.retryInMs, err: failure.error },
            'processing a message failed; trying it again',
          );
          // The partition waits, unresolved from the failing message on, while the others go on; Kafka delivers it
          // again once resumed.
          const resume = pause();
          const timer = setTimeout(() => {
            resumes.delete(timer);
            resume();
          }, verdict.retryInMs);
          timer.unref();
          resumes.add(timer);
          await commitOffsetsIfNecessary();
          return;
        }
        settled.add(batch.partition);
        resolveOffset(batch.lastOffset());
        await commitOffsetsIfNecessary();
        await heartbeat();
        metrics.busConsumerLag.set({ topic, group: groupId }, lag.update(batch.partition, Number(batch.offsetLag())));
      },
    });
    this.consumers.push(consumer);
    return {
      close: async () => {
        for (const timer of resumes) clearTimeout(timer);
        await consumer.disconnect();
        this.consumers.splice(this.consumers.indexOf(consumer), 1);
      },
    };
  }

  private prefixed(name: string): string {
    return `${this.options.namePrefix ?? ''}${name}`;
  }

  async ping(): Promise<void> {
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      await admin.describeCluster();
    } finally {
      await admin.disconnect();
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.consumers.map((consumer) => consumer.disconnect()));
    await this.producer.disconnect();
  }
}
