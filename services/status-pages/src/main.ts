import { RateLimiter, TokenIssuer, startRateLimiter } from '@tlm/auth';
import { connectBus, connectMetadata, readinessOf, runService, start } from '@tlm/runtime';
import { StatusPagesConfig } from './config';
import { statusPageRoutes } from './index';

start(() =>
  runService('status-pages', StatusPagesConfig, async (config, logger) => {
    const metadata = await connectMetadata(config);
    const brokers = config.KAFKA_BROKERS;
    const bus = brokers ? await connectBus({ ...config, KAFKA_BROKERS: brokers }, 'status-pages', logger) : undefined;
    const limiter = bus ? await startRateLimiter(bus, config, logger) : new RateLimiter(config.RATE_LIMIT_ENABLED);
    return {
      routes: statusPageRoutes({ metadata, tokens: new TokenIssuer(config.JWT_SECRET), limiter }),
      readiness: bus ? [readinessOf('metadata', metadata), readinessOf('bus', bus)] : [readinessOf('metadata', metadata)],
      close: async () => {
        await limiter.stop();
        await bus?.close();
        await metadata.close();
      },
    };
  }),
);
