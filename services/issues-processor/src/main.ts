import { connectAnalytics, connectBus, connectMetadata, readinessOf, runService, start } from '@tlm/runtime';
import { Symbolicator } from '@tlm/sourcemaps';
import { IssuesProcessorConfig } from './config';
import { startIssuesProcessor } from './index';

start(() =>
  runService('issues-processor', IssuesProcessorConfig, async (config, logger) => {
    const metadata = await connectMetadata(config);
    const analytics = await connectAnalytics(config);
    const bus = await connectBus(config, 'issues-processor', logger);
    // Errors whose release has uploaded source maps are symbolicated before they are fingerprinted.
    const symbolicator = new Symbolicator(metadata, { logger });
    const processor = await startIssuesProcessor({ bus, analytics, metadata, logger, enrichers: [symbolicator.enrich] });
    return {
      readiness: [readinessOf('metadata', metadata), readinessOf('analytics', analytics), readinessOf('bus', bus)],
      close: async () => {
        await processor.stop();
        await bus.close();
        await analytics.close();
        await metadata.close();
      },
    };
  }),
);
