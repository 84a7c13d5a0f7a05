import { Type } from '@sinclair/typebox';
import {
  eventRow,
  eventsTable,
  logRow,
  logsTable,
  sessionRow,
  sessionsTable,
  spanRow,
  spansTable,
  vitalRow,
  vitalsTable,
  type AnalyticsStore,
} from '@tlm/analytics-store';
import { ConsumerGroups, Topics, type Bus, type Subscription } from '@tlm/bus';
import type { Logger } from '@tlm/core';
import type { MetadataStore } from '@tlm/metadata-store';
import type { EventRecord, LogRecord, SessionRecord, SpanRecord, VitalRecord } from '@tlm/signals';
import { subscribeChunkTopics } from './chunkTopics';
import { StatsTally, writeStats } from './stats';

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
 * Consumes the log, event, span, vital, session, replay and profile topics. A batch is acknowledged once its rows are committed; a failure
 * there fails the batch, so the bus delivers it again (Kafka) or the publish fails (embedded). The schema registry and
 * usage counters (logs and events) are derived from committed rows and are flushed on a timer, so the ingest path
 * never waits for them.
 */
export async function startIngestWriter(deps: IngestWriterDeps): Promise<IngestWriter> {
  const tally = new StatsTally();
  // Two batches in flight: one is written while the next is prepared; rows carry their own ids, so order is free.
  const group = { group: ConsumerGroups.ingestWriter, concurrency: 2 };
  const subscriptions: Subscription[] = [
    await deps.bus.subscribe<LogRecord>(Topics.logs, group, async (records) => {
      await deps.analytics.insert(logsTable, records.map(logRow));
      tally.addRecords('logs', records);
    }),
    await deps.bus.subscribe<EventRecord>(Topics.events, group, async (records) => {
      await deps.analytics.insert(eventsTable, records.map(eventRow));
      tally.addRecords('events', records);
      tally.addEventNames(records);
    }),
    await deps.bus.subscribe<SpanRecord>(Topics.spans, group, async (records) => {
      await deps.analytics.insert(spansTable, records.map(spanRow));
    }),
    await deps.bus.subscribe<VitalRecord>(Topics.vitals, group, async (records) => {
      await deps.analytics.insert(vitalsTable, records.map(vitalRow));
    }),
    await deps.bus.subscribe<SessionRecord>(Topics.sessions, group, async (records) => {
      await deps.analytics.insert(sessionsTable, records.map(sessionRow));
    }),
    ...(await subscribeChunkTopics(deps.bus, deps.analytics, group)),
  ];

  let flushing: Promise<void> = Promise.resolve();
  const flushStats = () => {
    flushing = flushing.then(async () => {
      if (tally.empty) return;
      const taken = tally.take();
      try {
        await writeStats(deps.metadata, taken);
      } catch (error) {
        tally.restore(taken);
        deps.logger.error({ err: error }, 'updating the schema registry and usage counters failed; retrying at the next flush');
      }
    });
    return flushing;
  };
  const timer = setInterval(() => void flushStats(), deps.statsFlushMs);
  timer.unref();

  return {
    flushStats,
    stop: async () => {
      for (const subscription of subscriptions) await subscription.close();
      clearInterval(timer);
      await flushStats();
    },
  };
}
