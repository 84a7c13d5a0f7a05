import { Type } from '@sinclair/typebox';
import { clickhouseConfig } from '@tlm/analytics-store';
import { jwtConfig, passwordConfig, rateLimitConfig, regionConfig } from '@tlm/auth';
import { kafkaConfig } from '@tlm/bus';
import { PLAN_NAMES, StringEnum, httpConfig } from '@tlm/core';
import { s3Config } from '@tlm/blob-store';
import { postgresConfig } from '@tlm/metadata-store';
import { mailConfig } from '@tlm/runtime';
import { remoteAnalyticsConfig } from './remoteAnalytics';
import { billingConfig } from './routes/billing';

/** Settings of sign-up and log-in, shared by the fleet's dashboard API and the standalone server. */
export const signupConfig = {
  ...passwordConfig,
  DEFAULT_PLAN: StringEnum(PLAN_NAMES, {
    default: 'free',
    description: 'The plan of every new organization; afterwards only the operator (PUT /admin/orgs/:org/plan) changes it.',
  }),
};

/** Fleet configuration of the dashboard API; docs/configuration.md describes every variable. */
export const DashboardConfig = Type.Object({
  ...httpConfig,
  ...postgresConfig,
  ...clickhouseConfig,
  // The analytics store: ClickHouse, or a small fleet's storage node (ANALYTICS_URL); exactly one of them.
  CLICKHOUSE_URL: Type.Optional(clickhouseConfig.CLICKHOUSE_URL),
  ...remoteAnalyticsConfig,
  ...s3Config,
  ...kafkaConfig,
  ...regionConfig,
  ...jwtConfig,
  ...rateLimitConfig,
  ...signupConfig,
  ...billingConfig,
  ...mailConfig,
});
