import { TokenIssuer, startKeyAccess } from '@tlm/auth';
import { blobStoreFromConfig } from '@tlm/blob-store';
import { connectAnalytics, connectBus, connectMetadata, readinessOf, runService, start } from '@tlm/runtime';
import { ExportsConfig } from './config';
import { exportRoutes, startExportRunner } from './index';

start(() =>
  runService('exports', ExportsConfig, async (config, logger) => {
    const metadata = await connectMetadata(config);
    const analytics = await connectAnalytics(config);
    const blobs = await blobStoreFromConfig(config);
    const bus = await connectBus(config, 'exports', logger);
    const access = await startKeyAccess(metadata, bus, config, logger);
    const runner = await startExportRunner({ metadata, analytics, blobs, logger, maxRows: config.EXPORT_MAX_ROWS, maxBodyBytes: config.EXPORT_MAX_BODY_BYTES }, config.EXPORT_POLL_MS);
    return {
      routes: exportRoutes({
        metadata,
        blobs,
        ...access,
        signingSecret: config.EXPORT_SIGNING_SECRET,
        tokens: new TokenIssuer(config.JWT_SECRET),
      }),
      readiness: [readinessOf('metadata', metadata), readinessOf('analytics', analytics), readinessOf('bus', bus), readinessOf('blobs', blobs)],
      close: async () => {
        await runner.stop();
        await access.stop();
        await bus.close();
        await blobs.close();
        await analytics.close();
        await metadata.close();
      },
    };
  }),
);
