import { Type } from '@sinclair/typebox';
import {
  eventRecordMapping,
  eventRow,
  eventsTable,
  logRecordMapping,
  logRow,
  logsTable,
  sessionRow,
  sessionsTable,
  spanRow,
  spansTable,
  storedIds,
  vitalRow,
  vitalsTable,
  type AnalyticsStore,
  type AppendedTable,
  type RecordMapping,
  type StreamPosition,
  type TableDefinition,
} from '@tlm/analytics-store';
import { ConsumerGroups, Topics, type BatchHandler, type Bus, type Delivery, type Subscription } from '@tlm/bus';
import type { Logger } from '@tlm/core';
import type { MetadataStore } from '@tlm/metadata-store';
import type { EventRecord, LogRecord, SessionRecord, SpanRecord, VitalRecord } from '@tlm/signals';
import { subscribeChunkTopics } from './chunkTopics';
import { StatsCounter, type CountedRecord, type CountedTopic } from './statsCounter';

export const ingestWriterConfig = {
  STATS_FLUSH_MS: Type.Integer({
    minimum: 10,
    default: 1_000,
    description: 'How often the writer adds what it wrote to the schema registry and usage counters.',
  }),
};

export interface IngestWriterDeps {
  bus: Bus;
  analytics: AnalyticsStore;
  metadata: MetadataStore;
  logger: Logger;
  statsFlushMs: number;
}

export interface IngestWriter {
  /** Finishes the batch in hand, stops consuming and writes the last statistics. */
  stop(): Promise<void>;
  /** Writes the statistics gathered so far now. */
  flushStats(): Promise<void>;
}

/**
 * The ids of a redelivered batch whose rows are stored already (a batch another consumer, or this process before a
 * crash, wrote without acknowledging), so they are not written twice; empty for a first delivery.
 */
async function storedOnRedelivery(analytics: AnalyticsStore, table: AppendedTable, records: readonly { id: string }[], delivery: Delivery | undefined): Promise<ReadonlySet<string>> {
  if (!delivery?.redelivered) return new Set();
  return storedIds(analytics, table, records.map((record) => record.id));
}

/**
 * The records to count. With the bus's positions every record goes to the counter, which skips what it counted by
 * position; with the writer's own, a stored row was counted by the start that found it, so it is left out.
 */
function countable<R extends { id: string }>(records: R[], positions: unknown, stored: ReadonlySet<string>): R[] {
  return positions || stored.size === 0 ? records : records.filter((record) => !stored.has(record.id));
}

const unwritten = <Row extends { id: string }>(stored: ReadonlySet<string>, rows: Row[]): Row[] =>
  stored.size === 0 ? rows : rows.filter((row) => !stored.has(row.id));

/**
 * The handler of a counted topic (logs, events): rows not stored yet are written with their stream positions, and the
 * records are counted behind them (StatsCounter). A whole batch the bus has as journaled JSON goes to a store that
 * reads it (insertRecords) as those bytes, with only the computed columns serialised here.
 */
function countedWriter<R extends CountedRecord & { id: string }, Row extends { id: string }>(
  analytics: AnalyticsStore,
  counter: StatsCounter,
  topic: CountedTopic,
  table: TableDefinition<Row>,
  rowOf: (record: R, position: StreamPosition | undefined) => Row,
  mapping: RecordMapping<R>,
): BatchHandler<R> {
  return async (delivered, positions, delivery) => {
    const stored = await storedOnRedelivery(analytics, table.name as AppendedTable, delivered, delivery);
    const records = countable(delivered, positions, stored);
    if (records.length === 0) return;
    const encoded = stored.size === 0 && records === delivered ? delivery?.encoded : undefined;
    await counter.write(topic, records, positions, (stream) =>
      encoded && analytics.insertRecords
        ? analytics.insertRecords(table, mapping.fields, encoded, records.map((record, index) => mapping.computed(record, stream[index])))
        : analytics.insert(table, unwritten(stored, records.map((record, index) => rowOf(record, stream[index])))),
    );
  };
}

/**
 * Consumes the log, event, span, vital, session, replay and profile topics. A batch's rows are committed before it is
 * acknowledged; a failure there fails the batch, so the bus delivers it again (Kafka) or the publish fails (embedded).
 * The schema registry and usage counters (logs and events) are derived from the committed rows exactly once by their
 * stream positions (StatsCounter): with the embedded bus they are counted on the timer, and a start counts what a
 * crash left uncounted, so a 202 never waits for them; a Kafka batch is acknowledged once counted.
 */
export async function startIngestWriter(deps: IngestWriterDeps): Promise<IngestWriter> {
  const counter = await StatsCounter.start(deps, deps.logger, deps.bus.redelivers ? 'bus' : 'own');
  // Two batches in flight: one is written while the next is prepared; rows carry their own ids, so order is free.
  const group = { group: ConsumerGroups.ingestWriter, concurrency: 2 };
  const subscriptions: Subscription[] = [
    await deps.bus.subscribe<LogRecord>(Topics.logs, group, countedWriter(deps.analytics, counter, Topics.logs, logsTable, logRow, logRecordMapping)),
    await deps.bus.subscribe<EventRecord>(Topics.events, group, countedWriter(deps.analytics, counter, Topics.events, eventsTable, eventRow, eventRecordMapping)),
    await deps.bus.subscribe<SpanRecord>(Topics.spans, group, async (records, _positions, delivery) => {
      const stored = await storedOnRedelivery(deps.analytics, 'spans', records, delivery);
      await deps.analytics.insert(spansTable, unwritten(stored, records.map(spanRow)));
    }),
    await deps.bus.subscribe<VitalRecord>(Topics.vitals, group, async (records, _positions, delivery) => {
      const stored = await storedOnRedelivery(deps.analytics, 'vitals', records, delivery);
      await deps.analytics.insert(vitalsTable, unwritten(stored, records.map(vitalRow)));
    }),
    await deps.bus.subscribe<SessionRecord>(Topics.sessions, group, async (records) => {
      await deps.analytics.insert(sessionsTable, records.map(sessionRow));
    }),
    ...(await subscribeChunkTopics(deps.bus, deps.analytics, group)),
  ];

  // A failed count is logged by the counter and tried again at the next tick.
  const flushStats = () => counter.flush().catch(() => undefined);
  const timer = setInterval(() => void flushStats(), deps.statsFlushMs);
  timer.unref();

  return {
    flushStats,
    stop: async () => {
      for (const subscription of subscriptions) await subscription.close();
      clearInterval(timer);
      await counter.close().catch(() => undefined);
    },
  };
}
