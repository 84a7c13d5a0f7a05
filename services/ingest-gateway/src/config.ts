import { Type } from '@sinclair/typebox';
import { keyAccessConfig } from '@tlm/auth';
import { s3Config } from '@tlm/blob-store';
import { kafkaConfig } from '@tlm/bus';
import { httpConfig } from '@tlm/core';
import { postgresConfig } from '@tlm/metadata-store';

/** Fleet configuration of the ingest gateway. */
export const IngestGatewayConfig = Type.Object({
  ...httpConfig,
  ...postgresConfig,
  ...kafkaConfig,
  ...keyAccessConfig,
  ...s3Config,
});
