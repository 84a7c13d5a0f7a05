import { TokenIssuer, startRateLimiter } from '@tlm/auth';
import { connectBus, connectMetadata, readinessOf, runService, start } from '@tlm/runtime';
import { KeyAdminConfig } from './config';
import { keyAdminRoutes } from './index';

start(() =>
  runService('key-admin', KeyAdminConfig, async (config, logger) => {
    const metadata = await connectMetadata(config);
    const bus = await connectBus(config, 'key-admin', logger);
    const limiter = await startRateLimiter(bus, config, logger);
    return {
      routes: keyAdminRoutes({ metadata, bus, tokens: new TokenIssuer(config.JWT_SECRET), limiter }),
      readiness: [readinessOf('metadata', metadata), readinessOf('bus', bus)],
      close: async () => {
        await limiter.stop();
        await bus.close();
        await metadata.close();
      },
    };
  }),
);
