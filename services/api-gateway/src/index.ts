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
export function gatewayRoutes(targets: Record<Upstream, string>, timeoutMs: number, webDistDir?: string): Router {
  const router = Router();
  if (webDistDir) {
    const webApp = webAppRoutes(webDistDir);
    // Pages a service renders itself (public status pages) go to that service, never to the web app.
    router.use((req, res, next) => (upstreamOf(req.path, req.method) ? next() : webApp(req, res, next)));
  }
  const proxy = createProxyMiddleware<IncomingMessage, ServerResponse>({
    router: (req) => targets[upstreamOf(req.url?.split('?', 1)[0] ?? '/', req.method)!],
    target: targets['dashboard-api'],
    xfwd: true,
    proxyTimeout: timeoutMs,
    on: {
      error: (_error, _req, res) => {
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

/** The gateway is ready when every upstream answers its /healthz. */
export function upstreamReadiness(targets: Record<Upstream, string>): ReadinessCheck[] {
  return Object.entries(targets).map(([name, base]) => ({
    name,
    check: async () => {
      const response = await fetch(new URL('/healthz', base));
      if (!response.ok) throw new Error(`/healthz answered ${response.status}`);
    },
  }));
}
