import { TokenIssuer, parseRegionUrls, startRateLimiter } from '@tlm/auth';
import { blobStoreFromConfig } from '@tlm/blob-store';
import { connectAnalytics, connectBus, connectMetadata, mailerFromConfig, readinessOf, runService, start } from '@tlm/runtime';
import { ConfigError } from '@tlm/core';
import type { Static } from '@sinclair/typebox';
import { DashboardConfig } from './config';
import { RemoteAnalyticsStore } from './remoteAnalytics';
import { dashboardRoutes } from './index';

/** ClickHouse, or the analytics store of a small fleet's storage node (ANALYTICS_URL with ANALYTICS_API_TOKEN). */
function analyticsOf(config: Static<typeof DashboardConfig>) {
  const { CLICKHOUSE_URL, ANALYTICS_URL, ANALYTICS_API_TOKEN } = config;
  if (CLICKHOUSE_URL && ANALYTICS_URL) throw new ConfigError('set CLICKHOUSE_URL or ANALYTICS_URL, not both');
  if (CLICKHOUSE_URL) return connectAnalytics({ ...config, CLICKHOUSE_URL });
  if (!ANALYTICS_URL) throw new ConfigError('CLICKHOUSE_URL or ANALYTICS_URL is required');
  if (!ANALYTICS_API_TOKEN) throw new ConfigError('ANALYTICS_API_TOKEN is required with ANALYTICS_URL');
  return RemoteAnalyticsStore.connect(ANALYTICS_URL, ANALYTICS_API_TOKEN).catch((error: unknown) => {
    throw new Error(`ANALYTICS_URL: cannot use the storage node at ${ANALYTICS_URL}: ${(error as Error).message}`, { cause: error });
  });
}

start(() =>
  runService('dashboard-api', DashboardConfig, async (config, logger) => {
    const metadata = await connectMetadata(config);
    const analytics = await analyticsOf(config);
    const blobs = await blobStoreFromConfig(config);
    const bus = await connectBus(config, 'dashboard-api', logger);
    const limiter = await startRateLimiter(bus, config, logger);
    const mailer = mailerFromConfig(config);
    return {
      routes: dashboardRoutes({
        metadata,
        analytics,
        blobs,
        bus,
        tokens: new TokenIssuer(config.JWT_SECRET),
        limiter,
        region: config.REGION,
        regionUrls: parseRegionUrls(config.REGION_URLS),
        defaultPlan: config.DEFAULT_PLAN,
        passwordCost: config.PASSWORD_COST,
        billingWebhookSecret: config.BILLING_WEBHOOK_SECRET,
        mailer,
        publicUrl: config.PUBLIC_URL,
        logger,
      }),
      readiness: [readinessOf('metadata', metadata), readinessOf('analytics', analytics), readinessOf('bus', bus), readinessOf('blobs', blobs)],
      close: async () => {
        await limiter.stop();
        await bus.close();
        await blobs.close();
        await analytics.close();
        await metadata.close();
        mailer.close();
      },
    };
  }),
);
