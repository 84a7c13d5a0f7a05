import { eventRow, eventsTable, logRow, logsTable, type AnalyticsStore } from '@tlm/analytics-store';
import { ConsumerGroups, Topics, type Bus, type Subscription } from '@tlm/bus';
import type { Logger } from '@tlm/core';
import { recordSchema, recordUsage, type MetadataStore } from '@tlm/metadata-store';
import type { EventRecord, LogRecord } from '@tlm/signals';
import { eventNameDeltas, propertyDeltas, usageDeltas } from './stats';

export interface IngestWriterDeps {
  bus: Bus;
  analytics: AnalyticsStore;
  metadata: MetadataStore;
  logger: Logger;
}

export interface IngestWriter {
  /** Finishes the batch in hand and stops consuming. */
  stop(): Promise<void>;
}

/**
 * Consumes the log and event topics. Rows are written first and a failure there fails the batch (the bus
 * delivers it again); the schema registry and usage counters follow and are best effort, because they are
 * derived and a lost increment must never cost a row.
 */
export async function startIngestWriter(deps: IngestWriterDeps): Promise<IngestWriter> {
  const group = { group: ConsumerGroups.ingestWriter };
  const subscriptions: Subscription[] = [
    await deps.bus.subscribe<LogRecord>(Topics.logs, group, async (records) => {
      await deps.analytics.insert(logsTable, records.map(logRow));
      await updateStats(deps, 'logs', () =>
        Promise.all([recordSchema(deps.metadata, propertyDeltas('logs', records), []), recordUsage(deps.metadata, usageDeltas('logs', records))]),
      );
    }),
    await deps.bus.subscribe<EventRecord>(Topics.events, group, async (records) => {
      await deps.analytics.insert(eventsTable, records.map(eventRow));
      await updateStats(deps, 'events', () =>
        Promise.all([
          recordSchema(deps.metadata, propertyDeltas('events', records), eventNameDeltas(records)),
          recordUsage(deps.metadata, usageDeltas('events', records)),
        ]),
      );
    }),
  ];
  return {
    stop: async () => {
      for (const subscription of subscriptions) await subscription.close();
    },
  };
}

async function updateStats(deps: IngestWriterDeps, signal: string, update: () => Promise<unknown>): Promise<void> {
  try {
    await update();
  } catch (error) {
    deps.logger.error({ err: error, signal }, 'updating the schema registry or usage counters failed; rows are stored');
  }
}
