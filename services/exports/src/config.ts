import { Type } from '@sinclair/typebox';
import { clickhouseConfig } from '@tlm/analytics-store';
import { jwtConfig, keyAccessConfig } from '@tlm/auth';
import { kafkaConfig } from '@tlm/bus';
import { httpConfig } from '@tlm/core';
import { s3Config } from '@tlm/blob-store';
import { postgresConfig } from '@tlm/metadata-store';
import { exportsConfig } from './runner';

/** Fleet configuration of the exports service (jobs, runner and downloads; files live in the S3 blob store). */
export const ExportsConfig = Type.Object({
  ...httpConfig,
  ...postgresConfig,
  ...clickhouseConfig,
  ...kafkaConfig,
  ...keyAccessConfig,
  ...jwtConfig,
  ...s3Config,
  ...exportsConfig,
  EXPORT_SIGNING_SECRET: Type.String({ minLength: 32, secret: true, description: 'Signs export download links; the same on every exports instance.' }),
});
