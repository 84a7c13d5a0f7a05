import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import type { Static } from '@sinclair/typebox';
import { ANALYTICS_TABLES, DuckDBStore, type DuckDBStoreOptions } from '@tlm/analytics-store';
import { TokenIssuer, startKeyAccess } from '@tlm/auth';
import { FileSystemBlobStore } from '@tlm/blob-store';
import { EmbeddedBus, IngestJournal, KafkaBus, SIGNAL_TOPICS, deadLetterPolicyOf, type Bus } from '@tlm/bus';
import { ConfigError, createServiceApp, finishServiceApp, listen, metrics, splitList, type Logger } from '@tlm/core';
import { aiRoutes, translatorFromConfig } from '@tlm/ai';
import { Notifier, alertRoutes, notifierSettings, startAlertEvaluator } from '@tlm/alerts';
import { dashboardRoutes, remoteAnalyticsRoutes } from '@tlm/dashboard-api';
import { exportRoutes, startExportRunner } from '@tlm/exports';
import { ingestRoutes } from '@tlm/ingest-gateway';
import { startIngestWriter } from '@tlm/ingest-writer';
import { startIssuesProcessor } from '@tlm/issues-processor';
import { keyAdminRoutes } from '@tlm/key-admin';
import { startLogScanner, type LogScanner } from '@tlm/log-scanner';
import { maintenanceRoutes, promoterOptions, scheduleCleanup, startPromoter, type Promoter } from '@tlm/maintenance';
import { PGliteStore, PostgresStore, migrate, type MetadataStore } from '@tlm/metadata-store';
import { queryRoutes } from '@tlm/query';
import { mailerFromConfig, readinessOf, webAppRoutes } from '@tlm/runtime';
import { Symbolicator } from '@tlm/sourcemaps';
import { statusPageRoutes } from '@tlm/status-pages';
import type { Express } from 'express';
import type { StandaloneConfig } from './config';
import { describeBudget, memoryBudget } from './memory';
import { startMemoryTrim } from './trim';

export { StandaloneConfig } from './config';

export interface Standalone {
  url: string;
  port: number;
  /** The HTTP application: every service's routes, as mounted. */
  app: Express;
  metadata: MetadataStore;
  analytics: DuckDBStore;
  /** Replay and profile chunk bodies, under DATA_DIR/blobs. */
  blobs: FileSystemBlobStore;
  /** Runs every LOG_SCAN_INTERVAL_MS; `runPass` runs one now. */
  logScanner: LogScanner;
  /** Promotes the busiest property keys every PROMOTE_INTERVAL_MS; `runOnce` runs a pass now. */
  promoter: Promoter;
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

/** DATA_DIR made if missing and proven writable, so a bad one fails startup by name rather than deep inside a store. */
function writableDataDir(configured: string): string {
  const dataDir = path.resolve(configured);
  try {
    mkdirSync(dataDir, { recursive: true });
    const probe = path.join(dataDir, `.write-test-${process.pid}`);
    writeFileSync(probe, '');
    rmSync(probe);
  } catch (error) {
    throw new ConfigError(`DATA_DIR ${dataDir} is not a writable directory: ${(error as Error).message}`);
  }
  return dataDir;
}

/** The analytics store under DATA_DIR; another process holding it is reported as DATA_DIR being in use. */
async function openAnalytics(dataDir: string, options: DuckDBStoreOptions): Promise<DuckDBStore> {
  try {
    return await DuckDBStore.open(path.join(dataDir, 'analytics.duckdb'), options);
  } catch (error) {
    const message = (error as Error).message;
    if (!/Could not set lock/.test(message)) throw error;
    throw new Error(`DATA_DIR ${dataDir} is in use by another process; stop it or choose another DATA_DIR (${message})`, { cause: error });
  }
}

/**
 * The in-process bus, with accepted telemetry on disk in its journal before it is answered; or, as a small fleet's
 * storage node (KAFKA_BROKERS), the fleet's Kafka.
 */
async function busOf(config: Static<typeof StandaloneConfig>, dataDir: string, logger: Logger): Promise<Bus> {
  if (config.KAFKA_BROKERS) {
    return KafkaBus.fromConfig({ ...config, KAFKA_BROKERS: config.KAFKA_BROKERS }, `storage-${hostname()}-${process.pid}`, logger);
  }
  return new EmbeddedBus({
    journal: IngestJournal.open(config.JOURNAL_DIR ? path.resolve(config.JOURNAL_DIR) : path.join(dataDir, 'journal'), SIGNAL_TOPICS),
    commitWaitMs: config.INGEST_COMMIT_WAIT_MS,
    journalSync: config.JOURNAL_SYNC,
    deadLetters: deadLetterPolicyOf(config),
    logger,
  });
}

/** Composes every service in this process: the same modules the fleet runs, on embedded engines. */
export async function startStandalone(config: Static<typeof StandaloneConfig>, logger: Logger): Promise<Standalone> {
  const dataDir = writableDataDir(config.DATA_DIR);
  // DuckDB's file lock is the DATA_DIR lock, so it is taken first: PGlite has none, and a second process opening it
  // would recover and checkpoint the running one's metadata files.
  const budget = memoryBudget(config.MEMORY_LIMIT);
  const analytics = await openAnalytics(dataDir, {
    checkpointThreshold: config.DUCKDB_CHECKPOINT_THRESHOLD,
    memoryLimitBytes: budget.duckdbBytes,
    tempDirectory: path.join(dataDir, 'duckdb-spill'),
    insertYieldMs: config.INSERT_YIELD_MS,
    ...(config.DUCKDB_THREADS === undefined ? {} : { threads: config.DUCKDB_THREADS }),
  });
  logger.info(describeBudget(budget), 'memory budget');
  metrics.memoryBudgetBytes.set({ part: 'total' }, budget.limitBytes);
  metrics.memoryBudgetBytes.set({ part: 'duckdb' }, budget.duckdbBytes);
  metrics.memoryBudgetBytes.set({ part: 'node' }, budget.nodeBytes);
  metrics.memoryBudgetBytes.set({ part: 'pglite' }, budget.pgliteBytes);
  const memoryTrim = await startMemoryTrim(config.MEMORY_TRIM_INTERVAL_MS, logger);
  const storeMemory = () => analytics.memory();
  metrics.reportStoreMemory(storeMemory);
  const metadata = config.DATABASE_URL
    ? await PostgresStore.connect(config.DATABASE_URL)
    : await PGliteStore.open(path.join(dataDir, 'metadata'));
  await migrate(metadata);
  await analytics.migrate(ANALYTICS_TABLES);
  const blobs = await FileSystemBlobStore.open(config.BLOB_DIR ?? path.join(dataDir, 'blobs'));
  const bus = await busOf(config, dataDir, logger);
  const access = await startKeyAccess(metadata, bus, config, logger);
  const writer = await startIngestWriter({ bus, analytics, metadata, logger, statsFlushMs: config.STATS_FLUSH_MS });
  // One symbolicator for uploads and ingest, so a map uploaded here is used for the next error at once.
  const symbolicator = new Symbolicator(metadata, { logger });
  const issuesProcessor = await startIssuesProcessor({ bus, analytics, metadata, logger, enrichers: [symbolicator.enrich] });
  if (bus instanceof EmbeddedBus) {
    const replayed = await bus.replayJournal();
    if (replayed > 0) logger.info({ messages: replayed }, 'stored what the ingest journal held beyond the last stop');
  }
  const logScanner = startLogScanner(
    { metadata, analytics, bus, logger },
    { intervalMs: config.LOG_SCAN_INTERVAL_MS, lookbackMs: config.LOG_SCAN_LOOKBACK_MS, maxRowsPerPass: config.LOG_SCAN_MAX_ROWS },
  );
  const secret = jwtSecret(dataDir, config.JWT_SECRET);
  const mailer = mailerFromConfig(config);
  const tokens = new TokenIssuer(secret);
  const cleanup = scheduleCleanup({ metadata, analytics, blobs, bus }, config.CLEANUP_CRON, logger);
  const promoter = startPromoter({ metadata, analytics, logger }, promoterOptions(config));
  const alertNotifier = new Notifier(metadata, logger, notifierSettings(config, mailer));
  const alertEvaluator = startAlertEvaluator({ metadata, analytics, logger, instanceId: 'standalone', notifier: alertNotifier }, config.ALERT_EVALUATION_INTERVAL_MS);
  const exportRunner = await startExportRunner({ metadata, analytics, blobs, logger, maxRows: config.EXPORT_MAX_ROWS, maxBodyBytes: config.EXPORT_MAX_BODY_BYTES }, config.EXPORT_POLL_MS);

  const app = createServiceApp({
    service: 'standalone',
    logger,
    readiness: [readinessOf('metadata', metadata), readinessOf('analytics', analytics), readinessOf('bus', bus), readinessOf('blobs', blobs)],
    trustedProxies: splitList(config.TRUSTED_PROXIES),
  });
  app.use(
    ingestRoutes({ ...access, bus, blobs, metadata, symbolicator }),
    queryRoutes({ ...access, metadata, analytics, tokens, logger, blobs }),
    // One limiter for /v1 and /api: their budgets are kept apart by key (apiBudget in @tlm/auth).
    keyAdminRoutes({ metadata, bus, tokens, limiter: access.limiter }),
    dashboardRoutes({
      metadata,
      analytics,
      blobs,
      bus,
      tokens,
      limiter: access.limiter,
      region: config.REGION,
      regionUrls: access.regionUrls,
      defaultPlan: config.DEFAULT_PLAN,
      passwordCost: config.PASSWORD_COST,
      billingWebhookSecret: config.BILLING_WEBHOOK_SECRET,
      mailer,
      publicUrl: config.PUBLIC_URL,
      logger,
    }),
    maintenanceRoutes({ metadata, analytics, blobs, bus }, config.ADMIN_TOKEN),
    remoteAnalyticsRoutes(analytics, config.ANALYTICS_API_TOKEN),
    alertRoutes({ ...access, metadata, analytics, logger, tokens, notifier: alertNotifier }),
    aiRoutes({ ...access, metadata, analytics, tokens, logger, translator: translatorFromConfig(config, logger) }),
    statusPageRoutes({ metadata, tokens, limiter: access.limiter }),
    // Export links are signed with a key derived from the dashboard secret, so standalone needs no extra one.
    exportRoutes({ ...access, metadata, blobs, tokens, signingSecret: createHash('sha256').update(`tlm-export-links:${secret}`).digest('hex') }),
    // Last: the web app answers page navigations no API route took, from the same origin as /api and /v1.
    webAppRoutes(config.WEB_DIST_DIR),
  );
  finishServiceApp(app, logger);
  const server = await listen(app, config.PORT, config.HOST, config.SHUTDOWN_TIMEOUT_MS, {
    headersTimeoutMs: config.HEADERS_TIMEOUT_MS,
    requestTimeoutMs: config.REQUEST_TIMEOUT_MS,
  });

  return {
    url: server.url,
    port: server.port,
    app,
    metadata,
    analytics,
    blobs,
    logScanner,
    promoter,
    close: async () => {
      await server.close();
      await cleanup.stop();
      memoryTrim.stop();
      await promoter.stop();
      await alertEvaluator.stop();
      await exportRunner.stop();
      await logScanner.stop();
      await writer.stop();
      await issuesProcessor.stop();
      await access.stop();
      await bus.close();
      metrics.forgetStoreMemory(storeMemory);
      await analytics.close();
      await blobs.close();
      await metadata.close();
      mailer.close();
    },
  };
}
