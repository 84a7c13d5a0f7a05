import { Type } from '@sinclair/typebox';
import { clickhouseConfig } from '@tlm/analytics-store';
import { kafkaConfig } from '@tlm/bus';
import { httpConfig } from '@tlm/core';
import { postgresConfig } from '@tlm/metadata-store';
import { ingestWriterConfig } from './index';

/** Fleet configuration of the ingest writer (its port serves only /healthz, /readyz and /metrics). */
export const IngestWriterConfig = Type.Object({
  ...httpConfig,
  ...postgresConfig,
  ...clickhouseConfig,
  ...kafkaConfig,
  ...ingestWriterConfig,
});
