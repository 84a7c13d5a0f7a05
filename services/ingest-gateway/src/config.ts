import { Type } from '@sinclair/typebox';
import { keyCacheConfig, rateLimitConfig, regionConfig } from '@tlm/auth';
import { s3Config } from '@tlm/blob-store';
import { kafkaConfig } from '@tlm/bus';
import { httpConfig } from '@tlm/core';
import { postgresConfig } from '@tlm/metadata-store';

/** Fleet configuration of the ingest gateway. */
export const IngestGatewayConfig = Type.Object({
  ...httpConfig,
  ...postgresConfig,
  ...kafkaConfig,
  ...keyCacheConfig,
  ...rateLimitConfig,
  ...regionConfig,
  ...s3Config,
});
