import { startKeyAccess } from '@tlm/auth';
import { blobStoreFromConfig } from '@tlm/blob-store';
import { connectBus, connectMetadata, readinessOf, runService, start } from '@tlm/runtime';
import { Symbolicator } from '@tlm/sourcemaps';
import { IngestGatewayConfig } from './config';
import { ingestRoutes } from './index';

start(() =>
  runService('ingest-gateway', IngestGatewayConfig, async (config, logger) => {
    const metadata = await connectMetadata(config);
    const bus = await connectBus(config, 'ingest-gateway', logger);
    const blobs = await blobStoreFromConfig(config);
    const access = await startKeyAccess(metadata, bus, config, logger);
    return {
      routes: ingestRoutes({
        ...access,
        bus,
        blobs,
        metadata,
        symbolicator: new Symbolicator(metadata, { logger }),
      }),
      readiness: [readinessOf('metadata', metadata), readinessOf('bus', bus), readinessOf('blobs', blobs)],
      close: async () => {
        await access.stop();
        await bus.close();
        await blobs.close();
        await metadata.close();
      },
    };
  }),
);
