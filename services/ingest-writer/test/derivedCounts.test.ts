import { randomUUID } from 'node:crypto';
import { ANALYTICS_TABLES, DuckDBStore } from '@tlm/analytics-store';
import { EmbeddedBus, Topics, type BatchHandler, type Bus, type MessagePosition, type Subscription, type Topic } from '@tlm/bus';
import { createLogger } from '@tlm/core';
import { monthOf, type PGliteStore } from '@tlm/metadata-store';
import { openMigratedPGlite } from '@tlm/testkit/metadata';
import type { EventRecord, LogRecord } from '@tlm/signals';
import { startIngestWriter, type IngestWriter } from '../src/index';

/**
 * The schema registry and usage counters follow the log and event rows exactly once by stream position
 * (docs/decisions.md "Derived counts follow the rows"), on real stores: PGlite, DuckDB, the embedded bus, and a bus
 * that delivers again as Kafka does.
 */
let metadata: PGliteStore;
let duck: DuckDBStore;
const logger = createLogger('test', 'silent');
/** No timer flush during a test: counts happen when a test asks, or when Kafka-positioned deliveries wait for them. */
const NEVER_MS = 3_600_000;

let disposeMetadata: () => Promise<void>;

beforeAll(async () => {
  ({ store: metadata, dispose: disposeMetadata } = await openMigratedPGlite());
  duck = await DuckDBStore.open(':memory:');
  await duck.migrate(ANALYTICS_TABLES);
});
afterAll(async () => {
  await duck.close();
  await disposeMetadata();
});

/**
 * A bus that keeps a log, as Kafka does: each value comes with its partition and offset, and `deliver` answers with the
 * handler's outcome (Kafka would commit the offsets, or deliver the batch again).
 */
class LogBus implements Bus {
  readonly redelivers = true;
  private readonly handlers = new Map<Topic, BatchHandler<unknown>>();

  async publish(): Promise<void> {
    throw new Error('the test delivers directly');
  }

  async subscribe<T>(topic: Topic, _options: unknown, handler: BatchHandler<T>): Promise<Subscription> {
    this.handlers.set(topic, handler as BatchHandler<unknown>);
    return { close: async () => undefined };
  }

  deliver(topic: Topic, values: unknown[], positions: MessagePosition[]): Promise<void> {
    return this.handlers.get(topic)!(values, positions);
  }

  async ping(): Promise<void> {}
  async close(): Promise<void> {}
}

const NOW = Date.now();

function event(projectId: string, name: string, n: number): EventRecord {
  return { id: randomUUID(), projectId, timestamp: NOW, receivedAt: NOW, event: name, distinctId: `user-${n}`, properties: { step: n }, retentionDays: 30 };
}

function log(projectId: string, n: number): LogRecord {
  return { id: randomUUID(), projectId, timestamp: NOW, receivedAt: NOW, severity: 'info', message: `line ${n}`, properties: { route: `/r${n % 3}` }, traceId: null, spanId: null, retentionDays: 30 };
}

const offsets = (partition: number, from: number, to: number): MessagePosition[] =>
  Array.from({ length: to - from + 1 }, (_, index) => ({ partition, offset: from + index }));

/** What the metadata store holds for a project: event-name volumes, property volumes per signal and this month's usage. */
async function counted(projectId: string) {
  const names = await metadata.query<{ name: string; volume: string | number }>('select name, volume from schema_event_names where project_id = $1', [projectId]);
  const properties = await metadata.query<{ signal: string; key: string; volume: string | number }>(
    'select signal, key, volume from schema_properties where project_id = $1',
    [projectId],
  );
  const usage = await metadata.query<{ signal: string; items: string | number }>('select signal, items from usage_counters where project_id = $1 and month = $2', [
    projectId,
    monthOf(NOW),
  ]);
  return {
    eventNames: Object.fromEntries(names.map((row) => [row.name, Number(row.volume)])),
    properties: Object.fromEntries(properties.map((row) => [`${row.signal}.${row.key}`, Number(row.volume)])),
    usage: Object.fromEntries(usage.map((row) => [row.signal, Number(row.items)])),
  };
}

async function storedRows(table: 'logs' | 'events', projectId: string): Promise<number> {
  const [row] = await duck.query(`SELECT count(DISTINCT id) AS n FROM ${table} WHERE project_id = $projectId`, { projectId });
  return Number(row!['n']);
}

describe('derived counts with Kafka positions', () => {
  it('counts a redelivered batch once: event-name and property volumes and usage equal the distinct rows', async () => {
    const bus = new LogBus();
    const writer = await startIngestWriter({ bus, analytics: duck, metadata, logger, statsFlushMs: NEVER_MS });
    const projectId = randomUUID();
    const events = Array.from({ length: 15 }, (_, n) => event(projectId, 'checkout', n));
    const logs = Array.from({ length: 12 }, (_, n) => log(projectId, n));

    await bus.deliver(Topics.events, events.slice(0, 10), offsets(3, 0, 9));
    await bus.deliver(Topics.logs, logs, offsets(2, 100, 111));
    // After a rebalance Kafka delivers again from the last committed offset: the same batch, then one that overlaps it.
    await bus.deliver(Topics.events, events.slice(0, 10), offsets(3, 0, 9));
    await bus.deliver(Topics.events, events.slice(5, 15), offsets(3, 5, 14));
    await bus.deliver(Topics.logs, logs, offsets(2, 100, 111));
    await writer.stop();

    expect(await counted(projectId)).toEqual({
      eventNames: { checkout: 15 },
      properties: { 'events.step': 15, 'logs.route': 12 },
      usage: { events: 15, logs: 12 },
    });
    expect(await storedRows('events', projectId)).toBe(15);
    expect(await storedRows('logs', projectId)).toBe(12);
  });

  it('skips, after a restart, what a redelivery brings at or below the stored position and counts what is above it', async () => {
    const projectId = randomUUID();
    const events = Array.from({ length: 20 }, (_, n) => event(projectId, 'signup', n));
    const first = new LogBus();
    const before = await startIngestWriter({ bus: first, analytics: duck, metadata, logger, statsFlushMs: NEVER_MS });
    await first.deliver(Topics.events, events.slice(0, 12), offsets(4, 0, 11));
    await before.stop();

    // A new process knows nothing but the stored position.
    const second = new LogBus();
    const after = await startIngestWriter({ bus: second, analytics: duck, metadata, logger, statsFlushMs: NEVER_MS });
    await second.deliver(Topics.events, events.slice(0, 12), offsets(4, 0, 11));
    await second.deliver(Topics.events, events.slice(8, 20), offsets(4, 8, 19));
    await after.stop();

    expect(await counted(projectId)).toEqual({ eventNames: { signup: 20 }, properties: { 'events.step': 20 }, usage: { events: 20 } });
  });

  it('refuses the delivery and commits none of its counts when another writer counted the partition meanwhile', async () => {
    const projectId = randomUUID();
    const events = Array.from({ length: 10 }, (_, n) => event(projectId, 'rebalanced', n));
    const busA = new LogBus();
    const busB = new LogBus();
    const writerA = await startIngestWriter({ bus: busA, analytics: duck, metadata, logger, statsFlushMs: NEVER_MS });
    const writerB = await startIngestWriter({ bus: busB, analytics: duck, metadata, logger, statsFlushMs: NEVER_MS });
    await busA.deliver(Topics.events, events.slice(0, 5), offsets(5, 0, 4));
    // The partition moves to B, which is delivered everything A had not acknowledged, and counts it.
    await busB.deliver(Topics.events, events, offsets(5, 0, 9));
    // A, not yet told, still handles the batch it had fetched.
    await expect(busA.deliver(Topics.events, events.slice(5, 10), offsets(5, 5, 9))).rejects.toThrow('counted by another writer');
    await writerA.stop();
    await writerB.stop();

    expect(await counted(projectId)).toEqual({ eventNames: { rebalanced: 10 }, properties: { 'events.step': 10 }, usage: { events: 10 } });
  });
});

describe('derived counts with the embedded bus', () => {
  it('counts at the next start what a crash left stored but uncounted, and numbers new rows after them', async () => {
    const projectId = randomUUID();
    const firstBus = new EmbeddedBus();
    // Left running unflushed, as a process killed between storing rows and its next flush.
    await startIngestWriter({ bus: firstBus, analytics: duck, metadata, logger, statsFlushMs: NEVER_MS });
    await firstBus.publish(
      Topics.events,
      Array.from({ length: 25 }, (_, n) => ({ key: projectId, value: event(projectId, 'crashed', n) })),
    );
    await firstBus.publish(Topics.logs, [{ key: projectId, value: log(projectId, 0) }]);
    expect(await storedRows('events', projectId)).toBe(25);
    expect(await counted(projectId)).toEqual({ eventNames: {}, properties: {}, usage: {} });

    const secondBus = new EmbeddedBus();
    const restarted: IngestWriter = await startIngestWriter({ bus: secondBus, analytics: duck, metadata, logger, statsFlushMs: NEVER_MS });
    expect(await counted(projectId)).toEqual({ eventNames: { crashed: 25 }, properties: { 'events.step': 25, 'logs.route': 1 }, usage: { events: 25, logs: 1 } });

    await secondBus.publish(
      Topics.events,
      Array.from({ length: 5 }, (_, n) => ({ key: projectId, value: event(projectId, 'crashed', 25 + n) })),
    );
    await restarted.stop();
    expect(await counted(projectId)).toEqual({ eventNames: { crashed: 30 }, properties: { 'events.step': 30, 'logs.route': 1 }, usage: { events: 30, logs: 1 } });
  });
});
