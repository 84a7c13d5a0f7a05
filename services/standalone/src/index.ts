import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Static } from '@sinclair/typebox';
import { ANALYTICS_TABLES, DuckDBStore } from '@tlm/analytics-store';
import { KeyResolver, RateLimiter, TokenIssuer, parseRegionUrls } from '@tlm/auth';
import { EmbeddedBus } from '@tlm/bus';
import { createServiceApp, finishServiceApp, listen, splitList, type Logger } from '@tlm/core';
import { dashboardRoutes } from '@tlm/dashboard-api';
import { ingestRoutes } from '@tlm/ingest-gateway';
import { startIngestWriter } from '@tlm/ingest-writer';
import { keyAdminRoutes } from '@tlm/key-admin';
import { maintenanceRoutes, scheduleCleanup } from '@tlm/maintenance';
import { PGliteStore, PostgresStore, migrate, type MetadataStore } from '@tlm/metadata-store';
import { queryRoutes } from '@tlm/query';
import { readinessOf } from '@tlm/runtime';
import type { StandaloneConfig } from './config';

export { StandaloneConfig } from './config';

export interface Standalone {
  url: string;
  port: number;
  metadata: MetadataStore;
  analytics: DuckDBStore;
  /** Drains in-flight requests, stops the writer and closes the stores cleanly. */
  close(): Promise<void>;
}

/** The dashboard token secret: configured, or generated on first start and kept beside the data. */
function jwtSecret(dataDir: string, configured: string | undefined): string {
  if (configured) return configured;
  const file = path.join(dataDir, 'jwt-secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const secret = randomBytes(48).toString('base64url');
  writeFileSync(file, secret, { mode: 0o600 });
  return secret;
}

/** Composes every service in this process: the same modules the fleet runs, on embedded engines. */
export async function startStandalone(config: Static<typeof StandaloneConfig>, logger: Logger): Promise<Standalone> {
  const regionUrls = parseRegionUrls(config.REGION_URLS);
  const dataDir = path.resolve(config.DATA_DIR);
  mkdirSync(dataDir, { recursive: true });
  const metadata = config.DATABASE_URL
    ? await PostgresStore.connect(config.DATABASE_URL)
    : await PGliteStore.open(path.join(dataDir, 'metadata'));
  await migrate(metadata);
  const analytics = await DuckDBStore.open(path.join(dataDir, 'analytics.duckdb'));
  await analytics.migrate(ANALYTICS_TABLES);
  const bus = new EmbeddedBus();
  const keys = new KeyResolver(metadata, {
    ttlMs: config.KEY_CACHE_TTL_MS,
    missTtlMs: config.KEY_CACHE_MISS_TTL_MS,
    lastUsedFlushMs: config.KEY_LAST_USED_FLUSH_MS,
    logger,
  });
  await keys.start(bus);
  const writer = await startIngestWriter({ bus, analytics, metadata, logger, statsFlushMs: config.STATS_FLUSH_MS });
  const limiter = new RateLimiter(config.RATE_LIMIT_ENABLED);
  const tokens = new TokenIssuer(jwtSecret(dataDir, config.JWT_SECRET));
  const cleanup = scheduleCleanup({ metadata, analytics, bus }, config.CLEANUP_CRON, logger);

  const app = createServiceApp({
    service: 'standalone',
    logger,
    readiness: [readinessOf('metadata', metadata), readinessOf('analytics', analytics), readinessOf('bus', bus)],
    trustedProxies: splitList(config.TRUSTED_PROXIES),
  });
  app.use(
    ingestRoutes({ bus, keys, limiter, region: config.REGION, regionUrls }),
    queryRoutes({ metadata, analytics, keys, limiter, tokens, logger, region: config.REGION, regionUrls }),
    keyAdminRoutes({ metadata, bus, tokens }),
    dashboardRoutes({ metadata, analytics, bus, tokens, region: config.REGION }),
    maintenanceRoutes({ metadata, analytics, bus }, config.ADMIN_TOKEN),
  );
  finishServiceApp(app, logger);
  const server = await listen(app, config.PORT, config.HOST, config.SHUTDOWN_TIMEOUT_MS);

  return {
    url: server.url,
    port: server.port,
    metadata,
    analytics,
    close: async () => {
      await server.close();
      await cleanup.stop();
      await writer.stop();
      await keys.stop();
      await bus.close();
      await analytics.close();
      await metadata.close();
    },
  };
}
