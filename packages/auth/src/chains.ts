import type { RequestHandler } from 'express';
import { requireApiKey, requireScope } from './guards';
import { requireWithinRate, type RateLimiter } from './rateLimit';
import { regionRouting, type RegionUrls } from './regions';
import type { Region } from './keys';
import type { KeyResolver } from './resolver';
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
