import { KeyResolver, RateLimiter, parseRegionUrls } from '@tlm/auth';
import { connectBus, connectMetadata, readinessOf, runService, start } from '@tlm/runtime';
import { IngestGatewayConfig } from './config';
import { ingestRoutes } from './index';

start(() =>
  runService('ingest-gateway', IngestGatewayConfig, async (config, logger) => {
    const metadata = await connectMetadata(config);
    const bus = await connectBus(config, 'ingest-gateway', logger);
    const keys = new KeyResolver(metadata, {
      ttlMs: config.KEY_CACHE_TTL_MS,
      missTtlMs: config.KEY_CACHE_MISS_TTL_MS,
      lastUsedFlushMs: config.KEY_LAST_USED_FLUSH_MS,
      logger,
    });
    await keys.start(bus);
    return {
      routes: ingestRoutes({
        bus,
        keys,
        limiter: new RateLimiter(config.RATE_LIMIT_ENABLED),
        region: config.REGION,
        regionUrls: parseRegionUrls(config.REGION_URLS),
      }),
      readiness: [readinessOf('metadata', metadata), readinessOf('bus', bus)],
      close: async () => {
        await keys.stop();
        await bus.close();
        await metadata.close();
      },
    };
  }),
);
