import { Type } from '@sinclair/typebox';
import { jwtConfig, rateLimitConfig } from '@tlm/auth';
import { kafkaConfig } from '@tlm/bus';
import { httpConfig } from '@tlm/core';
import { postgresConfig } from '@tlm/metadata-store';

/** Fleet configuration of the key administration service. */
export const KeyAdminConfig = Type.Object({ ...httpConfig, ...postgresConfig, ...kafkaConfig, ...jwtConfig, ...rateLimitConfig });
