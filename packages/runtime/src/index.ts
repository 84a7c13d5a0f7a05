import { hostname } from 'node:os';
import { ANALYTICS_TABLES, ClickHouseStore, type AnalyticsStore } from '@tlm/analytics-store';
import { KafkaBus, type Bus } from '@tlm/bus';
import {
  createLogger,
  createServiceApp,
  exitOnSignals,
  finishServiceApp,
  listen,
  loadConfig,
  metrics,
  splitList,
  type Logger,
  type ReadinessCheck,
} from '@tlm/core';
import { PostgresStore, migrate, type MetadataStore } from '@tlm/metadata-store';
import type { Static, TObject } from '@sinclair/typebox';
import type { Router } from 'express';

/** Where a connection string points, without its credentials, for startup errors. */
function hostOf(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.host}${parsed.pathname === '/' ? '' : parsed.pathname}`;
  } catch {
    return 'the configured address';
  }
}

/** A dependency that fails at startup is named with the variable that points at it. */
async function naming<T>(variable: string, what: string, connect: () => Promise<T>): Promise<T> {
  try {
    return await connect();
  } catch (error) {
    throw new Error(`${variable}: cannot use ${what}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

export function connectMetadata(config: { DATABASE_URL: string; DATABASE_POOL_SIZE: number }): Promise<MetadataStore> {
  return naming('DATABASE_URL', `Postgres at ${hostOf(config.DATABASE_URL)}`, async () => {
    const store = await PostgresStore.connect(config.DATABASE_URL, config.DATABASE_POOL_SIZE);
    await migrate(store);
    return store;
  });
}

export function connectAnalytics(config: Parameters<typeof ClickHouseStore.fromConfig>[0]): Promise<AnalyticsStore> {
  return naming('CLICKHOUSE_URL', `ClickHouse at ${hostOf(config.CLICKHOUSE_URL)}`, async () => {
    const store = await ClickHouseStore.fromConfig(config);
    await store.migrate(ANALYTICS_TABLES);
    return store;
  });
}

export function connectBus(config: Parameters<typeof KafkaBus.fromConfig>[0], service: string, logger: Logger): Promise<Bus> {
  return naming('KAFKA_BROKERS', `Kafka at ${config.KAFKA_BROKERS}`, () =>
    KafkaBus.fromConfig(config, `${service}-${hostname()}-${process.pid}`, logger),
  );
}

/** What a fleet service is made of once its adapters are connected. */
export interface ServiceParts {
  routes?: Router;
  readiness: ReadinessCheck[];
  /** Stops consumers and closes adapters; runs after in-flight requests have drained. */
  close(): Promise<void>;
}

export interface BaseServiceConfig {
  PORT: number;
  HOST: string;
  TRUSTED_PROXIES: string;
  LOG_LEVEL: string;
  SHUTDOWN_TIMEOUT_MS: number;
  HEADERS_TIMEOUT_MS: number;
  REQUEST_TIMEOUT_MS: number;
}

/**
 * Fleet entry point: reads the service's configuration (failing with the bad variable's name), builds it,
 * serves `/healthz`, `/readyz`, `/metrics` and its routes, and drains on SIGTERM/SIGINT.
 */
export async function runService<S extends TObject>(
  service: string,
  schema: S,
  build: (config: Static<S> & BaseServiceConfig, logger: Logger) => Promise<ServiceParts>,
): Promise<void> {
  const config = loadConfig(schema) as Static<S> & BaseServiceConfig;
  const logger = createLogger(service, config.LOG_LEVEL);
  const parts = await build(config, logger);
  const app = createServiceApp({ service, logger, readiness: parts.readiness, trustedProxies: splitList(config.TRUSTED_PROXIES) });
  if (parts.routes) app.use(parts.routes);
  finishServiceApp(app, logger);
  const server = await listen(app, config.PORT, config.HOST, config.SHUTDOWN_TIMEOUT_MS, {
    headersTimeoutMs: config.HEADERS_TIMEOUT_MS,
    requestTimeoutMs: config.REQUEST_TIMEOUT_MS,
  });
  logger.info({ url: server.url }, `${service} listening`);
  exitOnSignals(logger, async () => {
    await server.close();
    await parts.close();
  });
}

/** Runs `main` with the process metrics collected, and exits non-zero with the reason when startup fails. */
export function start(main: () => Promise<void>): void {
  metrics.collectProcessMetrics();
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}

export function readinessOf(name: string, target: { ping(): Promise<void> }): ReadinessCheck {
  return { name, check: () => target.ping() };
}
export { webAppConfig, webAppRoutes } from './webApp';
export { mailConfig, mailerFromConfig, MailNotConfigured, type Mail, type Mailer, type MailSettings, type SentMail } from './mail';
