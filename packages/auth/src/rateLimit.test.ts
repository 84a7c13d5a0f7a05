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

  it("counts a peer's previous second until it reports on this one, and forgets it a second later", () => {
    const [a, b] = [new RateLimiter(true, 'a'), new RateLimiter(true, 'b')];
    for (let i = 0; i < 8; i++) a.take('org-1', 10, SECOND);
    b.receive(a.report(SECOND)!);
    // The next second: a has not reported yet, so its 8 of the last second stand in for it.
    expect(Array.from({ length: 3 }, () => b.take('org-1', 10, SECOND + 1_000))).toEqual([true, true, false]);
    a.take('org-1', 10, SECOND + 1_000);
    b.receive(a.report(SECOND + 1_050)!);
    expect(Array.from({ length: 8 }, () => b.take('org-1', 10, SECOND + 1_100))).toEqual([...Array(7).fill(true), false]);
    // Two seconds on, a's reports are too old to count.
    expect(Array.from({ length: 10 }, () => b.take('org-1', 10, SECOND + 3_000)).every(Boolean)).toBe(true);
  });

  it('reports only the organizations admitted since the last report, with their totals, and merges partial reports', () => {
    const [a, b] = [new RateLimiter(true, 'a'), new RateLimiter(true, 'b')];
    expect(a.report(SECOND)).toBeUndefined();
    a.take('org-1', 5, SECOND);
    a.take('org-2', 5, SECOND);
    const first = a.report(SECOND)!;
    expect(first).toEqual({ instance: 'a', second: SECOND / 1000, counts: { 'org-1': 1, 'org-2': 1 } });
    a.take('org-1', 5, SECOND + 100);
    const second = a.report(SECOND + 100)!;
    expect(second.counts).toEqual({ 'org-1': 2 });
    b.receive(second);
    b.receive(first);
    expect([b.take('org-1', 5, SECOND + 200), b.take('org-1', 5, SECOND + 200), b.take('org-1', 5, SECOND + 200), b.take('org-1', 5, SECOND + 200)]).toEqual([true, true, true, false]);
    expect([b.take('org-2', 2, SECOND + 200), b.take('org-2', 2, SECOND + 200)]).toEqual([true, false]);
  });

  it('ignores its own reports and a report of an older second arriving late; does not count a refused request', () => {
    const [a, b] = [new RateLimiter(true, 'a'), new RateLimiter(true, 'b')];
    a.take('org-1', 1, SECOND + 1_000);
    const current = a.report(SECOND + 1_000)!;
    b.receive(current);
    b.receive({ instance: 'a', second: SECOND / 1000, counts: { 'org-1': 1, 'org-2': 1 } });
    expect(b.take('org-2', 1, SECOND + 1_000)).toBe(true);
    expect(b.take('org-1', 1, SECOND + 1_000)).toBe(false);
    b.receive(b.report(SECOND + 1_000)!);
    expect(b.report(SECOND + 1_000)).toBeUndefined();
  });

  it('puts the organizations of a report that could not be sent into the next one', () => {
    const limiter = new RateLimiter(true, 'a');
    limiter.take('org-1', 5, SECOND);
    const lost = limiter.report(SECOND)!;
    limiter.unsent(lost);
    expect(limiter.report(SECOND + 100)).toEqual({ instance: 'a', second: SECOND / 1000, counts: { 'org-1': 1 } });
    limiter.take('org-1', 5, SECOND + 1_000);
    const stale = { ...lost };
    limiter.unsent({ ...stale, second: SECOND / 1000 - 1 });
    expect(limiter.report(SECOND + 1_100)!.counts).toEqual({ 'org-1': 1 });
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
