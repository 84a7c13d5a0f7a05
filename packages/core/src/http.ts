import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type ErrorRequestHandler, type Express, type Request, type RequestHandler, type Response } from 'express';
import { ConfigError } from './config';
import { ApiError, internalError, notFound, payloadTooLarge, validationError } from './errors';
import { chargeInflatedBody, countEncodedBytes } from './inflated';
import type { Logger } from './logger';
import { httpRequestDuration, httpRequests, metricsRegistry } from './metrics';

export interface ReadinessCheck {
  name: string;
  check(): Promise<void>;
}

export interface ServiceAppOptions {
  service: string;
  logger: Logger;
  readiness: ReadinessCheck[];
  trustedProxies: string[];
}

const PROBE_PATHS = new Set(['/healthz', '/readyz', '/metrics']);
const READINESS_TIMEOUT_MS = 2_000;

/**
 * The shell every service shares: request log and metrics, `/healthz`, `/readyz`, `/metrics`.
 * Mount routes on the result, then call `finishServiceApp` to add the 404 and error handlers.
 */
export function createServiceApp(options: ServiceAppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  // Answers are fresh reads, never revalidated: hashing every body for an ETag is work no client uses.
  app.set('etag', false);
  // Express resolves req.ip from X-Forwarded-For only when the socket peer is one of these (proxy-addr).
  try {
    app.set('trust proxy', options.trustedProxies.length > 0 ? options.trustedProxies : false);
  } catch (error) {
    // proxy-addr refuses what is not an address, a CIDR or a name it knows (`invalid IP address: garbage`).
    throw new ConfigError(`invalid configuration: TRUSTED_PROXIES ${(error as Error).message}`);
  }
  app.use(requestLog(options.service, options.logger));
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    const results = await Promise.all(options.readiness.map((probe) => runProbe(probe)));
    const ready = results.every((result) => result.status === 'ok');
    res.status(ready ? 200 : 503).json({ status: ready ? 'ok' : 'unavailable', checks: results });
  });
  app.get('/metrics', async (_req, res) => {
    res.type(metricsRegistry.contentType).send(await metricsRegistry.metrics());
  });
  return app;
}

async function runProbe(probe: ReadinessCheck): Promise<{ name: string; status: 'ok' | 'error'; error?: string }> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${READINESS_TIMEOUT_MS} ms`)), READINESS_TIMEOUT_MS);
  });
  try {
    await Promise.race([probe.check(), timeout]);
    return { name: probe.name, status: 'ok' };
  } catch (error) {
    return { name: probe.name, status: 'error', error: (error as Error).message };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The 404 of a path no route serves. It may be read from any origin (no credentials ride along and it holds nothing
 * but "no such route"), so a browser SDK calling a path the service lacks sees the 404 instead of a CORS error.
 */
export const unmatchedRoute: RequestHandler = (_req, res, next) => {
  res.set('Access-Control-Allow-Origin', '*');
  next(notFound('no such route'));
};

export function finishServiceApp(app: Express, logger: Logger): void {
  app.use(unmatchedRoute);
  app.use(errorHandler(logger));
}

/**
 * Names the route of a request that no Express route serves (the fleet gateway's proxy) for its log line and metrics;
 * a bounded name, never the path, which holds ids.
 */
export function nameRoute(res: Response, route: string): void {
  res.locals['route'] = route;
}

/** The route pattern a request is counted under: its Express route, a name given by `nameRoute`, or 'unmatched'. */
function routeOf(req: Request, res: Response, path: string): string {
  if (req.route) return `${req.baseUrl}${String(req.route.path)}`;
  const named: unknown = res.locals['route'];
  if (typeof named === 'string') return named;
  return PROBE_PATHS.has(path) ? path : 'unmatched';
}

/** One log line and one metric sample per request; the query string is left out so `?sentry_key=` never lands in logs. */
function requestLog(service: string, logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const path = req.originalUrl.split('?', 1)[0] ?? '';
      const route = routeOf(req, res, path);
      const labels = { service, method: req.method, route, status: String(res.statusCode) };
      httpRequests.inc(labels);
      httpRequestDuration.observe(labels, seconds);
      const line = { method: req.method, route, path, status: res.statusCode, duration_ms: Math.round(seconds * 1e4) / 10 };
      if (PROBE_PATHS.has(path)) logger.debug(line, 'request');
      else logger.info(line, 'request');
    });
    next();
  };
}

/** body-parser signals its failures through `type`; they become the spec's codes here. */
function toApiError(error: unknown): ApiError | undefined {
  if (error instanceof ApiError) return error;
  const type = (error as { type?: string } | null)?.type;
  if (type === 'entity.too.large') {
    const limit = (error as { limit?: unknown }).limit;
    return payloadTooLarge(`request body exceeds the ${typeof limit === 'number' ? byteLimitText(limit) : byteLimitText(MAX_BODY_BYTES)} limit`);
  }
  if (type === 'entity.parse.failed') return validationError('request body is not valid JSON');
  if (type === 'encoding.unsupported' || type === 'charset.unsupported')
    return validationError('unsupported content encoding or charset');
  if (type === 'request.aborted') return validationError('request aborted by the client');
  // body-parser passes on the errors of its gzip, deflate and brotli streams untyped, with a 400 and zlib's errno.
  const { status, errno, message, code } = error as { status?: number; errno?: number; message?: string; code?: unknown };
  if (type === undefined && status === 400 && typeof errno === 'number') {
    return validationError(`request body does not decompress as its Content-Encoding says: ${message}`);
  }
  // The router's decoding of a `:param` (`/v1/status/%FF`).
  if (error instanceof URIError && status === 400) return validationError('the path holds malformed percent-encoding');
  // Postgres text cannot hold NUL (a path or query parameter; bodies are repaired by jsonBody).
  if (code === '22021' || code === '22P05') return validationError('text must not contain NUL characters');
  // Recursion over a value nested thousands deep: only input can nest that far.
  if (error instanceof RangeError && message === 'Maximum call stack size exceeded') return validationError('the request nests values too deeply');
  return undefined;
}

function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error, req, res, _next) => {
    let apiError = toApiError(error);
    if (!apiError) {
      logger.error({ err: error, method: req.method, path: req.originalUrl.split('?', 1)[0] }, 'unhandled error');
      apiError = internalError();
    }
    if (res.headersSent) {
      res.end();
      return;
    }
    res.status(apiError.status).set(apiError.headers).json(apiError.toBody());
  };
}

const bodySizes = new WeakMap<object, number>();
const needsRepair = new WeakSet<object>();
/**
 * A lone UTF-16 surrogate or NUL can only reach JSON text as an escape: `\ud800`-`\udfff` or `\u0000` (raw UTF-8
 * cannot encode a surrogate, and JSON forbids raw control characters). Postgres text cannot hold NUL at all.
 */
const REPAIRED_ESCAPE = /\\u(?:[dD][89a-fA-F]|0000)/;
/** Deeper JSON than this is refused where it is repaired: the walk would exhaust the stack long before V8's parser. */
const MAX_REPAIR_DEPTH = 1_000;

/** True when JSON text may hold a lone surrogate or a NUL, so its parsed strings need `wellFormed`. */
export function mayHoldLoneSurrogate(jsonText: string): boolean {
  return jsonText.includes('\\u') && REPAIRED_ESCAPE.test(jsonText);
}

/**
 * SPEC.md Limits: a request body may be 2 MB, taken as 2 MiB (2,097,152 bytes), the size it is said in everywhere. Every JSON body may
 * be that large; DECISIONS.md answers 413 only above it, so smaller limits would contradict it.
 */
export const MAX_BODY_BYTES = 2 * 1024 * 1024;

/** A byte limit as people read it, in binary units since the limits are powers of two: 2 MiB, 64 KiB, 1,500 bytes. */
export function byteLimitText(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes.toLocaleString('en-US')} bytes`;
}

/**
 * JSON body parser for any content type (SDKs often send text/plain), gzip, deflate and brotli inflated. Lone
 * surrogates and NUL characters in strings are repaired to U+FFFD, so every stored string is valid UTF-8 and fits
 * Postgres text; only bodies that contain such an escape pay for the walk. A compressed body that inflates to more
 * JSON objects and arrays than its received bytes allow is refused before it is parsed (JsonBudget).
 */
export function jsonBody(limitBytes: number = MAX_BODY_BYTES): RequestHandler {
  const parse = express.json({
    limit: limitBytes,
    type: () => true,
    strict: false,
    verify: (req, res, buffer) => {
      chargeInflatedBody(req, res, buffer);
      bodySizes.set(req, buffer.length);
      if (buffer.includes('\\u') && mayHoldLoneSurrogate(buffer.toString('latin1'))) needsRepair.add(req);
    },
  });
  return (req, res, next) => {
    countEncodedBytes(req);
    parse(req, res, (error?: unknown) => {
      if (!error && needsRepair.has(req)) {
        try {
          req.body = wellFormed(req.body);
        } catch (repairError) {
          next(repairError);
          return;
        }
      }
      next(error);
    });
  };
}

/**
 * The body as bytes (`express.raw`, any content type), gzip, deflate and brotli inflated, up to `limitBytes`. An
 * inflated body is charged whole to the request's JSON budget (400 VALIDATION_ERROR over it, before anyone parses
 * it), unless `charge` is `parts`: then the route charges the parts it parses itself (envelopes, whose attachments
 * are never parsed).
 */
export function rawBody(limitBytes: number, charge: 'body' | 'parts' = 'body'): RequestHandler {
  const parse = express.raw({ type: () => true, limit: limitBytes, ...(charge === 'body' ? { verify: chargeInflatedBody } : {}) });
  return (req, res, next) => {
    countEncodedBytes(req);
    parse(req, res, next);
  };
}

const NUL = '\u0000';

/** The text with each NUL replaced by U+FFFD: Postgres text cannot hold NUL, nor can a JSON request name it cleanly. */
export function withoutNul(text: string): string {
  return text.includes(NUL) ? text.replaceAll(NUL, '\uFFFD') : text;
}

const repairedText = (text: string): string => withoutNul(text.toWellFormed());

/** JSON.parse of `text`, its strings repaired by `wellFormed` when the text may need it (what jsonBody does to bodies). */
export function parseRepairedJson(text: string): unknown {
  const parsed: unknown = JSON.parse(text);
  return mayHoldLoneSurrogate(text) ? wellFormed(parsed) : parsed;
}

/**
 * Replaces lone surrogates and NUL characters in every string and key of a parsed JSON value with U+FFFD. Throws 400
 * VALIDATION_ERROR for values nested deeper than MAX_REPAIR_DEPTH.
 */
export function wellFormed(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return repairedText(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_REPAIR_DEPTH) throw validationError(`JSON nested more than ${MAX_REPAIR_DEPTH} levels deep`);
  if (Array.isArray(value)) return value.map((item) => wellFormed(item, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [repairedText(key), wellFormed(item, depth + 1)]));
}

/** Bytes of the (inflated) body `jsonBody` parsed for this request; 0 when there was none. */
export function bodyBytes(req: object): number {
  return bodySizes.get(req) ?? 0;
}

export interface RunningServer {
  url: string;
  port: number;
  server: http.Server;
  /** Stops accepting connections, waits for in-flight requests up to the timeout, then drops the rest. */
  close(): Promise<void>;
}

/** While a server drains, how often connections whose last answer is out are closed. */
const DRAIN_SWEEP_MS = 50;

/**
 * Request line and headers, in bytes: a GQL query of 16,384 characters (docs/gql.md Limits) sent in a URL, as the
 * dashboard's GET routes take it, is up to 9 bytes a character once percent-encoded. Node's default of 16 KiB
 * refused such queries with a bare 431 before any route could answer.
 */
export const MAX_HEADER_BYTES = 160 * 1024;

/** How long a client may take to send its headers, and its whole request; a slow client otherwise holds a socket. */
export interface ClientTimeouts {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
}

export const DEFAULT_CLIENT_TIMEOUTS: ClientTimeouts = { headersTimeoutMs: 10_000, requestTimeoutMs: 120_000 };

export async function listen(
  app: Express,
  port: number,
  host: string,
  shutdownTimeoutMs: number,
  timeouts: ClientTimeouts = DEFAULT_CLIENT_TIMEOUTS,
): Promise<RunningServer> {
  const server = http.createServer(
    {
      maxHeaderSize: MAX_HEADER_BYTES,
      headersTimeout: timeouts.headersTimeoutMs,
      requestTimeout: timeouts.requestTimeoutMs,
      // How often both timeouts are checked: Node's 30 s default would let a trickling client stay far past them.
      connectionsCheckingInterval: Math.min(1_000, timeouts.headersTimeoutMs / 2),
    },
    app,
  );
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    // EADDRINUSE, EACCES, ENOTFOUND: named with the variables that chose the address.
    const refused = (error: Error) => reject(new Error(`cannot listen on HOST ${host}, PORT ${port}: ${error.message}`, { cause: error }));
    server.once('error', refused);
    server.listen(port, host, () => {
      server.off('error', refused);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${shownHost}:${address.port}`,
    port: address.port,
    server,
    close() {
      closing ??= new Promise<void>((resolve) => {
        // Requests still arriving on open keep-alive connections are answered with `Connection: close`, and each
        // connection is closed as soon as its answer is out: otherwise a busy client keeps a draining server taking
        // work until the timeout, which then cuts requests mid-way (stored but unanswered, so a retry doubles them).
        server.prependListener('request', (_req, res) => {
          res.shouldKeepAlive = false;
        });
        const sweep = setInterval(() => server.closeIdleConnections(), DRAIN_SWEEP_MS);
        const force = setTimeout(() => server.closeAllConnections(), shutdownTimeoutMs);
        server.close(() => {
          clearInterval(sweep);
          clearTimeout(force);
          resolve();
        });
        server.closeIdleConnections();
      });
      return closing;
    },
  };
}
