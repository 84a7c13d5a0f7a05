import { existsSync } from 'node:fs';
import path from 'node:path';
import { Type } from '@sinclair/typebox';
import { nameRoute, notFound } from '@tlm/core';
import express, { Router, type Request } from 'express';

/** The repository root, whether this file runs from src or dist: relative WEB_DIST_DIR values start there. */
const REPOSITORY_ROOT = path.resolve(__dirname, '../../..');

export const webAppConfig = {
  WEB_DIST_DIR: Type.String({
    default: 'services/web/dist',
    description:
      'Directory of the built web app (index.html and assets/), served at / from the same origin as /api and /v1; a relative path starts at the repository root.',
  }),
};

/**
 * The page's rules: scripts only from this origin, no framing. Styles may be inline because the editor and the
 * charts set element styles at run time. Images, fonts and media may come from any https origin because a replay
 * rebuilds the recorded page in a frame of this one (a sandbox without scripts), and that page shows its own.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob: https:",
  "font-src 'self' data: https:",
  "media-src 'self' blob: https:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'self'",
  "form-action 'self'",
].join('; ');

/** Paths that belong to the APIs: an unknown one answers JSON 404, never the app. */
const API_PATH = /^\/(api|v1)(\/|$)/;

/** A browser navigating to a page (deep links such as /orgs/…/explore?q=…), not a script asking for JSON. */
function isPageNavigation(req: Request): boolean {
  return (req.method === 'GET' || req.method === 'HEAD') && !API_PATH.test(req.path) && req.accepts(['json', 'html']) === 'html';
}

/**
 * Serves the single-page app: its hashed assets with a year's caching, and index.html (never cached, so a new
 * build is picked up at once) for every page path. With no build present, pages answer a 404 naming the fix.
 */
export function webAppRoutes(configuredDir: string): Router {
  const router = Router();
  const distDir = path.resolve(REPOSITORY_ROOT, configuredDir);
  const indexHtml = path.join(distDir, 'index.html');
  const assets = express.static(path.join(distDir, 'assets'), { immutable: true, maxAge: '365d', index: false, fallthrough: true });
  router.use('/assets', (_req, res, next) => {
    // Counted under one name in metrics and logs, not as 'unmatched' (no Express route serves a static file).
    nameRoute(res, 'web-app:assets');
    next();
  }, assets);
  router.use((req, res, next) => {
    if (!isPageNavigation(req)) return next();
    nameRoute(res, 'web-app:page');
    if (!existsSync(indexHtml)) throw notFound(`the web app is not built in ${distDir}: run make build`);
    res.set({
      'Cache-Control': 'no-cache',
      'Content-Security-Policy': CONTENT_SECURITY_POLICY,
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'same-origin',
      'X-Frame-Options': 'DENY',
    });
    res.sendFile(indexHtml);
  });
  return router;
}
