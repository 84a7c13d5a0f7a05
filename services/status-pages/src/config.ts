import { Type } from '@sinclair/typebox';
import { jwtConfig, rateLimitConfig } from '@tlm/auth';
import { kafkaConfig } from '@tlm/bus';
import { httpConfig } from '@tlm/core';
import { postgresConfig } from '@tlm/metadata-store';

/** Fleet configuration of the status pages service; the bus carries the rate limiter's counts between processes. */
export const StatusPagesConfig = Type.Object({ ...httpConfig, ...postgresConfig, ...kafkaConfig, ...jwtConfig, ...rateLimitConfig });
