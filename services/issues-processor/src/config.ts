import { Type } from '@sinclair/typebox';
import { clickhouseConfig } from '@tlm/analytics-store';
import { kafkaConfig } from '@tlm/bus';
import { httpConfig } from '@tlm/core';
import { postgresConfig } from '@tlm/metadata-store';

/** Fleet configuration of the issues processor (its port serves only /healthz, /readyz and /metrics). */
export const IssuesProcessorConfig = Type.Object({
  ...httpConfig,
  ...postgresConfig,
  ...clickhouseConfig,
  ...kafkaConfig,
});
