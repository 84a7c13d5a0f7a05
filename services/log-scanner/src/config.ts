import { Type } from '@sinclair/typebox';
import { clickhouseConfig } from '@tlm/analytics-store';
import { kafkaConfig } from '@tlm/bus';
import { httpConfig } from '@tlm/core';
import { postgresConfig } from '@tlm/metadata-store';
import { logScannerConfig } from './index';

/** Fleet configuration of the log scanner (any number of instances; one pass runs at a time fleet-wide). */
export const LogScannerConfig = Type.Object({
  ...httpConfig,
  ...postgresConfig,
  ...clickhouseConfig,
  ...kafkaConfig,
  ...logScannerConfig,
});
