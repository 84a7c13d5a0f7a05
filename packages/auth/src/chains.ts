import type { Bus } from '@tlm/bus';
import type { Logger } from '@tlm/core';
import type { SqlClient } from '@tlm/metadata-store';
import type { RequestHandler } from 'express';
import { requireApiKey, requireScope } from './guards';
import type { Region } from './keys';
import { rateLimitConfig, requireWithinRate, startRateLimiter, type RateLimiter } from './rateLimit';
import { parseRegionUrls, regionRouting, type RegionUrls } from './regions';
import { regionConfig } from './config';
import { KeyResolver, keyCacheConfig } from './resolver';
import type { Scope } from './scopes';

/** What every `/v1` service needs to authorize a request with an API key. */
export interface KeyAccess {
  keys: KeyResolver;
  limiter: RateLimiter;
  region: Region;
  regionUrls: RegionUrls;
}

/** Key access with the bus listeners and timers it started; `stop` them when the service closes. */
export interface RunningKeyAccess extends KeyAccess {
  stop(): Promise<void>;
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

/** The configuration `startKeyAccess` reads: key cache, rate limits, regions. */
export const keyAccessConfig = { ...keyCacheConfig, ...rateLimitConfig, ...regionConfig };

/**
 * Key access of a service configured by `keyAccessConfig`: a resolver that
 * listens for key changes on the bus, a rate limiter that shares its counts with the other processes on the bus,
 * and the regions.
 */
export async function startKeyAccess(
  store: SqlClient,
  bus: Bus,
  config: {
    KEY_CACHE_TTL_MS: number;
    KEY_CACHE_MISS_TTL_MS: number;
    KEY_LAST_USED_FLUSH_MS: number;
    RATE_LIMIT_ENABLED: boolean;
    RATE_LIMIT_SHARE_MS: number;
    REGION: Region;
    REGION_URLS: string;
  },
  logger: Logger,
): Promise<RunningKeyAccess> {
  const keys = KeyResolver.fromConfig(store, config, logger);
  await keys.start(bus);
  const limiter = await startRateLimiter(bus, config, logger);
  return {
    keys,
    limiter,
    region: config.REGION,
    regionUrls: parseRegionUrls(config.REGION_URLS),
    stop: async () => {
      await limiter.stop();
      await keys.stop();
    },
  };
}
