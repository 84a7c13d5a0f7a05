import { hostname } from 'node:os';
import { TokenIssuer, startKeyAccess } from '@tlm/auth';
import { connectAnalytics, connectBus, connectMetadata, mailerFromConfig, readinessOf, runService, start } from '@tlm/runtime';
import { AlertsConfig } from './config';
import { Notifier, alertRoutes, notifierSettings, startAlertEvaluator } from './index';

start(() =>
  runService('alerts', AlertsConfig, async (config, logger) => {
    const metadata = await connectMetadata(config);
    const analytics = await connectAnalytics(config);
    const bus = await connectBus(config, 'alerts', logger);
    const access = await startKeyAccess(metadata, bus, config, logger);
    const mailer = mailerFromConfig(config);
    const notifier = new Notifier(metadata, logger, notifierSettings(config, mailer));
    const evaluator = startAlertEvaluator({ metadata, analytics, logger, instanceId: `${hostname()}-${process.pid}`, notifier }, config.ALERT_EVALUATION_INTERVAL_MS);
    return {
      routes: alertRoutes({
        metadata,
        analytics,
        logger,
        tokens: new TokenIssuer(config.JWT_SECRET),
        notifier,
        ...access,
      }),
      readiness: [readinessOf('metadata', metadata), readinessOf('analytics', analytics), readinessOf('bus', bus)],
      close: async () => {
        await evaluator.stop();
        await access.stop();
        await bus.close();
        await analytics.close();
        await metadata.close();
        mailer.close();
      },
    };
  }),
);
