import { Type } from '@sinclair/typebox';
import { clickhouseConfig } from '@tlm/analytics-store';
import { jwtConfig, keyAccessConfig } from '@tlm/auth';
import { kafkaConfig } from '@tlm/bus';
import { httpConfig } from '@tlm/core';
import { postgresConfig } from '@tlm/metadata-store';
import { mailConfig } from '@tlm/runtime';
import { evaluatorConfig } from './evaluator';

/** Fleet configuration of the alerts service (rules, SLOs and the evaluator). */
export const AlertsConfig = Type.Object({
  ...httpConfig,
  ...postgresConfig,
  ...clickhouseConfig,
  ...kafkaConfig,
  ...keyAccessConfig,
  ...jwtConfig,
  ...evaluatorConfig,
  ...mailConfig,
});
