import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError, nameRoute, unmatchedRoute, type ReadinessCheck } from '@tlm/core';
import { webAppRoutes } from '@tlm/runtime';
import { Router } from 'express';
import { createProxyMiddleware } from 'http-proxy-middleware';
import { upstreamOf, type Upstream } from './routes';

export { ROUTE_TABLE, upstreamOf, type Upstream } from './routes';

/**
 * Proxies each request, body untouched, to the service that owns its path; X-Forwarded-For is appended so the
 * services see the client address (they must list this gateway in TRUSTED_PROXIES). Page navigations get the web
 * app from `webDistDir`, so the browser talks to one origin for pages, /api and /v1.
 */
export function gatewayRoutes(targets: Record<Upstream, string | readonly string[]>, timeoutMs: number, webDistDir?: string): Router {
  const router = Router();
  if (webDistDir) {
    const webApp = webAppRoutes(webDistDir);
    // Pages a service renders itself (public status pages) go to that service, never to the web app.
    router.use((req, res, next) => (upstreamOf(req.path, req.method) ? next() : webApp(req, res, next)));
  }
  const instances = new UpstreamInstances(targets);
  const proxy = createProxyMiddleware<IncomingMessage, ServerResponse>({
    router: (req) => instances.pick(req, upstreamOf(req.url?.split('?', 1)[0] ?? '/', req.method)!),
    target: instances.first('dashboard-api'),
    xfwd: true,
    proxyTimeout: timeoutMs,
    on: {
      error: (error, req, res) => {
        instances.failed(req, error);
        const response = res as ServerResponse;
        if (response.headersSent) return response.end();
        const failure = new ApiError(502, 'INTERNAL_ERROR', 'upstream service unavailable');
        response.writeHead(failure.status, { 'content-type': 'application/json' });
        response.end(JSON.stringify(failure.toBody()));
      },
    },
  });
  router.use((req, res, next) => {
    const upstream = upstreamOf(req.path, req.method);
    if (!upstream) return unmatchedRoute(req, res, next);
    // Metrics and logs by the service answering: every proxied path would otherwise count as 'unmatched'.
    nameRoute(res, `upstream:${upstream}`);
    return proxy(req, res, next);
  });
  return router;
}

/** How long an instance that refused a connection is left out of the rotation. */
const REFUSED_PAUSE_MS = 2_000;

const listOf = (target: string | readonly string[]): readonly string[] => (typeof target === 'string' ? [target] : target);

/**
 * The instances of each upstream (INGEST_GATEWAY_URL may name several), taken in turn. An instance that refuses or
 * resets a connection (a process that died) is left out for REFUSED_PAUSE_MS, so the requests after the failed one go
 * to the others; the failed request itself answers 502, which clients retry.
 */
class UpstreamInstances {
  private readonly lists: Record<Upstream, readonly string[]>;
  private readonly turns = new Map<Upstream, number>();
  private readonly pausedUntil = new Map<string, number>();
  private readonly chosen = new WeakMap<IncomingMessage, string>();

  constructor(targets: Record<Upstream, string | readonly string[]>) {
    this.lists = Object.fromEntries(Object.entries(targets).map(([name, target]) => [name, listOf(target)])) as Record<Upstream, readonly string[]>;
  }

  first(upstream: Upstream): string {
    return this.lists[upstream][0]!;
  }

  pick(req: IncomingMessage, upstream: Upstream): string {
    const list = this.lists[upstream];
    const now = Date.now();
    const turn = this.turns.get(upstream) ?? 0;
    this.turns.set(upstream, turn + 1);
    let target = list[turn % list.length]!;
    for (let step = 0; step < list.length && (this.pausedUntil.get(target) ?? 0) > now; step++) target = list[(turn + step + 1) % list.length]!;
    this.chosen.set(req, target);
    return target;
  }

  failed(req: IncomingMessage, error: Error): void {
    const target = this.chosen.get(req);
    const code = (error as NodeJS.ErrnoException).code;
    if (target && (code === 'ECONNREFUSED' || code === 'ECONNRESET')) this.pausedUntil.set(target, Date.now() + REFUSED_PAUSE_MS);
  }
}

/** The gateway is ready when each upstream has an instance that answers its /healthz. */
export function upstreamReadiness(targets: Record<Upstream, string | readonly string[]>): ReadinessCheck[] {
  return Object.entries(targets).map(([name, target]) => ({
    name,
    check: async () => {
      const answers = await Promise.all(
        listOf(target).map((base) => fetch(new URL('/healthz', base)).then((response) => response.status, (error: Error) => error.message)),
      );
      if (!answers.includes(200)) throw new Error(`no instance is healthy: ${answers.map((answer) => (typeof answer === 'number' ? `/healthz answered ${answer}` : answer)).join('; ')}`);
    },
  }));
}
