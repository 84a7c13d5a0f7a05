import { KeyResolver, RateLimiter, TokenIssuer, parseRegionUrls } from '@tlm/auth';
import { S3BlobStore } from '@tlm/blob-store';
import { connectAnalytics, connectBus, connectMetadata, readinessOf, runService, start } from '@tlm/runtime';
import { QueryConfig } from './config';
import { queryRoutes } from './index';

start(() =>
  runService('query', QueryConfig, async (config, logger) => {
    const metadata = await connectMetadata(config);
    const analytics = await connectAnalytics(config);
    const bus = await connectBus(config, 'query', logger);
    const blobs = await S3BlobStore.fromConfig(config);
    const keys = new KeyResolver(metadata, {
      ttlMs: config.KEY_CACHE_TTL_MS,
      missTtlMs: config.KEY_CACHE_MISS_TTL_MS,
      lastUsedFlushMs: config.KEY_LAST_USED_FLUSH_MS,
      logger,
    });
    await keys.start(bus);
    return {
      routes: queryRoutes({
        metadata,
        analytics,
        keys,
        limiter: new RateLimiter(config.RATE_LIMIT_ENABLED),
        tokens: new TokenIssuer(config.JWT_SECRET),
        logger,
        region: config.REGION,
        regionUrls: parseRegionUrls(config.REGION_URLS),
        blobs,
      }),
      readiness: [readinessOf('metadata', metadata), readinessOf('analytics', analytics), readinessOf('bus', bus), readinessOf('blobs', blobs)],
      close: async () => {
        await keys.stop();
        await bus.close();
        await blobs.close();
        await analytics.close();
        await metadata.close();
      },
    };
  }),
);
