import { Type } from '@sinclair/typebox';
import { aiProviderConfig } from '@tlm/ai';
import { billingConfig, remoteAnalyticsConfig, signupConfig } from '@tlm/dashboard-api';
import { evaluatorConfig } from '@tlm/alerts';
import { DEFAULT_CHECKPOINT_THRESHOLD, DEFAULT_INSERT_YIELD_MS } from '@tlm/analytics-store';
import { keyAccessConfig } from '@tlm/auth';
import { kafkaConfig } from '@tlm/bus';
import { exportsConfig } from '@tlm/exports';
import { httpConfig, StringEnum } from '@tlm/core';
import { ingestWriterConfig } from '@tlm/ingest-writer';
import { logScannerConfig } from '@tlm/log-scanner';
import { POSTGRES_URL_PATTERN } from '@tlm/metadata-store';
import { mailConfig, webAppConfig } from '@tlm/runtime';
import { maintenanceConfig, promoterConfig } from '@tlm/maintenance';
import { MEMORY_LIMIT_PATTERN } from './memory';

/** Configuration of `make start`; every variable has a default, so none is needed. */
export const StandaloneConfig = Type.Object({
  ...httpConfig,
  DATA_DIR: Type.String({ default: './data', description: 'Directory holding the metadata store, the analytics store, the blob store (replay and profile chunks) and the JWT secret.' }),
  DUCKDB_CHECKPOINT_THRESHOLD: Type.String({
    default: DEFAULT_CHECKPOINT_THRESHOLD,
    pattern: '^[0-9]+(\\.[0-9]+)?\\s*(B|KB|MB|GB|KiB|MiB|GiB)$',
    description:
      'WAL size at which the analytics store (DuckDB) checkpoints into its file. Larger is faster ingest and a longer replay after a crash (about 1.5 s for 256MB).',
  }),
  MEMORY_LIMIT: Type.Optional(
    Type.String({
      pattern: MEMORY_LIMIT_PATTERN,
      description:
        "Memory the whole process may use: a size (4GiB, 1536MB) or a share of the machine's or container's memory (40%); at least 1GiB. Default a quarter of it, at least 1GiB. Half goes to the analytics store (DuckDB's memory_limit: past it, it evicts cached blocks and spills to DATA_DIR/duckdb-spill), 35% to Node and 15% to PGlite.",
    }),
  ),
  MEMORY_TRIM_INTERVAL_MS: Type.Integer({
    minimum: 0,
    default: 5_000,
    description:
      "How often memory the C library's allocator holds freed (after DuckDB's work) is given back to the system, on a pool thread (glibc's malloc_trim; Linux with glibc only); 0 never.",
  }),
  INGEST_COMMIT_WAIT_MS: Type.Integer({
    minimum: 0,
    maximum: 60_000,
    default: 50,
    description:
      "How long an ingest request, once its items are written to the ingest journal (JOURNAL_DIR), waits for their rows to be committed and for the journal's fdatasync before it is answered anyway. The answer is durable either way (the journal's file survives a crash of the process); the wait keeps what was just sent readable at once unless the analytics store is checkpointing or its inserts are yielding to running queries (INSERT_YIELD_MS). A longer wait makes more answers come after their rows are readable (tlm_ingest_answered_early_total counts those that do not) and makes the slowest answers slower.",
  }),
  JOURNAL_SYNC: StringEnum(['bounded', 'always'], {
    default: 'bounded',
    description:
      "When an ingest answer waits for the ingest journal's fdatasync. bounded: at most INGEST_COMMIT_WAIT_MS; an answer given before the disk confirms stands on the operating system's page cache, which survives a crash of any process, and the fdatasync follows within moments. always: until the disk confirms, however long a busy disk takes (over a second while the analytics store checkpoints on the same disk), so every answer survives a crash of the machine too.",
  }),
  JOURNAL_DIR: Type.Optional(
    Type.String({
      minLength: 1,
      description:
        "Directory of the ingest journal, where accepted telemetry is written before it is answered and then flushed to disk (JOURNAL_SYNC); default DATA_DIR/journal. On a disk of its own, its fdatasyncs do not wait behind the analytics store's writes. One server's alone: never share it.",
    }),
  ),
  INSERT_YIELD_MS: Type.Integer({
    minimum: 0,
    maximum: 60_000,
    default: DEFAULT_INSERT_YIELD_MS,
    description:
      'How long a write of accepted telemetry into the analytics store waits while queries run before it starts anyway; 0 never waits. Queries (dashboards, alert rules) then have the cores to themselves, and rows become readable up to this much later under a steady query load.',
  }),
  DUCKDB_THREADS: Type.Optional(Type.Integer({ minimum: 1, maximum: 256, description: "Worker threads of the analytics store (DuckDB); default one per core." })),
  DATABASE_URL: Type.Optional(
    Type.String({ pattern: POSTGRES_URL_PATTERN, secret: true, description: 'Postgres connection string to use instead of the embedded PGlite metadata store.' }),
  ),
  JWT_SECRET: Type.Optional(
    Type.String({ minLength: 32, secret: true, description: 'Dashboard token secret; generated once and kept in DATA_DIR when unset.' }),
  ),
  BLOB_DIR: Type.Optional(
    Type.String({
      minLength: 1,
      description: 'Directory of replay, profile, attachment and export bodies; default DATA_DIR/blobs. A storage node shares it with the ingest gateways of its fleet.',
    }),
  ),
  ...kafkaConfig,
  KAFKA_BROKERS: Type.Optional(
    Type.String({
      pattern: kafkaConfig.KAFKA_BROKERS.pattern,
      description:
        "Kafka bootstrap brokers (host:port, comma-separated). Set, the server is a small fleet's storage node: it consumes the topics the fleet's ingest gateways publish to, instead of the in-process bus and its journal, and writes DuckDB; with DATABASE_URL its metadata is the fleet's Postgres.",
    }),
  ),
  // A storage node answers the analytics calls of its fleet's dashboard API with this token (docs/architecture.md).
  ANALYTICS_API_TOKEN: remoteAnalyticsConfig.ANALYTICS_API_TOKEN,
  ...ingestWriterConfig,
  ...maintenanceConfig,
  // The embedded store keeps the busiest property keys as columns of their own (ClickHouse reads its maps).
  ...promoterConfig,
  ...logScannerConfig,
  ...evaluatorConfig,
  ...exportsConfig,
  ...aiProviderConfig,
  ...keyAccessConfig,
  ...webAppConfig,
  ...signupConfig,
  ...billingConfig,
  ...mailConfig,
});
