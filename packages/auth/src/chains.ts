import type { Bus } from '@tlm/bus';
import type { Logger } from '@tlm/core';
import type { SqlClient } from '@tlm/metadata-store';
import type { RequestHandler } from 'express';
import { requireApiKey, requireScope } from './guards';
import type { Region } from './keys';
import { RateLimiter, requireWithinRate } from './rateLimit';
import { parseRegionUrls, regionRouting, type RegionUrls } from './regions';
import { KeyResolver } from './resolver';
import type { Scope } from './scopes';

/** What every `/v1` service needs to authorize a request with an API key. */
export interface KeyAccess {
  keys: KeyResolver;
  limiter: RateLimiter;
  region: Region;
  regionUrls: RegionUrls;
}

/**
 * The guards of a `/v1` route, in order: relay keys of another region, resolve the key, count the organization's
 * rate, require any of `scopes` (`*` always passes). Runs before any body parser, so relayed bodies stay untouched.
 */
export function keyGuards(access: KeyAccess, ...scopes: Scope[]): RequestHandler[] {
  return [
    regionRouting(access.region, access.regionUrls),
    requireApiKey(access.keys),
    requireWithinRate(access.limiter),
    requireScope(...scopes),
  ];
}

/**
 * Key access of a service configured by `keyCacheConfig`, `rateLimitConfig` and `regionConfig`: a resolver that
 * listens for key changes on the bus, the rate limiter, and the regions. Stop `keys` when the service closes.
 */
export async function startKeyAccess(
  store: SqlClient,
  bus: Bus,
  config: {
    KEY_CACHE_TTL_MS: number;
    KEY_CACHE_MISS_TTL_MS: number;
    KEY_LAST_USED_FLUSH_MS: number;
    RATE_LIMIT_ENABLED: boolean;
    REGION: Region;
    REGION_URLS: string;
  },
  logger: Logger,
): Promise<KeyAccess> {
  const keys = KeyResolver.fromConfig(store, config, logger);
  await keys.start(bus);
  return { keys, limiter: new RateLimiter(config.RATE_LIMIT_ENABLED), region: config.REGION, regionUrls: parseRegionUrls(config.REGION_URLS) };
}
