import { KeyResolver, RateLimiter, parseRegionUrls } from '@tlm/auth';
import { S3BlobStore } from '@tlm/blob-store';
import { connectAnalytics, connectBus, connectMetadata, readinessOf, runService, start } from '@tlm/runtime';
import { ExportsConfig } from './config';
import { exportRoutes, startExportRunner } from './index';

start(() =>
  runService('exports', ExportsConfig, async (config, logger) => {
    const metadata = await connectMetadata(config);
    const analytics = await connectAnalytics(config);
    const blobs = await S3BlobStore.fromConfig(config);
    const bus = await connectBus(config, 'exports', logger);
    const keys = KeyResolver.fromConfig(metadata, config, logger);
    await keys.start(bus);
    const runner = await startExportRunner({ metadata, analytics, blobs, logger, maxRows: config.EXPORT_MAX_ROWS }, config.EXPORT_POLL_MS);
    return {
      routes: exportRoutes({
        metadata,
        blobs,
        keys,
        limiter: new RateLimiter(config.RATE_LIMIT_ENABLED),
        region: config.REGION,
        regionUrls: parseRegionUrls(config.REGION_URLS),
        signingSecret: config.EXPORT_SIGNING_SECRET,
      }),
      readiness: [readinessOf('metadata', metadata), readinessOf('analytics', analytics), readinessOf('bus', bus), readinessOf('blobs', blobs)],
      close: async () => {
        await runner.stop();
        await keys.stop();
        await bus.close();
        await blobs.close();
        await analytics.close();
        await metadata.close();
      },
    };
  }),
);
