/**
 * Every topic and consumer group of the platform; no other file spells a topic name.
 * A topic carries one domain record per message, keyed by project id so one project's items stay ordered.
 */
export const Topics = {
  logs: 'tlm.logs.v1',
  events: 'tlm.events.v1',
  /** Cache invalidation for API keys, projects and organizations; every gateway instance receives every message. */
  keyChanges: 'tlm.key-changes.v1',
} as const;

export type Topic = (typeof Topics)[keyof typeof Topics];

export const ConsumerGroups = {
  ingestWriter: 'tlm-ingest-writer',
  keyCache: 'tlm-key-cache',
} as const;
