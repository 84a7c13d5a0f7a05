import { Type } from '@sinclair/typebox';
import { clickhouseConfig } from '@tlm/analytics-store';
import { kafkaConfig } from '@tlm/bus';
import { httpConfig } from '@tlm/core';
import { s3Config } from '@tlm/blob-store';
import { postgresConfig } from '@tlm/metadata-store';
import { maintenanceConfig, promoterConfig } from './index';

/** Fleet configuration of the maintenance service (run one instance). */
export const MaintenanceConfig = Type.Object({
  ...httpConfig,
  ...postgresConfig,
  ...clickhouseConfig,
  ...s3Config,
  ...kafkaConfig,
  ...maintenanceConfig,
  ...promoterConfig,
});
