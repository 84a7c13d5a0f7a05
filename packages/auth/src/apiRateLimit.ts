import { rateLimited } from '@tlm/core';
import type { RequestHandler } from 'express';
import type { RateLimiter } from './rateLimit';

/**
 * The dashboard API's budgets (DECISIONS.md "Plans, limits, lifecycle": `/api` has a per-account budget of its own).
 * They live in the same fleet-shared `RateLimiter` as ingest under keys of their own: ingest counts bare organization
 * ids, these are prefixed, so SDK traffic never spends the web app's budget nor the web app ingest's. docs/api.md.
 */
export const apiBudget = {
  /** Routes under `/api/orgs/:org`: every member's requests together, at the plan's `apiRequestsPerSecond`. */
  organization: (orgId: string) => `api:org:${orgId}`,
  /** Signed-in routes of no organization (`/api/auth/me`, `/api/orgs`, account deletion). */
  user: (userId: string) => `api:user:${userId}`,
  /** Routes before an account (sign-up, log-in, restore, log-out), by client address (`req.ip`, after TRUSTED_PROXIES). */
  address: (address: string) => `api:addr:${address}`,
};

/** Per signed-in person on routes of no organization: the web app asks `/api/auth/me` once a minute and `/api/orgs` on navigation. */
export const API_USER_REQUESTS_PER_SECOND = 10;
/** Per client address before an account: a person logs in once; an office behind one address rarely logs in twice a second. */
export const API_ADDRESS_REQUESTS_PER_SECOND = 10;

/** Counts one `/api` request against `budget`; over `limit` this second it is 429 RATE_LIMITED with Retry-After: 1, and not counted. */
export function takeApiBudget(limiter: RateLimiter, budget: string, limit: number): void {
  if (!limiter.take(budget, limit)) throw rateLimited(1, {}, `too many dashboard API requests in a second (limit ${limit})`);
}

/** The guard of `/api` routes before an account: the client address's budget, checked before the body is read. */
export function requireAddressWithinRate(limiter: RateLimiter): RequestHandler {
  return (req, _res, next) => {
    takeApiBudget(limiter, apiBudget.address(req.ip ?? ''), API_ADDRESS_REQUESTS_PER_SECOND);
    next();
  };
}
