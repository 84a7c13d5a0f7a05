import { TokenIssuer, startRateLimiter } from '@tlm/auth';
import { connectBus, connectMetadata, readinessOf, runService, start } from '@tlm/runtime';
import { StatusPagesConfig } from './config';
import { statusPageRoutes } from './index';

start(() =>
  runService('status-pages', StatusPagesConfig, async (config, logger) => {
    const metadata = await connectMetadata(config);
    const bus = await connectBus(config, 'status-pages', logger);
    const limiter = await startRateLimiter(bus, config, logger);
    return {
      routes: statusPageRoutes({ metadata, tokens: new TokenIssuer(config.JWT_SECRET), limiter }),
      readiness: [readinessOf('metadata', metadata), readinessOf('bus', bus)],
      close: async () => {
        await limiter.stop();
        await bus.close();
        await metadata.close();
      },
    };
  }),
);
