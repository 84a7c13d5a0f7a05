import { TokenIssuer, startKeyAccess } from '@tlm/auth';
import { connectAnalytics, connectBus, connectMetadata, readinessOf, runService, start } from '@tlm/runtime';
import { AiConfig } from './config';
import { aiRoutes, translatorFromConfig } from './index';

start(() =>
  runService('ai', AiConfig, async (config, logger) => {
    const metadata = await connectMetadata(config);
    const analytics = await connectAnalytics(config);
    const bus = await connectBus(config, 'ai', logger);
    const access = await startKeyAccess(metadata, bus, config, logger);
    return {
      routes: aiRoutes({
        metadata,
        analytics,
        logger,
        ...access,
        tokens: new TokenIssuer(config.JWT_SECRET),
        translator: translatorFromConfig(config, logger),
      }),
      readiness: [readinessOf('metadata', metadata), readinessOf('analytics', analytics), readinessOf('bus', bus)],
      close: async () => {
        await access.stop();
        await bus.close();
        await analytics.close();
        await metadata.close();
      },
    };
  }),
);
