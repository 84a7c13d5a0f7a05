import { hostname } from 'node:os';
import { KeyResolver, RateLimiter, parseRegionUrls } from '@tlm/auth';
import { connectAnalytics, connectBus, connectMetadata, readinessOf, runService, start } from '@tlm/runtime';
import { AlertsConfig } from './config';
import { alertRoutes, startAlertEvaluator } from './index';

start(() =>
  runService('alerts', AlertsConfig, async (config, logger) => {
    const metadata = await connectMetadata(config);
    const analytics = await connectAnalytics(config);
    const bus = await connectBus(config, 'alerts', logger);
    const keys = KeyResolver.fromConfig(metadata, config, logger);
    await keys.start(bus);
    const evaluator = startAlertEvaluator(
      { metadata, analytics, logger, instanceId: `${hostname()}-${process.pid}`, webhookTimeoutMs: config.WEBHOOK_TIMEOUT_MS },
      config.ALERT_EVALUATION_INTERVAL_MS,
    );
    return {
      routes: alertRoutes({
        metadata,
        analytics,
        logger,
        keys,
        limiter: new RateLimiter(config.RATE_LIMIT_ENABLED),
        region: config.REGION,
        regionUrls: parseRegionUrls(config.REGION_URLS),
      }),
      readiness: [readinessOf('metadata', metadata), readinessOf('analytics', analytics), readinessOf('bus', bus)],
      close: async () => {
        await evaluator.stop();
        await keys.stop();
        await bus.close();
        await analytics.close();
        await metadata.close();
      },
    };
  }),
);
