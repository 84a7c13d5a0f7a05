import type { AnalyticsStore } from '@tlm/analytics-store';
import { ConsumerGroups, Topics, type Bus, type Subscription } from '@tlm/bus';
import type { Logger } from '@tlm/core';
import { recordErrors, type ErrorEnricher } from '@tlm/issues';
import type { MetadataStore } from '@tlm/metadata-store';
import type { ErrorRecord } from '@tlm/signals';

export type { ErrorEnricher } from '@tlm/issues';

export interface IssuesProcessorDeps {
  bus: Bus;
  analytics: AnalyticsStore;
  metadata: MetadataStore;
  logger: Logger;
  /** Run in order over every batch before fingerprinting (source-map symbolication plugs in here). */
  enrichers?: readonly ErrorEnricher[];
}

export interface IssuesProcessor {
  /** Finishes the batch in hand and stops consuming. */
  stop(): Promise<void>;
}

/**
 * Consumes captured errors (envelope `event` items, the log scanner): enriches, fingerprints and stores each batch
 * (packages/issues recordErrors). A batch is acknowledged once its issues are counted; a failure fails the batch,
 * so the bus delivers it again (Kafka) or the publish fails (embedded), and processed event ids make the retry
 * count nothing twice.
 */
export async function startIssuesProcessor(deps: IssuesProcessorDeps): Promise<IssuesProcessor> {
  const enrichers = deps.enrichers ?? [];
  const subscription: Subscription = await deps.bus.subscribe<ErrorRecord>(
    Topics.errors,
    { group: ConsumerGroups.issuesProcessor },
    async (records) => {
      let enriched = records;
      for (const enrich of enrichers) enriched = await enrich(enriched);
      const outcome = await recordErrors(deps, enriched);
      if (outcome.duplicates > 0) deps.logger.debug({ duplicates: outcome.duplicates }, 'skipped errors whose event id was already processed');
    },
  );
  return { stop: () => subscription.close() };
}
