import { Type } from '@sinclair/typebox';
import { clickhouseConfig } from '@tlm/analytics-store';
import { jwtConfig, keyAccessConfig } from '@tlm/auth';
import { s3Config } from '@tlm/blob-store';
import { kafkaConfig } from '@tlm/bus';
import { httpConfig } from '@tlm/core';
import { postgresConfig } from '@tlm/metadata-store';

/** Fleet configuration of the query service. */
export const QueryConfig = Type.Object({
  ...httpConfig,
  ...postgresConfig,
  ...clickhouseConfig,
  ...kafkaConfig,
  ...keyAccessConfig,
  ...jwtConfig,
  ...s3Config,
});
