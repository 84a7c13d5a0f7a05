import { hostname } from 'node:os';
import { startKeyAccess } from '@tlm/auth';
import { connectAnalytics, connectBus, connectMetadata, readinessOf, runService, start } from '@tlm/runtime';
import { AlertsConfig } from './config';
import { alertRoutes, startAlertEvaluator, webhookOptions } from './index';

start(() =>
  runService('alerts', AlertsConfig, async (config, logger) => {
    const metadata = await connectMetadata(config);
    const analytics = await connectAnalytics(config);
    const bus = await connectBus(config, 'alerts', logger);
    const access = await startKeyAccess(metadata, bus, config, logger);
    const evaluator = startAlertEvaluator(
      { metadata, analytics, logger, instanceId: `${hostname()}-${process.pid}`, webhook: webhookOptions(config) },
      config.ALERT_EVALUATION_INTERVAL_MS,
    );
    return {
      routes: alertRoutes({
        metadata,
        analytics,
        logger,
        ...access,
      }),
      readiness: [readinessOf('metadata', metadata), readinessOf('analytics', analytics), readinessOf('bus', bus)],
      close: async () => {
        await evaluator.stop();
        await access.stop();
        await bus.close();
        await analytics.close();
        await metadata.close();
      },
    };
  }),
);
