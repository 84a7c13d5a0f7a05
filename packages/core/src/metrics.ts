import { Counter, Gauge, Histogram, collectDefaultMetrics, register } from 'prom-client';

export { register as metricsRegistry };

/**
 * Adds the process metrics (CPU, memory, GC, event-loop lag) to the registry. Called once by a process's entry point,
 * not on import: it starts a GC observer and an event-loop monitor that are never released.
 */
export function collectProcessMetrics(): void {
  collectDefaultMetrics({ prefix: 'tlm_' });
}

export const httpRequests = new Counter({
  name: 'tlm_http_requests_total',
  help: 'HTTP requests answered, by service, route pattern and status.',
  labelNames: ['service', 'method', 'route', 'status'] as const,
});

export const httpRequestDuration = new Histogram({
  name: 'tlm_http_request_duration_seconds',
  help: 'Time from request to response, by service, route pattern and status.',
  labelNames: ['service', 'method', 'route', 'status'] as const,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
});

export const ingestItems = new Counter({
  name: 'tlm_ingest_items_total',
  help: 'Ingested items by signal (logs, events, ...) and outcome (accepted or rejected).',
  labelNames: ['signal', 'outcome'] as const,
});

export const busPublishDuration = new Histogram({
  name: 'tlm_bus_publish_duration_seconds',
  help: 'Time until the bus acknowledged a publish (embedded: rows committed; Kafka: broker ack).',
  labelNames: ['topic'] as const,
  buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
});

/** Seconds, from a write to the page cache to an fdatasync behind a checkpoint. */
const JOURNAL_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.2, 0.5, 1, 2.5, 5];

export const journalSyncDuration = new Histogram({
  name: 'tlm_ingest_journal_sync_seconds',
  help: "Time one fdatasync of the standalone server's ingest journal took, by topic: an ingest answer waits for it up to INGEST_COMMIT_WAIT_MS (JOURNAL_SYNC=bounded) or to its end (always).",
  labelNames: ['topic'] as const,
  buckets: JOURNAL_BUCKETS,
});

export const journalWriteDuration = new Histogram({
  name: 'tlm_ingest_journal_write_seconds',
  help: "Time one group write of the standalone server's ingest journal took to reach the page cache, by topic: an ingest answer always waits for it.",
  labelNames: ['topic'] as const,
  buckets: JOURNAL_BUCKETS,
});

export const ingestAnsweredEarly = new Counter({
  name: 'tlm_ingest_answered_early_total',
  help: "Journaled ingest publishes of the standalone server answered when INGEST_COMMIT_WAIT_MS passed, by topic and by what was still under way: commit (the rows were not yet readable) or sync (readable, the journal's fdatasync not yet confirmed). Each publish counts once, in tlm_bus_publish_duration_seconds_count too.",
  labelNames: ['topic', 'pending'] as const,
});

export const busConsumerLag = new Gauge({
  name: 'tlm_bus_consumer_lag',
  help: 'Messages published but not yet processed, by topic and consumer group.',
  labelNames: ['topic', 'group'] as const,
});

export const busDeadLetters = new Counter({
  name: 'tlm_bus_dead_letters_total',
  help: 'Messages set aside on their dead-letter topic because processing them kept failing, by topic and consumer group.',
  labelNames: ['topic', 'group'] as const,
});

export const sdkDiscardedEvents = new Counter({
  name: 'tlm_sdk_discarded_events_total',
  help: 'Events that SDKs report they dropped before sending (Sentry client reports), by reason and category.',
  labelNames: ['reason', 'category'] as const,
});

export const envelopeItems = new Counter({
  name: 'tlm_envelope_items_total',
  help: 'Envelope items by type and outcome (accepted, rejected, skipped).',
  labelNames: ['type', 'outcome'] as const,
});

/** Reads the analytics store's memory when `/metrics` is scraped; set by the process that holds an embedded store. */
let storeMemorySource: (() => Promise<{ usedBytes: number; temporaryBytes: number; limitBytes: number | null }>) | undefined;

/** Names the store whose memory `/metrics` reports (the standalone server's DuckDB). */
export function reportStoreMemory(source: NonNullable<typeof storeMemorySource>): void {
  storeMemorySource = source;
}

/** Stops reporting `source` (its store is closing), unless another store has been named since. */
export function forgetStoreMemory(source: NonNullable<typeof storeMemorySource>): void {
  if (storeMemorySource === source) storeMemorySource = undefined;
}

export const analyticsStoreMemory = new Gauge({
  name: 'tlm_analytics_store_memory_bytes',
  help: "Memory the embedded analytics store (DuckDB) holds by its own account: `in_memory` its buffer cache and operators' memory, `spilled` its spill files, `limit` its configured memory_limit.",
  labelNames: ['kind'] as const,
  async collect() {
    if (!storeMemorySource) return;
    try {
      const memory = await storeMemorySource();
      this.set({ kind: 'in_memory' }, memory.usedBytes);
      this.set({ kind: 'spilled' }, memory.temporaryBytes);
      if (memory.limitBytes !== null) this.set({ kind: 'limit' }, memory.limitBytes);
    } catch {
      // A store closing during a scrape: the last figures stand.
    }
  },
});

export const promotedProperties = new Gauge({
  name: 'tlm_promoted_properties',
  help: 'Property keys kept as columns of their own that queries read, per table (docs/performance.md "Promoted properties").',
  labelNames: ['table'] as const,
});

export const memoryTrimSeconds = new Histogram({
  name: 'tlm_memory_trim_seconds',
  help: "Time each malloc_trim took to give glibc's freed memory back to the system (on a pool thread; MEMORY_TRIM_INTERVAL_MS).",
  buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
});

export const memoryBudgetBytes = new Gauge({
  name: 'tlm_memory_budget_bytes',
  help: "The process's MEMORY_LIMIT and each part's share of it (`total`, `duckdb`, `node`, `pglite`).",
  labelNames: ['part'] as const,
});
