import { randomUUID } from 'node:crypto';
import { requireScope, requireWithinRate } from '@tlm/auth';
import { unauthorized, validationError } from '@tlm/core';
import { Router, type Request, type RequestHandler } from 'express';
import { ingestCors } from './cors';
import { posthogBody, posthogPayload, resolvePosthogKey, type PosthogDeps } from './posthog';

/**
 * What posthog-js and posthog-node ask besides capture: feature flags (`POST /flags/?v=2`, older SDKs
 * `POST /decide/?v=3|4`) and the project's remote config (`GET /array/<key>/config` as JSON, `…/config.js` as a script).
 * The service has no feature flags, so every answer holds none; the config turns off what it does not store
 * (session recording through PostHog, heatmaps, surveys), so the SDK asks for nothing else.
 */
export const POSTHOG_FLAGS_PATHS = ['/flags', '/decide'];
export const POSTHOG_CONFIG_PATHS = ['/array/:key/config', '/array/:key/config.js'];

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/**
 * PostHog's remote config with everything the service does not take turned off; events go to `/i/v0/e/`. `surveys` is
 * left out: even `false` makes posthog-js fetch its surveys script from `/static/`, which the service does not serve.
 */
export function remoteConfig(token: string): Json {
  return {
    token,
    supportedCompression: ['gzip', 'gzip-js'],
    hasFeatureFlags: false,
    captureDeadClicks: false,
    capturePerformance: false,
    autocapture_opt_out: false,
    autocaptureExceptions: false,
    analytics: { endpoint: '/i/v0/e/' },
    elementsChainAsString: true,
    errorTracking: { autocaptureExceptions: false, suppressionRules: [] },
    sessionRecording: false,
    heatmaps: false,
    defaultIdentifiedOnly: true,
    siteApps: [],
  };
}

/** The script posthog-js loads as `config.js`: it leaves the same config where the SDK looks for it. `<` is escaped so no value ends the script. */
export function remoteConfigScript(token: string): string {
  const json = (value: unknown) => JSON.stringify(value).replaceAll('<', '\\u003c');
  return [
    '(function () {',
    '  window._POSTHOG_REMOTE_CONFIG = window._POSTHOG_REMOTE_CONFIG || {};',
    `  window._POSTHOG_REMOTE_CONFIG[${json(token)}] = { config: ${json(remoteConfig(token))}, siteApps: [] };`,
    '})();',
    '',
  ].join('\n');
}

const version = (req: Request): number => {
  const v = Number(req.query['v']);
  return Number.isFinite(v) ? v : 1;
};

/**
 * An empty flags answer in the shape the request asks for, as PostHog's flags service answers: `/flags?v=2` and
 * `/decide?v=4` get `flags` (flag details by key); `/flags` v1 and `/decide` v3 and older get `featureFlags` and
 * `featureFlagPayloads`. `/decide` and `?config=true` carry the remote config beside them.
 */
export function flagsAnswer(req: Request, token: string): Json {
  const decide = req.path.startsWith('/decide');
  const detailed = decide ? version(req) >= 4 : version(req) >= 2;
  const flags = detailed ? { flags: {} } : { featureFlags: {}, featureFlagPayloads: {} };
  const withConfig = decide || req.query['config'] === 'true';
  return {
    ...(withConfig ? remoteConfig(token) : {}),
    ...flags,
    errorsWhileComputingFlags: false,
    requestId: randomUUID(),
    evaluatedAt: Date.now(),
  };
}

/** The key of a flags request: `api_key` or `token` on the body (posthog-js sends `token`, posthog-node `api_key`). */
function flagsAuth(deps: PosthogDeps): RequestHandler {
  return async (req, res, next) => {
    const { payload } = posthogPayload(req);
    if (!isObject(payload)) throw validationError('a flags request body must be a JSON object');
    const key = text(payload['api_key']) ?? text(payload['token']);
    if (!key) throw unauthorized('missing key: send the project key as "token" or "api_key" in the body');
    res.locals['posthogToken'] = key;
    if (await resolvePosthogKey(deps, req, res, key)) next();
  };
}

/** The key of a remote-config request: the `<key>` of the path. */
function configAuth(deps: PosthogDeps): RequestHandler {
  return async (req, res, next) => {
    const key = String(req.params['key']);
    res.locals['posthogToken'] = key;
    if (await resolvePosthogKey(deps, req, res, key)) next();
  };
}

export function posthogFlagsRoutes(deps: PosthogDeps): Router {
  const router = Router();
  const checked = [requireWithinRate(deps.limiter), requireScope('ingest:write')];
  router.options([...POSTHOG_FLAGS_PATHS, ...POSTHOG_CONFIG_PATHS], ingestCors);
  router.post(POSTHOG_FLAGS_PATHS, ingestCors, posthogBody, flagsAuth(deps), ...checked, (req, res) => {
    res.status(200).json(flagsAnswer(req, res.locals['posthogToken'] as string));
  });
  router.get('/array/:key/config.js', ingestCors, configAuth(deps), ...checked, (_req, res) => {
    res.status(200).type('application/javascript').send(remoteConfigScript(res.locals['posthogToken'] as string));
  });
  router.get('/array/:key/config', ingestCors, configAuth(deps), ...checked, (_req, res) => {
    res.status(200).json(remoteConfig(res.locals['posthogToken'] as string));
  });
  return router;
}
