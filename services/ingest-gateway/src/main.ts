import { KeyResolver, RateLimiter, parseRegionUrls } from '@tlm/auth';
import { S3BlobStore } from '@tlm/blob-store';
import { connectBus, connectMetadata, readinessOf, runService, start } from '@tlm/runtime';
import { Symbolicator } from '@tlm/sourcemaps';
import { IngestGatewayConfig } from './config';
import { ingestRoutes } from './index';

start(() =>
  runService('ingest-gateway', IngestGatewayConfig, async (config, logger) => {
    const metadata = await connectMetadata(config);
    const bus = await connectBus(config, 'ingest-gateway', logger);
    const blobs = await S3BlobStore.fromConfig(config);
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
        blobs,
        metadata,
        symbolicator: new Symbolicator(metadata, { logger }),
      }),
      readiness: [readinessOf('metadata', metadata), readinessOf('bus', bus), readinessOf('blobs', blobs)],
      close: async () => {
        await keys.stop();
        await bus.close();
        await blobs.close();
        await metadata.close();
      },
    };
  }),
);
