import { TokenIssuer, startKeyAccess } from '@tlm/auth';
import { blobStoreFromConfig } from '@tlm/blob-store';
import { connectAnalytics, connectBus, connectMetadata, readinessOf, runService, start } from '@tlm/runtime';
import { QueryConfig } from './config';
import { queryRoutes } from './index';

start(() =>
  runService('query', QueryConfig, async (config, logger) => {
    const metadata = await connectMetadata(config);
    const analytics = await connectAnalytics(config);
    const bus = await connectBus(config, 'query', logger);
    const blobs = await blobStoreFromConfig(config);
    const access = await startKeyAccess(metadata, bus, config, logger);
    return {
      routes: queryRoutes({
        metadata,
        analytics,
        ...access,
        tokens: new TokenIssuer(config.JWT_SECRET),
        logger,
        blobs,
      }),
      readiness: [readinessOf('metadata', metadata), readinessOf('analytics', analytics), readinessOf('bus', bus), readinessOf('blobs', blobs)],
      close: async () => {
        await access.stop();
        await bus.close();
        await blobs.close();
        await analytics.close();
        await metadata.close();
      },
    };
  }),
);
