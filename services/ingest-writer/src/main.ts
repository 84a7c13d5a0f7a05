import { connectAnalytics, connectBus, connectMetadata, readinessOf, runService, start } from '@tlm/runtime';
import { IngestWriterConfig } from './config';
import { startIngestWriter } from './index';

start(() =>
  runService('ingest-writer', IngestWriterConfig, async (config, logger) => {
    const metadata = await connectMetadata(config);
    const analytics = await connectAnalytics(config);
    const bus = await connectBus(config, 'ingest-writer', logger);
    const writer = await startIngestWriter({ bus, analytics, metadata, logger, statsFlushMs: config.STATS_FLUSH_MS });
    return {
      readiness: [readinessOf('metadata', metadata), readinessOf('analytics', analytics), readinessOf('bus', bus)],
      close: async () => {
        await writer.stop();
        await bus.close();
        await analytics.close();
        await metadata.close();
      },
    };
  }),
);
