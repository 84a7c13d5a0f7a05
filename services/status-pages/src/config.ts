import { Type } from '@sinclair/typebox';
import { jwtConfig, rateLimitConfig } from '@tlm/auth';
import { kafkaConfig } from '@tlm/bus';
import { httpConfig } from '@tlm/core';
import { postgresConfig } from '@tlm/metadata-store';

/**
 * Fleet configuration of the status pages service. Kafka is optional here: it carries the rate limiter's counts
 * between processes, and a single replica, which counts alone, needs only Postgres.
 */
export const StatusPagesConfig = Type.Object({
  ...httpConfig,
  ...postgresConfig,
  ...kafkaConfig,
  KAFKA_BROKERS: Type.Optional(
    Type.String({
      pattern: kafkaConfig.KAFKA_BROKERS.pattern,
      description:
        "Comma-separated Kafka bootstrap brokers (host:port), over which the /api rate limit's counts are shared with the fleet; unset, this process counts alone (one replica only).",
    }),
  ),
  ...jwtConfig,
  ...rateLimitConfig,
});
