import { TokenIssuer, parseRegionUrls, startRateLimiter } from '@tlm/auth';
import { blobStoreFromConfig } from '@tlm/blob-store';
import { connectAnalytics, connectBus, connectMetadata, mailerFromConfig, readinessOf, runService, start } from '@tlm/runtime';
import { DashboardConfig } from './config';
import { dashboardRoutes } from './index';

start(() =>
  runService('dashboard-api', DashboardConfig, async (config, logger) => {
    const metadata = await connectMetadata(config);
    const analytics = await connectAnalytics(config);
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
