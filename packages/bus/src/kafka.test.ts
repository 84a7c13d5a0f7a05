import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { createLogger, metrics } from '@tlm/core';
import { liveSuite } from '@tlm/testkit';
import { CompressionTypes, ConfigResourceTypes, ConfigSource, Kafka, logLevel, Partitioners, type Admin, type KafkaMessage } from 'kafkajs';
import { consumerGroupId, deadLetterRecord, deadLetterTopicSpec, decodeMessages, KafkaBus, MAX_MESSAGE_BYTES, PartitionLag, producerConfig, producerRecord, raisedMessageLimits, topicSpec } from './kafka';
import type { MessagePosition } from './bus';
import { DataError, type DeadLetterPolicy } from './deadLetter';
import { Topics } from './topics';

function kafkaMessage(offset: string, value: string | null, headers: KafkaMessage['headers'] = {}): KafkaMessage {
  return {
    key: Buffer.from('project-1'),
    value: value === null ? null : Buffer.from(value, 'utf8'),
    offset,
    timestamp: '1767225600000',
    attributes: 0,
    headers,
  };
}

describe('producerConfig', () => {
  it('makes an idempotent producer with one request in flight, so retries neither duplicate nor reorder', () => {
    expect(producerConfig()).toEqual({
      idempotent: true,
      maxInFlightRequests: 1,
      allowAutoTopicCreation: false,
      createPartitioner: Partitioners.DefaultPartitioner,
      retry: { retries: 5, initialRetryTime: 300, maxRetryTime: 30_000 },
    });
  });

  it('bounds the retries, so a publish during a broker outage fails instead of hanging the request', () => {
    // kafkajs retries an idempotent producer Number.MAX_SAFE_INTEGER times unless told otherwise.
    expect(producerConfig().retry?.retries).toBe(5);
  });
});

describe('producerRecord', () => {
  it('waits for all in-sync replicas (acks -1) and sends each value as JSON under its key', () => {
    const record = producerRecord(
      Topics.logs,
      [
        { key: 'project-1', value: { id: 'a', message: 'héllo' } },
        { key: 'project-2', value: { id: 'b', tags: ['x'] } },
      ],
      'none',
    );
    expect(record).toEqual({
      topic: 'tlm.logs.v1',
      acks: -1,
      compression: CompressionTypes.None,
      messages: [
        { key: 'project-1', value: '{"id":"a","message":"héllo"}' },
        { key: 'project-2', value: '{"id":"b","tags":["x"]}' },
      ],
    });
  });

  it('compresses with gzip when configured', () => {
    const record = producerRecord(Topics.events, [{ key: 'p', value: 1 }], 'gzip');
    expect(record.compression).toBe(CompressionTypes.GZIP);
    expect(record.acks).toBe(-1);
  });
});

describe('PartitionLag', () => {
  it("adds up the partitions' lags, each partition's latest batch standing for it, and forgets them on a rebalance", () => {
    const lag = new PartitionLag();
    expect(lag.update(0, 120)).toBe(120);
    expect(lag.update(1, 30)).toBe(150);
    expect(lag.update(0, 20)).toBe(50);
    lag.clear();
    expect(lag.update(1, 5)).toBe(5);
  });
});

describe('decodeMessages', () => {
  it('parses every JSON value in order, each with its partition and offset', () => {
    const decoded = decodeMessages<unknown>([kafkaMessage('0', '{"n":1}'), kafkaMessage('1', '[2]'), kafkaMessage('2', '"three"')], 4);
    expect(decoded.map(({ position, ...rest }) => ({ position, value: (rest as { value: unknown }).value }))).toEqual([
      { position: { partition: 4, offset: 0 }, value: { n: 1 } },
      { position: { partition: 4, offset: 1 }, value: [2] },
      { position: { partition: 4, offset: 2 }, value: 'three' },
    ]);
  });

  it('marks a message that is not JSON malformed, in its place among its neighbours', () => {
    const decoded = decodeMessages<unknown>([kafkaMessage('10', '{"n":1}'), kafkaMessage('11', '{"n":'), kafkaMessage('12', '{"n":3}'), kafkaMessage('13', 'not json')], 0);
    expect(decoded.map((one) => [one.position.offset, 'malformed' in one ? one.malformed.name : 'value'])).toEqual([
      [10, 'value'],
      [11, 'SyntaxError'],
      [12, 'value'],
      [13, 'SyntaxError'],
    ]);
  });

  it('leaves out a message without a value (a tombstone)', () => {
    const decoded = decodeMessages<unknown>([kafkaMessage('5', null), kafkaMessage('6', '{"n":6}')], 2);
    expect(decoded).toEqual([{ message: expect.objectContaining({ offset: '6' }), position: { partition: 2, offset: 6 }, value: { n: 6 } }]);
  });
});

describe('deadLetterRecord', () => {
  it("keeps the message's key, value and headers, and names its partition, offset, group, attempts and error", () => {
    const message = kafkaMessage('17', '{"n":17}', { traceparent: 'abc' });
    const record = deadLetterRecord('tlm.logs.v1.dead', message, {
      partition: 2,
      group: 'tlm-ingest-writer.tlm.logs.v1',
      error: 'DataError: not a log',
      attempts: 5,
      at: new Date('2026-01-01T00:00:00Z'),
    });
    expect(record).toEqual({
      topic: 'tlm.logs.v1.dead',
      acks: -1,
      messages: [
        {
          key: Buffer.from('project-1'),
          value: Buffer.from('{"n":17}'),
          headers: {
            traceparent: 'abc',
            'tlm-dead-letter-partition': '2',
            'tlm-dead-letter-offset': '17',
            'tlm-dead-letter-group': 'tlm-ingest-writer.tlm.logs.v1',
            'tlm-dead-letter-error': 'DataError: not a log',
            'tlm-dead-letter-attempts': '5',
            'tlm-dead-letter-at': '2026-01-01T00:00:00.000Z',
          },
        },
      ],
    });
  });

  it('goes to a topic of one partition beside each topic, taking batches as large as the topic does', () => {
    expect(deadLetterTopicSpec(Topics.errors, { replicationFactor: 3 })).toEqual({
      topic: 'tlm.errors.v1.dead',
      numPartitions: 1,
      replicationFactor: 3,
      configEntries: [{ name: 'max.message.bytes', value: String(MAX_MESSAGE_BYTES) }],
    });
  });
});

describe('topicSpec', () => {
  it('creates signal topics with the configured partitions and replicas, the broker default retention and 64 MiB batches', () => {
    expect(topicSpec(Topics.logs, { partitions: 6, replicationFactor: 3 })).toEqual({
      topic: 'tlm.logs.v1',
      numPartitions: 6,
      replicationFactor: 3,
      configEntries: [{ name: 'max.message.bytes', value: '67108864' }],
    });
  });

  it('takes a batch as large as the largest request the API accepts (a 20 MiB envelope)', () => {
    expect(MAX_MESSAGE_BYTES).toBeGreaterThanOrEqual(20 * 1024 * 1024);
  });

  it('keeps cache invalidation and rate-limit counts a minute, since they matter for seconds', () => {
    for (const topic of [Topics.rateCounts, Topics.keyChanges]) {
      expect(topicSpec(topic, { partitions: 1, replicationFactor: 1 })).toEqual({
        topic,
        numPartitions: 1,
        replicationFactor: 1,
        configEntries: [
          { name: 'max.message.bytes', value: '67108864' },
          { name: 'retention.ms', value: '60000' },
        ],
      });
    }
  });
});

describe('raisedMessageLimits', () => {
  const entry = (configName: string, configValue: string, configSource: ConfigSource) => ({
    configName,
    configValue,
    configSource,
    isDefault: configSource !== ConfigSource.TOPIC_CONFIG,
    isSensitive: false,
    readOnly: false,
    configSynonyms: [],
  });
  const resource = (resourceName: string, configEntries: ReturnType<typeof entry>[]) => ({ resourceName, resourceType: ConfigResourceTypes.TOPIC, errorCode: 0, errorMessage: '', configEntries });

  it("raises topics made with the broker's limit, keeping their own settings, and leaves raised ones alone", () => {
    const described = {
      throttleTime: 0,
      resources: [
        resource('tlm.key-changes.v1', [
          entry('max.message.bytes', '1048588', ConfigSource.DEFAULT_CONFIG),
          entry('retention.ms', '60000', ConfigSource.TOPIC_CONFIG),
          entry('cleanup.policy', 'delete', ConfigSource.DEFAULT_CONFIG),
        ]),
        resource('tlm.logs.v1', [entry('max.message.bytes', String(MAX_MESSAGE_BYTES), ConfigSource.TOPIC_CONFIG)]),
      ],
    };
    expect(raisedMessageLimits(described)).toEqual([
      {
        type: ConfigResourceTypes.TOPIC,
        name: 'tlm.key-changes.v1',
        configEntries: [
          { name: 'retention.ms', value: '60000' },
          { name: 'max.message.bytes', value: '67108864' },
        ],
      },
    ]);
  });
});

describe('consumerGroupId', () => {
  it('names a shared group by the group and the topic, so its processes split the partitions of that topic', () => {
    expect(consumerGroupId(Topics.logs, { group: 'tlm-ingest-writer' }, 'gateway-7')).toBe('tlm-ingest-writer.tlm.logs.v1');
    expect(consumerGroupId(Topics.logs, { group: 'tlm-ingest-writer', broadcast: false }, 'gateway-8')).toBe('tlm-ingest-writer.tlm.logs.v1');
  });

  it('gives each topic of a service its own group: kafkajs leaves partitions unread when a group\'s members subscribe to different topics', () => {
    const writerTopics = [Topics.logs, Topics.events, Topics.spans, Topics.vitals, Topics.sessions, Topics.replays, Topics.profiles, Topics.attachments];
    const groups = writerTopics.map((topic) => consumerGroupId(topic, { group: 'tlm-ingest-writer' }, 'writer-1'));
    expect(new Set(groups).size).toBe(writerTopics.length);
  });

  it('gives each process its own group for broadcast, so every instance receives every message', () => {
    expect(consumerGroupId(Topics.keyChanges, { group: 'tlm-key-cache', broadcast: true }, 'gateway-7')).toBe('tlm-key-cache.tlm.key-changes.v1.gateway-7');
    expect(consumerGroupId(Topics.keyChanges, { group: 'tlm-key-cache', broadcast: true }, 'gateway-8')).toBe('tlm-key-cache.tlm.key-changes.v1.gateway-8');
  });
});

const RECEIVE_TIMEOUT_MS = 60_000;

/** Waits until `condition` holds, calling `poll` (a look at the broker, say) before each check. */
async function waitFor(condition: () => boolean, what: string, timeoutMs = RECEIVE_TIMEOUT_MS, poll?: () => Promise<void>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    await poll?.();
    if (condition()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

liveSuite('KafkaBus against a live broker', 'KAFKA_BROKERS', (brokers) => {
  // The broker may be shared: `make test` runs the fleet suites on it too, whose writers read every topic from its start
  // and could not store these probe messages. Each run has topics and groups of its own under a prefix.
  const run = randomUUID();
  const prefix = `test-${run}.`;
  const logger = createLogger('kafka-bus-test', 'warn');
  const buses: KafkaBus[] = [];

  const connect = async (instanceId: string, deadLetters?: DeadLetterPolicy) => {
    const bus = await KafkaBus.connect({
      brokers: brokers().split(','),
      clientId: `tlm-test-${instanceId}`,
      partitions: 1,
      replicationFactor: 1,
      compression: 'gzip',
      instanceId: `${instanceId}-${run}`,
      logger,
      namePrefix: prefix,
      ...(deadLetters ? { deadLetters } : {}),
    });
    buses.push(bus);
    return bus;
  };

  interface Probe {
    run: string;
    n: number;
  }
  const ours = (values: Probe[]) => values.filter((value) => value.run === run);

  let admin: Admin | undefined;
  /** The broker's own view (groups, committed offsets, topic settings), through a client of its own. */
  const brokerAdmin = async () => {
    if (!admin) {
      admin = new Kafka({ clientId: `tlm-test-admin-${run}`, brokers: brokers().split(','), logLevel: logLevel.NOTHING }).admin();
      await admin.connect();
    }
    return admin;
  };
  /** The offset a group has committed for partition 0 of a topic (-1 when none). */
  const committedOffset = async (groupId: string, topic: string) => {
    const [offsets] = await (await brokerAdmin()).fetchOffsets({ groupId: `${prefix}${groupId}`, topics: [`${prefix}${topic}`] });
    return Number(offsets!.partitions.find((partition) => partition.partition === 0)!.offset);
  };

  afterAll(async () => {
    await Promise.all(buses.map((bus) => bus.close()));
    await admin?.disconnect();
  }, 60_000);

  it('answers ping', async () => {
    const bus = await connect('ping');
    await expect(bus.ping()).resolves.toBeUndefined();
  }, 120_000);

  it('delivers a published message to a shared group, which commits the offset after the last one handled', async () => {
    const bus = await connect('round-trip');
    const group = `round-trip-${run}`;
    const received: Probe[] = [];
    const offsets: number[] = [];
    await bus.subscribe<Probe>(Topics.events, { group }, async (values, positions) => {
      values.forEach((value, index) => {
        if (value.run !== run) return;
        received.push(value);
        offsets.push(positions![index]!.offset);
      });
    });
    await bus.publish<Probe>(Topics.events, [
      { key: 'project-1', value: { run, n: 1 } },
      { key: 'project-1', value: { run, n: 2 } },
    ]);
    await waitFor(() => received.length >= 2, 'the published messages');
    expect(received).toEqual([
      { run, n: 1 },
      { run, n: 2 },
    ]);
    // Kafka's committed offset is the next one to read (later messages of a shared broker may move it further); the
    // group is `<group>.<topic>`.
    const groupId = `${group}.${Topics.events}`;
    let committed = -1;
    await waitFor(() => committed >= offsets[1]! + 1, 'the committed offset', RECEIVE_TIMEOUT_MS, async () => {
      committed = await committedOffset(groupId, Topics.events);
    });
    expect(offsets[1]).toBe(offsets[0]! + 1);
  }, 120_000);

  it('keeps one copy of a batch the producer sent twice, as after an answer lost on the network (idempotent producer)', async () => {
    const bus = await connect('idempotence');
    const received: number[] = [];
    await bus.subscribe<Probe>(Topics.attachments, { group: `idempotence-${run}` }, async (values) => {
      received.push(...ours(values).map((value) => value.n));
    });
    // kafkajs's connection to a broker: sending each Produce request twice is what a retry after a lost answer does,
    // with the same producer id and sequence numbers.
    const { prototype: broker } = require('kafkajs/src/broker') as { prototype: { produce(request: unknown): Promise<unknown> } };
    const produce = broker.produce;
    let resent = 0;
    broker.produce = async function (this: unknown, request: unknown) {
      const first = produce.call(this, request);
      if (!JSON.stringify(request).includes(Topics.attachments)) return first;
      await first;
      resent += 1;
      return produce.call(this, request);
    };
    try {
      await bus.publish<Probe>(Topics.attachments, [
        { key: 'project-1', value: { run, n: 1 } },
        { key: 'project-1', value: { run, n: 2 } },
      ]);
    } finally {
      broker.produce = produce;
    }
    expect(resent).toBe(1);
    // A marker published after the pair: once it is here, any second copy of the pair would be here too.
    await bus.publish<Probe>(Topics.attachments, [{ key: 'project-1', value: { run, n: 3 } }]);
    await waitFor(() => received.includes(3), 'the marker after the twice-sent batch');
    expect(received).toEqual([1, 2, 3]);
  }, 120_000);

  it('leaves a batch whose consumer process died mid-batch to the next member of the group, and nothing handled before it', async () => {
    const group = `crash-${run}`;
    const tag = `${run}-crash`;
    const consumer = spawn(process.execPath, [path.join(__dirname, '..', 'test', 'consumer-process.js')], {
      env: { ...process.env, KAFKA_BROKERS: brokers(), NAME_PREFIX: prefix, GROUP: group, RUN: tag, SWC_CORE: require.resolve('@swc/core') },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const lines: string[] = [];
    createInterface({ input: consumer.stdout! }).on('line', (line) => lines.push(line));
    const exited = new Promise((resolve) => consumer.once('exit', resolve));
    const said = (prefix: string) => lines.find((line) => line.startsWith(prefix));
    try {
      await waitFor(() => said('subscribed') !== undefined, 'the consumer process to subscribe');
      const publisher = await connect('crash-publisher');
      await publisher.publish(Topics.logs, [{ key: 'project-1', value: { run: tag, n: 1 } }]);
      await waitFor(() => said('processed') !== undefined, 'the first batch to be processed');
      await publisher.publish(Topics.logs, [
        { key: 'project-1', value: { run: tag, n: 2 } },
        { key: 'project-1', value: { run: tag, n: 3 } },
      ]);
      await waitFor(() => said('received') !== undefined, 'the consumer process to take the second batch');
    } finally {
      consumer.kill('SIGKILL');
      await exited;
    }
    const inFlight = JSON.parse(said('received')!.slice('received '.length)) as { n: number; position: MessagePosition }[];
    expect(inFlight.map((entry) => entry.n)).toEqual([2, 3]);

    // The group's next member resumes at the committed offset: after n = 1, at the batch the dead process held. It gets
    // the partition once the broker has given up on the dead member (its session timeout, 6 s).
    const next = await connect('crash-successor');
    const redelivered: { n: number; position: MessagePosition }[] = [];
    await next.subscribe<Probe>(Topics.logs, { group }, async (values, positions) => {
      values.forEach((value, index) => {
        if (value.run === tag) redelivered.push({ n: value.n, position: positions![index]! });
      });
    });
    // Within 20 s: the 6 s session the process asked for, not kafkajs's 30 s default.
    await waitFor(() => redelivered.length >= 2, 'the batch the dead consumer held', 20_000);
    expect(redelivered).toEqual(inFlight);
  }, 180_000);

  it('delivers every topic a group subscribes to, as the ingest writer subscribes to eight in one group', async () => {
    const bus = await connect('two-topics');
    const group = `writer-${run}`;
    const received: Record<'spans' | 'vitals', number[]> = { spans: [], vitals: [] };
    await bus.subscribe<Probe>(Topics.spans, { group }, async (values) => {
      received.spans.push(...ours(values).map((value) => value.n));
    });
    await bus.subscribe<Probe>(Topics.vitals, { group }, async (values) => {
      received.vitals.push(...ours(values).map((value) => value.n));
    });
    await bus.publish<Probe>(Topics.spans, [{ key: 'project-1', value: { run, n: 1 } }]);
    await bus.publish<Probe>(Topics.vitals, [{ key: 'project-1', value: { run, n: 2 } }]);
    await waitFor(() => received.spans.length > 0 && received.vitals.length > 0, 'a message on each topic');
    expect(received).toEqual({ spans: [1], vitals: [2] });
    const groups = (await (await brokerAdmin()).listGroups()).groups.map((entry) => entry.groupId).filter((id) => id.startsWith(`${prefix}${group}`));
    expect(groups.sort()).toEqual([`${prefix}${group}.${Topics.spans}`, `${prefix}${group}.${Topics.vitals}`]);
  }, 120_000);

  it('publishes a request of several megabytes, beyond the broker default batch limit', async () => {
    const bus = await connect('large');
    const received: Probe[] = [];
    await bus.subscribe<Probe & { text: string }>(Topics.sessions, { group: `large-${run}` }, async (values) => {
      received.push(...ours(values));
    });
    const text = 'x'.repeat(100_000);
    const messages = Array.from({ length: 40 }, (_, n) => ({ key: 'project-1', value: { run, n, text } }));
    await bus.publish(Topics.sessions, messages);
    await waitFor(() => received.length >= 40, 'the 40 large messages');
    expect(received.map((value) => value.n)).toEqual(messages.map((message) => message.value.n));
  }, 120_000);

  it('delivers every message to each broadcast subscriber, each bus instance in a group of its own', async () => {
    const first = await connect('broadcast-a');
    const second = await connect('broadcast-b');
    const seen: Record<'a' | 'b', number[]> = { a: [], b: [] };
    await first.subscribe<Probe>(Topics.keyChanges, { group: `cache-${run}`, broadcast: true }, async (values) => {
      seen.a.push(...ours(values).map((value) => value.n));
    });
    await second.subscribe<Probe>(Topics.keyChanges, { group: `cache-${run}`, broadcast: true }, async (values) => {
      seen.b.push(...ours(values).map((value) => value.n));
    });
    // Broadcast groups start at the newest offset once they have joined; keep publishing until both have.
    let n = 0;
    const deadline = Date.now() + RECEIVE_TIMEOUT_MS;
    while (seen.a.length === 0 || seen.b.length === 0) {
      if (Date.now() > deadline) throw new Error('timed out waiting for both broadcast subscribers to join');
      n += 1;
      await first.publish<Probe>(Topics.keyChanges, [{ key: 'key-change', value: { run, n } }]);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const changes = [n + 1, n + 2, n + 3];
    await first.publish<Probe>(
      Topics.keyChanges,
      changes.map((change) => ({ key: 'key-change', value: { run, n: change } })),
    );
    await waitFor(() => seen.a.includes(n + 3) && seen.b.includes(n + 3), 'the last change on both instances');
    expect(seen.a.filter((change) => change > n)).toEqual(changes);
    expect(seen.b.filter((change) => change > n)).toEqual(changes);
    const groups = (await (await brokerAdmin()).listGroups()).groups.map((group) => group.groupId);
    expect(groups).toEqual(
      expect.arrayContaining([
        `${prefix}cache-${run}.${Topics.keyChanges}.broadcast-a-${run}`,
        `${prefix}cache-${run}.${Topics.keyChanges}.broadcast-b-${run}`,
      ]),
    );
  }, 120_000);

  it('creates the short-lived topics with a minute of retention and every topic with 64 MiB batches', async () => {
    await connect('topic-settings');
    const described = await (await brokerAdmin()).describeConfigs({
      includeSynonyms: false,
      resources: [Topics.logs, Topics.rateCounts, Topics.keyChanges].map((topic) => ({ type: ConfigResourceTypes.TOPIC, name: `${prefix}${topic}` })),
    });
    const setting = (topic: string, name: string) =>
      described.resources.find((resource) => resource.resourceName === `${prefix}${topic}`)!.configEntries.find((entry) => entry.configName === name)!.configValue;
    expect([Topics.logs, Topics.rateCounts, Topics.keyChanges].map((topic) => setting(topic, 'max.message.bytes'))).toEqual(
      Array(3).fill(String(MAX_MESSAGE_BYTES)),
    );
    expect(setting(Topics.rateCounts, 'retention.ms')).toBe('60000');
    expect(setting(Topics.keyChanges, 'retention.ms')).toBe('60000');
    expect(setting(Topics.logs, 'retention.ms')).not.toBe('60000');
  }, 120_000);

  it('delivers a batch again after its handler failed (at least once), at the same positions', async () => {
    const bus = await connect('redelivery');
    expect(bus.redelivers).toBe(true);
    const calls: { failed: boolean; values: number[]; positions: MessagePosition[] }[] = [];
    await bus.subscribe<Probe>(Topics.logs, { group: `redelivery-${run}` }, async (values, positions) => {
      const mine = values.flatMap((value, index) => (value.run === run ? [{ n: value.n, position: positions![index]! }] : []));
      if (mine.length === 0) return;
      const failed = calls.length === 0;
      calls.push({ failed, values: mine.map((entry) => entry.n), positions: mine.map((entry) => entry.position) });
      if (failed) throw new Error('writer unavailable once');
    });
    await bus.publish<Probe>(Topics.logs, [{ key: 'project-1', value: { run, n: 42 } }]);
    await waitFor(() => calls.some((call) => !call.failed), 'the redelivered batch');
    expect(calls[0]).toMatchObject({ failed: true, values: [42] });
    const redelivered = calls.find((call) => !call.failed)!;
    expect(redelivered).toMatchObject({ failed: false, values: [42] });
    expect(redelivered.positions).toEqual(calls[0]!.positions);
  }, 120_000);
  /** Few quick attempts, so a poison message is set aside within a second. */
  const QUICK: DeadLetterPolicy = { attempts: 3, backoffMs: 50, maxBackoffMs: 200 };
  const deadLetterCount = async (topic: string, group: string) =>
    (await metrics.busDeadLetters.get()).values.find((sample) => sample.labels['topic'] === topic && sample.labels['group'] === group)?.value ?? 0;
  /** The messages on a topic's dead-letter topic, read from its start by a consumer of its own. */
  const deadLetters = async (topic: string, count: number) => {
    const consumer = new Kafka({ clientId: `tlm-test-dead-${run}`, brokers: brokers().split(','), logLevel: logLevel.NOTHING }).consumer({ groupId: `dead-reader-${randomUUID()}` });
    const read: KafkaMessage[] = [];
    await consumer.connect();
    try {
      await consumer.subscribe({ topic: `${prefix}${topic}.dead`, fromBeginning: true });
      await consumer.run({ eachMessage: async ({ message }) => void read.push(message) });
      await waitFor(() => read.length >= count, `${count} dead letters`);
    } finally {
      await consumer.disconnect();
    }
    return read;
  };

  it('sets a message that keeps failing with a data error aside on the dead-letter topic, and processes and commits the ones after it', async () => {
    const bus = await connect('poison', QUICK);
    const group = `poison-${run}`;
    const stored: number[] = [];
    const offsets = new Map<number, number>();
    await bus.subscribe<Probe>(Topics.profiles, { group }, async (values, positions) => {
      const mine = values.flatMap((value, index) => (value.run === run ? [{ n: value.n, offset: positions![index]!.offset }] : []));
      for (const one of mine) offsets.set(one.n, one.offset);
      if (mine.some((one) => one.n === 3)) throw new DataError('n 3 is not a profile');
      stored.push(...mine.map((one) => one.n));
    });
    await bus.publish<Probe>(
      Topics.profiles,
      [1, 2, 3, 4, 5].map((n) => ({ key: 'project-1', value: { run, n } })),
    );
    await waitFor(() => stored.includes(5), 'the messages after the poison one');
    expect(stored).toEqual([1, 2, 4, 5]);
    const groupId = `${prefix}${group}.${Topics.profiles}`;
    let committed = -1;
    await waitFor(() => committed === offsets.get(5)! + 1, 'the offset committed past the last message', RECEIVE_TIMEOUT_MS, async () => {
      committed = await committedOffset(`${group}.${Topics.profiles}`, Topics.profiles);
    });

    const [dead] = await deadLetters(Topics.profiles, 1);
    expect(dead!.key!.toString()).toBe('project-1');
    expect(JSON.parse(dead!.value!.toString())).toEqual({ run, n: 3 });
    const headers = Object.fromEntries(Object.entries(dead!.headers!).map(([name, value]) => [name, value!.toString()]));
    expect(headers).toEqual({
      'tlm-dead-letter-partition': '0',
      'tlm-dead-letter-offset': String(offsets.get(3)),
      'tlm-dead-letter-group': groupId,
      'tlm-dead-letter-error': 'DataError: n 3 is not a profile',
      'tlm-dead-letter-attempts': '3',
      'tlm-dead-letter-at': expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect(await deadLetterCount(Topics.profiles, groupId)).toBe(1);
  }, 120_000);

  it('sets a message that is not JSON aside at once, and processes the ones around it', async () => {
    const bus = await connect('malformed', QUICK);
    const group = `malformed-${run}`;
    const stored: number[] = [];
    await bus.subscribe<Probe>(Topics.errors, { group }, async (values) => {
      stored.push(...ours(values).map((value) => value.n));
    });
    const producer = new Kafka({ clientId: `tlm-test-raw-${run}`, brokers: brokers().split(','), logLevel: logLevel.NOTHING }).producer();
    await producer.connect();
    try {
      await producer.send({
        topic: `${prefix}${Topics.errors}`,
        messages: [
          { key: 'project-1', value: JSON.stringify({ run, n: 10 }) },
          { key: 'project-1', value: `{"run":"${run}", "n":` },
          { key: 'project-1', value: JSON.stringify({ run, n: 12 }) },
        ],
      });
    } finally {
      await producer.disconnect();
    }
    await waitFor(() => stored.includes(12), 'the message after the malformed one');
    expect(stored.filter((n) => n >= 10)).toEqual([10, 12]);
    const dead = await deadLetters(Topics.errors, 1);
    expect(dead.map((message) => message.value!.toString())).toEqual([`{"run":"${run}", "n":`]);
    expect(dead[0]!.headers!['tlm-dead-letter-error']!.toString()).toMatch(/^SyntaxError: /);
  }, 120_000);

  it('retries without end, and sets nothing aside, while every message fails as when the store is down', async () => {
    const bus = await connect('store-down', QUICK);
    const group = `store-down-${run}`;
    let failures = 0;
    const stored: number[] = [];
    await bus.subscribe<Probe>(Topics.replays, { group }, async (values) => {
      const mine = ours(values);
      if (mine.length === 0) return;
      // An error no rule names, so only the absence of any success tells the store is down; each round of three calls
      // narrows the batch to its first message, which fails more often than its attempts allow.
      if (failures < (QUICK.attempts + 2) * 3) {
        failures += 1;
        throw new Error('the analytics store went away');
      }
      stored.push(...mine.map((value) => value.n));
    });
    await bus.publish<Probe>(
      Topics.replays,
      [1, 2, 3].map((n) => ({ key: 'project-1', value: { run, n } })),
    );
    await waitFor(() => stored.length === 3, 'every message once the store is back');
    expect(stored).toEqual([1, 2, 3]);
    expect(await deadLetterCount(Topics.replays, `${prefix}${group}.${Topics.replays}`)).toBe(0);
    const [dead] = await (await brokerAdmin()).fetchTopicOffsets(`${prefix}${Topics.replays}.dead`);
    expect(dead!.high).toBe('0');
  }, 120_000);
});
