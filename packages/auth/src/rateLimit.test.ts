import { EmbeddedBus } from '@tlm/bus';
import { ApiError, PLANS, createLogger } from '@tlm/core';
import type { NextFunction, Request, Response } from 'express';
import { RateLimiter, requireWithinRate } from './rateLimit';
import type { ResolvedKey } from './resolver';

const SECOND = Date.parse('2026-05-01T12:00:00.000Z');

describe('RateLimiter.take', () => {
  it('admits up to the limit within one second and refuses the rest', () => {
    const limiter = new RateLimiter(true);
    const answers = Array.from({ length: 5 }, (_, index) => limiter.take('org-1', 3, SECOND + index * 100));
    expect(answers).toEqual([true, true, true, false, false]);
  });

  it('starts counting afresh in the next second', () => {
    const limiter = new RateLimiter(true);
    expect([limiter.take('org-1', 1, SECOND + 999), limiter.take('org-1', 1, SECOND + 999)]).toEqual([true, false]);
    expect([limiter.take('org-1', 1, SECOND + 1_000), limiter.take('org-1', 1, SECOND + 1_500)]).toEqual([true, false]);
  });

  it('counts each organization on its own', () => {
    const limiter = new RateLimiter(true);
    expect(limiter.take('org-1', 1, SECOND)).toBe(true);
    expect(limiter.take('org-1', 1, SECOND)).toBe(false);
    expect(limiter.take('org-2', 1, SECOND)).toBe(true);
  });

  it('admits everything when disabled', () => {
    const limiter = new RateLimiter(false);
    expect(Array.from({ length: 100 }, () => limiter.take('org-1', 1, SECOND)).every(Boolean)).toBe(true);
  });
});

describe('RateLimiter across processes', () => {
  it("admits only what is left of the organization's limit after the other processes' reports for the same second", () => {
    const [a, b] = [new RateLimiter(true, 'a'), new RateLimiter(true, 'b')];
    expect(Array.from({ length: 6 }, () => a.take('org-1', 10, SECOND))).toEqual(Array(6).fill(true));
    b.receive(a.report(SECOND)!);
    expect(Array.from({ length: 5 }, () => b.take('org-1', 10, SECOND + 10))).toEqual([true, true, true, true, false]);
    a.receive(b.report(SECOND + 20)!);
    expect(a.take('org-1', 10, SECOND + 30)).toBe(false);
    expect(a.take('org-2', 10, SECOND + 30)).toBe(true);
  });

  it('forgets reports of an earlier second, ignores its own and an older report arriving late', () => {
    const [a, b] = [new RateLimiter(true, 'a'), new RateLimiter(true, 'b')];
    for (let i = 0; i < 3; i++) a.take('org-1', 3, SECOND);
    const early = a.report(SECOND)!;
    b.receive(early);
    expect(b.take('org-1', 3, SECOND)).toBe(false);
    expect(b.take('org-1', 3, SECOND + 1_000)).toBe(true);
    a.take('org-1', 3, SECOND + 1_000);
    b.receive(a.report(SECOND + 1_000)!);
    b.receive(early);
    expect([b.take('org-1', 3, SECOND + 1_100), b.take('org-1', 3, SECOND + 1_100)]).toEqual([true, false]);
    const own = b.report(SECOND + 1_100)!;
    b.receive(own);
    expect(b.take('org-2', 1, SECOND + 1_100)).toBe(true);
  });

  it('reports only after a change, and not a refused request', () => {
    const limiter = new RateLimiter(true, 'a');
    expect(limiter.report(SECOND)).toBeUndefined();
    limiter.take('org-1', 1, SECOND);
    limiter.take('org-1', 1, SECOND);
    expect(limiter.report(SECOND)).toEqual({ instance: 'a', second: SECOND / 1000, counts: { 'org-1': 1 } });
    expect(limiter.report(SECOND)).toBeUndefined();
  });

  it('shares counts over the bus on a timer', async () => {
    const bus = new EmbeddedBus();
    const logger = createLogger('test', 'silent');
    const [a, b] = [new RateLimiter(true, 'a'), new RateLimiter(true, 'b')];
    await a.share(bus, 10, logger);
    await b.share(bus, 10, logger);
    try {
      // Far enough from a window's end that both processes count in the same second.
      while (Date.now() % 1000 > 700) await new Promise((resolve) => setTimeout(resolve, 20));
      for (let i = 0; i < 10; i++) expect(a.take('org-1', 10)).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(b.take('org-1', 10)).toBe(false);
    } finally {
      await a.stop();
      await b.stop();
      await bus.close();
    }
  });
});

/** Holds every request in one second, so a test never straddles a window boundary. */
class OneSecondLimiter extends RateLimiter {
  override take(orgId: string, limit: number): boolean {
    return super.take(orgId, limit, SECOND + 500);
  }
}

function keyOf(orgId: string, plan: ResolvedKey['plan']): ResolvedKey {
  return {
    keyId: `key-of-${orgId}`,
    projectId: `project-of-${orgId}`,
    orgId,
    type: 'secret',
    scopes: ['*'],
    region: 'us',
    plan,
    retentionDays: PLANS[plan].retentionDays,
    allowBrowserLogs: false,
    dsnId: 1,
  };
}

/** Runs the guard the way express does; returns 'next' or the ApiError it threw. */
function guard(limiter: RateLimiter, key: ResolvedKey): 'next' | ApiError {
  const response = { locals: { apiKey: key } } as unknown as Response;
  let outcome: 'next' | ApiError | undefined;
  try {
    requireWithinRate(limiter)({} as Request, response, (() => {
      outcome = 'next';
    }) as NextFunction);
  } catch (error) {
    outcome = error as ApiError;
  }
  return outcome!;
}

describe('requireWithinRate', () => {
  it.each([
    ['free', 10],
    ['starter', 20],
    ['pro', 50],
    ['team', 100],
  ] as const)('admits %s organizations %i requests a second, then answers 429 RATE_LIMITED with Retry-After 1', (plan, perSecond) => {
    const limiter = new OneSecondLimiter(true);
    const key = keyOf(`org-${plan}`, plan);
    const outcomes = Array.from({ length: perSecond + 2 }, () => guard(limiter, key));
    expect(outcomes.slice(0, perSecond).every((outcome) => outcome === 'next')).toBe(true);
    for (const refused of outcomes.slice(perSecond)) {
      expect(refused).toBeInstanceOf(ApiError);
      const error = refused as ApiError;
      expect([error.status, error.code, error.headers]).toEqual([429, 'RATE_LIMITED', { 'Retry-After': '1' }]);
      expect(error.toBody()).toEqual({ error: { code: 'RATE_LIMITED', message: 'too many requests in a second' } });
    }
  });

  it('shares one budget across all keys and projects of an organization', () => {
    const limiter = new OneSecondLimiter(true);
    const first = keyOf('org-shared', 'free');
    const second = { ...first, keyId: 'another-key', projectId: 'another-project' };
    const outcomes = Array.from({ length: 10 }, (_, index) => guard(limiter, index % 2 === 0 ? first : second));
    expect(outcomes.every((outcome) => outcome === 'next')).toBe(true);
    expect(guard(limiter, second)).toBeInstanceOf(ApiError);
    expect(guard(limiter, keyOf('org-other', 'free'))).toBe('next');
  });

  it('lets everything through when rate limiting is off', () => {
    const limiter = new OneSecondLimiter(false);
    const key = keyOf('org-unlimited', 'free');
    expect(Array.from({ length: 50 }, () => guard(limiter, key)).every((outcome) => outcome === 'next')).toBe(true);
  });
});
