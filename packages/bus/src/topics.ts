/**
 * Every topic and consumer group of the platform; no other file spells a topic name.
 * A topic carries one domain record per message, keyed by project id so one project's items stay ordered.
 */
export const Topics = {
  logs: 'tlm.logs.v1',
  events: 'tlm.events.v1',
  /** Captured errors (envelope `event` items, log-scanner errors), consumed by the issues processor. */
  errors: 'tlm.errors.v1',
  /** Spans from Sentry transactions and span v2 items and from OTLP. */
  spans: 'tlm.spans.v1',
  /** Web vitals. */
  vitals: 'tlm.vitals.v1',
  /** Release-health sessions (Sentry `session` and `sessions` items). */
  sessions: 'tlm.sessions.v1',
  /** Replay session metadata and recording chunk metadata (bodies live in the blob store). */
  replays: 'tlm.replays.v1',
  /** Profile chunk metadata (bodies live in the blob store). */
  profiles: 'tlm.profiles.v1',
  /** Attachment metadata (bodies live in the blob store). */
  attachments: 'tlm.attachments.v1',
  /** Each process's request counts per organization for the current second, so rate limits hold fleet-wide. */
  rateCounts: 'tlm.rate-counts.v1',
  /** Cache invalidation for API keys, projects and organizations; every gateway instance receives every message. */
  keyChanges: 'tlm.key-changes.v1',
} as const;

export type Topic = (typeof Topics)[keyof typeof Topics];

/**
 * Topics whose messages matter for seconds only (cache invalidation, rate-limit counts): Kafka keeps them a minute,
 * not the broker's default week.
 */
export const SHORT_LIVED_TOPICS: ReadonlySet<Topic> = new Set<Topic>([Topics.rateCounts, Topics.keyChanges]);

/** Topics that carry accepted telemetry: the standalone server journals them, so a 202 never waits for a slow commit. */
export const SIGNAL_TOPICS: readonly Topic[] = Object.values(Topics).filter((topic) => !SHORT_LIVED_TOPICS.has(topic));

/**
 * Where a topic's messages go that its consumers could not process (docs/architecture.md, "Dead letters"): the
 * original key, value and headers, with the error, partition, offset and consumer group as headers.
 */
export const deadLetterTopic = (topic: Topic): string => `${topic}.dead`;

export const ConsumerGroups = {
  ingestWriter: 'tlm-ingest-writer',
  issuesProcessor: 'tlm-issues-processor',
  keyCache: 'tlm-key-cache',
  rateLimit: 'tlm-rate-limit',
} as const;
