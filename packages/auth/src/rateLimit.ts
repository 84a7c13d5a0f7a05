import { Type } from '@sinclair/typebox';
import { PLANS, rateLimited } from '@tlm/core';
import type { RequestHandler } from 'express';
import { requestKey } from './guards';

export const rateLimitConfig = {
  RATE_LIMIT_ENABLED: Type.Boolean({
    default: true,
    description: 'Enforce the per-plan requests-per-second limit per organization (SPEC.md Limits); off for self-hosting or benchmarks.',
  }),
};

/**
 * Fixed one-second windows per organization (DECISIONS.md: per account, over all its keys and projects). Each
 * process counts its own requests, so a fleet of N gateways admits up to N times the limit; docs/decisions.md.
 */
export class RateLimiter {
  private second = 0;
  private counts = new Map<string, number>();

  constructor(readonly enabled: boolean) {}

  /** Counts one request; false when the organization is over its limit this second. */
  take(orgId: string, limit: number, now = Date.now()): boolean {
    if (!this.enabled) return true;
    const second = Math.floor(now / 1000);
    if (second !== this.second) {
      this.second = second;
      this.counts = new Map();
    }
    const count = (this.counts.get(orgId) ?? 0) + 1;
    this.counts.set(orgId, count);
    return count <= limit;
  }
}

/**
 * After `requireApiKey`: 429 RATE_LIMITED with Retry-After once the key's organization is over its plan's rate;
 * `headers` adds protocol-specific hints (Sentry SDKs read X-Sentry-Rate-Limits).
 */
export function requireWithinRate(limiter: RateLimiter, headers: Record<string, string> = {}): RequestHandler {
  return (_req, res, next) => {
    const key = requestKey(res);
    if (!limiter.take(key.orgId, PLANS[key.plan].requestsPerSecond)) throw rateLimited(1, headers);
    next();
  };
}
