import { blobStoreFromConfig } from '@tlm/blob-store';
import { connectAnalytics, connectBus, connectMetadata, readinessOf, runService, start } from '@tlm/runtime';
import { MaintenanceConfig } from './config';
import { maintenanceRoutes, promoterOptions, scheduleCleanup, startPromoter } from './index';

start(() =>
  runService('maintenance', MaintenanceConfig, async (config, logger) => {
    const metadata = await connectMetadata(config);
    const analytics = await connectAnalytics(config);
    const blobs = await blobStoreFromConfig(config);
    const bus = await connectBus(config, 'maintenance', logger);
    const deps = { metadata, analytics, blobs, bus };
    const schedule = scheduleCleanup(deps, config.CLEANUP_CRON, logger);
    // The fleet's one maintenance instance promotes; every service's store reads the ready promotions from ClickHouse.
    const promoter = startPromoter({ metadata, analytics, logger }, promoterOptions(config));
    return {
      routes: maintenanceRoutes(deps, config.ADMIN_TOKEN),
      readiness: [readinessOf('metadata', metadata), readinessOf('analytics', analytics), readinessOf('bus', bus), readinessOf('blobs', blobs)],
      close: async () => {
        await promoter.stop();
        await schedule.stop();
        await bus.close();
        await blobs.close();
        await analytics.close();
        await metadata.close();
      },
    };
  }),
);
