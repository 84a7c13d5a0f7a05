import { Type } from '@sinclair/typebox';
import { clickhouseConfig } from '@tlm/analytics-store';
import { jwtConfig, regionConfig } from '@tlm/auth';
import { kafkaConfig } from '@tlm/bus';
import { httpConfig } from '@tlm/core';
import { s3Config } from '@tlm/blob-store';
import { postgresConfig } from '@tlm/metadata-store';

/** Fleet configuration of the dashboard API; docs/configuration.md describes every variable. */
export const DashboardConfig = Type.Object({
  ...httpConfig,
  ...postgresConfig,
  ...clickhouseConfig,
  ...s3Config,
  ...kafkaConfig,
  ...regionConfig,
  ...jwtConfig,
});
