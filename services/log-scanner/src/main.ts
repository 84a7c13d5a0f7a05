import { connectAnalytics, connectBus, connectMetadata, readinessOf, runService, start } from '@tlm/runtime';
import { LogScannerConfig } from './config';
import { startLogScanner } from './index';

start(() =>
  runService('log-scanner', LogScannerConfig, async (config, logger) => {
    const metadata = await connectMetadata(config);
    const analytics = await connectAnalytics(config);
    const bus = await connectBus(config, 'log-scanner', logger);
    const scanner = startLogScanner(
      { metadata, analytics, bus, logger },
      { intervalMs: config.LOG_SCAN_INTERVAL_MS, lookbackMs: config.LOG_SCAN_LOOKBACK_MS, maxRowsPerPass: config.LOG_SCAN_MAX_ROWS },
    );
    return {
      readiness: [readinessOf('metadata', metadata), readinessOf('analytics', analytics), readinessOf('bus', bus)],
      close: async () => {
        await scanner.stop();
        await bus.close();
        await analytics.close();
        await metadata.close();
      },
    };
  }),
);
