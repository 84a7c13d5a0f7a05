import { ApiError, PLANS } from '@tlm/core';
import type { NextFunction, Request, Response } from 'express';
import { API_ADDRESS_REQUESTS_PER_SECOND, apiBudget, requireAddressWithinRate } from './apiRateLimit';
import { RateLimiter } from './rateLimit';

const SECOND = Date.parse('2026-05-01T12:00:00.000Z');
const ORG = '0b7c4f52-2f4e-4b55-9b0e-3f1d6a8e2c11';

describe('/api budgets in the fleet-shared limiter', () => {
  it("shares an organization's /api count across processes without touching its ingest count", () => {
    const [a, b] = [new RateLimiter(true, 'a'), new RateLimiter(true, 'b')];
    const { apiRequestsPerSecond, requestsPerSecond } = PLANS.free;
    for (let i = 0; i < apiRequestsPerSecond; i++) expect(a.take(apiBudget.organization(ORG), apiRequestsPerSecond, SECOND)).toBe(true);
    b.receive(a.report(SECOND)!);
    expect(b.take(apiBudget.organization(ORG), apiRequestsPerSecond, SECOND + 10)).toBe(false);
    // Ingest counts the bare organization id: the web app's requests left all of it.
    expect(Array.from({ length: requestsPerSecond + 1 }, () => b.take(ORG, requestsPerSecond, SECOND + 10))).toEqual([
      ...Array(requestsPerSecond).fill(true),
      false,
    ]);
    a.receive(b.report(SECOND + 20)!);
    expect(a.take(apiBudget.organization(ORG), apiRequestsPerSecond, SECOND + 30)).toBe(false);
  });

  it('names organizations, people and addresses apart, so none spends another budget', () => {
    const keys = [ORG, apiBudget.organization(ORG), apiBudget.user(ORG), apiBudget.address(ORG)];
    expect(new Set(keys).size).toBe(keys.length);
  });
});

describe('requireAddressWithinRate', () => {
  function guard(limiter: RateLimiter, ip: string): 'next' | ApiError {
    try {
      let outcome: 'next' | undefined;
      requireAddressWithinRate(limiter)({ ip } as Request, {} as Response, (() => (outcome = 'next')) as NextFunction);
      return outcome!;
    } catch (error) {
      return error as ApiError;
    }
  }

  it('answers the address over its budget with 429 RATE_LIMITED and Retry-After: 1, and leaves other addresses alone', () => {
    const limiter = new RateLimiter(true);
    const answers = Array.from({ length: API_ADDRESS_REQUESTS_PER_SECOND }, () => guard(limiter, '203.0.113.7'));
    expect(answers).toEqual(Array(API_ADDRESS_REQUESTS_PER_SECOND).fill('next'));
    const refused = guard(limiter, '203.0.113.7') as ApiError;
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused.status).toBe(429);
    expect(refused.code).toBe('RATE_LIMITED');
    expect(refused.headers).toEqual({ 'Retry-After': '1' });
    expect(guard(limiter, '203.0.113.8')).toBe('next');
  });

  it('admits everything when RATE_LIMIT_ENABLED is false', () => {
    const limiter = new RateLimiter(false);
    expect(Array.from({ length: 100 }, () => guard(limiter, '203.0.113.7')).every((answer) => answer === 'next')).toBe(true);
  });
});
