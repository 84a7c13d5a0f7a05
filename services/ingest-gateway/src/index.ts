import {
  regionRouting,
  requestKey,
  requireApiKey,
  requireScope,
  requireWithinRate,
  type KeyResolver,
  type RateLimiter,
  type Region,
  type RegionUrls,
} from '@tlm/auth';
import type { BlobStore } from '@tlm/blob-store';
import { Topics, type Bus, type Topic } from '@tlm/bus';
import { bodyBytes, forbidden, jsonBody } from '@tlm/core';
import type { SqlClient } from '@tlm/metadata-store';
import {
  MAX_BODY_BYTES,
  processBatch,
  toEventRecord,
  toLogRecord,
  type IngestContext,
  type ItemResult,
} from '@tlm/signals';
import { artifactRoutes, type Symbolicator } from '@tlm/sourcemaps';
import { Router, type RequestHandler } from 'express';
import { ingestCors } from './cors';
import { envelopeRoutes } from './envelope/route';
import { exportLogs, exportTraces, otlpBody } from './otlp';
import { posthogRoutes } from './posthog';
import { posthogFlagsRoutes } from './posthogFlags';
import { profileRoutes } from './profiles';
import { replayRoutes } from './replay';
import { batchItems, ingestContext, publishOutcome, withinItemSize } from './request';

export { ingestCors } from './cors';

export interface IngestGatewayDeps {
  bus: Bus;
  keys: KeyResolver;
  limiter: RateLimiter;
  /** This deployment's region and the other regions' base URLs, for keys of other regions. */
  region: Region;
  regionUrls: RegionUrls;
  /** Bodies of replay recordings and profile chunks: the filesystem in standalone, S3 in the fleet. */
  blobs: BlobStore;
  /** Holds uploaded source maps (`/v1/artifacts`). */
  metadata: SqlClient;
  /** Serves `POST /v1/symbolicate`; in standalone the same one the issues processor symbolicates with. */
  symbolicator: Symbolicator;
}

/** DECISIONS.md: a public key may send logs only when the project allows browser logs. */
const browserLogsAllowed: RequestHandler = (_req, res, next) => {
  const key = requestKey(res);
  if (key.type === 'public' && !key.allowBrowserLogs) {
    throw forbidden("CORS blocked: enable 'Allow browser logs' for this project");
  }
  next();
};

/**
 * Validates and enriches every item of a batch, publishes the valid ones and answers once the bus holds them
 * durably: 202 {accepted, rejected, errors}.
 */
function ingestBatch<R extends { projectId: string }>(
  bus: Bus,
  signal: string,
  topic: Topic,
  toRecord: (item: unknown, context: IngestContext) => ItemResult<R>,
): RequestHandler {
  return async (req, res) => {
    const items = batchItems(req.body);
    const context = ingestContext(req, requestKey(res));
    const outcome = processBatch(items, withinItemSize(bodyBytes(req), (item) => toRecord(item, context)));
    await publishOutcome(bus, signal, topic, outcome);
    res.status(202).json({ accepted: outcome.records.length, rejected: outcome.errors.length, errors: outcome.errors });
  };
}

export function ingestRoutes(deps: IngestGatewayDeps): Router {
  const router = Router();
  const writer = [
    ingestCors,
    regionRouting(deps.region, deps.regionUrls),
    requireApiKey(deps.keys),
    requireWithinRate(deps.limiter),
    requireScope('ingest:write'),
  ];
  const body = jsonBody(MAX_BODY_BYTES);

  router.options(['/v1/logs', '/v1/events'], ingestCors);
  router.post('/v1/logs', ...writer, browserLogsAllowed, body, ingestBatch(deps.bus, 'logs', Topics.logs, toLogRecord));
  router.post('/v1/events', ...writer, body, ingestBatch(deps.bus, 'events', Topics.events, toEventRecord));
  router.options(['/v1/otlp/v1/traces', '/v1/otlp/v1/logs'], ingestCors);
  // Source maps come from build tools, but browsers get the same CORS answers as on every ingest path.
  router.use(['/v1/artifacts', '/v1/symbolicate'], ingestCors);
  router.post('/v1/otlp/v1/traces', ...writer, otlpBody, exportTraces(deps.bus));
  router.post('/v1/otlp/v1/logs', ...writer, browserLogsAllowed, otlpBody, exportLogs(deps.bus));
  router.use(replayRoutes(deps, writer), profileRoutes(deps, writer), envelopeRoutes(deps), posthogRoutes(deps), posthogFlagsRoutes(deps), artifactRoutes(deps));
  return router;
}
