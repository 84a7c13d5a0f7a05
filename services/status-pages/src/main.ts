import { TokenIssuer } from '@tlm/auth';
import { connectMetadata, readinessOf, runService, start } from '@tlm/runtime';
import { StatusPagesConfig } from './config';
import { statusPageRoutes } from './index';

start(() =>
  runService('status-pages', StatusPagesConfig, async (config) => {
    const metadata = await connectMetadata(config);
    return {
      routes: statusPageRoutes({ metadata, tokens: new TokenIssuer(config.JWT_SECRET) }),
      readiness: [readinessOf('metadata', metadata)],
      close: () => metadata.close(),
    };
  }),
);
