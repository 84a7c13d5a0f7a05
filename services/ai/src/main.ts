import { KeyResolver, RateLimiter, TokenIssuer, parseRegionUrls } from '@tlm/auth';
import { connectAnalytics, connectBus, connectMetadata, readinessOf, runService, start } from '@tlm/runtime';
import { AiConfig } from './config';
import { aiRoutes, translatorFromConfig } from './index';

start(() =>
  runService('ai', AiConfig, async (config, logger) => {
    const metadata = await connectMetadata(config);
    const analytics = await connectAnalytics(config);
    const bus = await connectBus(config, 'ai', logger);
    const keys = KeyResolver.fromConfig(metadata, config, logger);
    await keys.start(bus);
    return {
      routes: aiRoutes({
        metadata,
        analytics,
        logger,
        keys,
        limiter: new RateLimiter(config.RATE_LIMIT_ENABLED),
        region: config.REGION,
        regionUrls: parseRegionUrls(config.REGION_URLS),
        tokens: new TokenIssuer(config.JWT_SECRET),
        translator: translatorFromConfig(config),
      }),
      readiness: [readinessOf('metadata', metadata), readinessOf('analytics', analytics), readinessOf('bus', bus)],
      close: async () => {
        await keys.stop();
        await bus.close();
        await analytics.close();
        await metadata.close();
      },
    };
  }),
);
