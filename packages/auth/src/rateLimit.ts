import { randomUUID } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { ConsumerGroups, Topics, type Bus, type Subscription } from '@tlm/bus';
import { PLANS, rateLimited, type Logger } from '@tlm/core';
import type { RequestHandler } from 'express';
import { requestKey } from './guards';

export const rateLimitConfig = {
  RATE_LIMIT_ENABLED: Type.Boolean({
    default: true,
    description: 'Enforce the per-plan requests-per-second limit per organization (SPEC.md Limits); off for self-hosting or benchmarks.',
  }),
  RATE_LIMIT_SHARE_MS: Type.Integer({
    minimum: 10,
    maximum: 1_000,
    default: 100,
    description:
      "How often each process tells the others (over the bus) what it admitted this second, so an organization's limit holds across a fleet; a fleet may overshoot by about what it admits in this long.",
  }),
};

/** What one process admitted per organization in one second (`Topics.rateCounts`). */
export interface RateCounts {
  instance: string;
  /** Epoch seconds of the window. */
  second: number;
  counts: Record<string, number>;
}

/**
 * Fixed one-second windows per organization (DECISIONS.md: per account, over all its keys and projects). A request is
 * admitted while this process's admitted requests plus those the other processes reported for the same second stay
 * within the limit; `share` exchanges the counts over the bus. Reports lag by up to the share interval, so a fleet
 * admits at most about limit × (1 + interval) per second; docs/decisions.md.
 */
export class RateLimiter {
  private second = 0;
  private counts = new Map<string, number>();
  private changed = false;
  /** The other processes' latest reports, by instance. */
  private readonly peers = new Map<string, RateCounts>();
  private subscription: Subscription | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    readonly enabled: boolean,
    readonly instanceId: string = randomUUID(),
  ) {}

  /** Counts one request; false when the organization is over its limit this second (a refused request is not counted). */
  take(orgId: string, limit: number, now = Date.now()): boolean {
    if (!this.enabled) return true;
    this.roll(now);
    const count = this.counts.get(orgId) ?? 0;
    if (count + this.peerCount(orgId) >= limit) return false;
    this.counts.set(orgId, count + 1);
    this.changed = true;
    return true;
  }

  /** This process's counts of the current second, once after each change; undefined when nothing changed. */
  report(now = Date.now()): RateCounts | undefined {
    this.roll(now);
    if (!this.changed) return undefined;
    this.changed = false;
    return { instance: this.instanceId, second: this.second, counts: Object.fromEntries(this.counts) };
  }

  /** Takes another process's report; its own come back on a broadcast topic and are ignored. */
  receive(report: RateCounts): void {
    if (report.instance === this.instanceId) return;
    const held = this.peers.get(report.instance);
    if (!held || report.second >= held.second) this.peers.set(report.instance, report);
  }

  /** Publishes this process's counts every `intervalMs` and takes the others'; stop with `stop`. */
  async share(bus: Bus, intervalMs: number, logger: Logger): Promise<void> {
    if (!this.enabled || this.subscription) return;
    this.subscription = await bus.subscribe<RateCounts>(Topics.rateCounts, { group: ConsumerGroups.rateLimit, broadcast: true }, async (reports) => {
      for (const report of reports) this.receive(report);
    });
    let publishing = false;
    this.timer = setInterval(() => {
      const report = publishing ? undefined : this.report();
      if (!report) return;
      publishing = true;
      bus
        .publish(Topics.rateCounts, [{ key: this.instanceId, value: report }])
        .catch((error: unknown) => logger.warn({ err: error }, 'sharing rate-limit counts failed'))
        .finally(() => (publishing = false));
    }, intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.subscription?.close();
    this.subscription = undefined;
  }

  private roll(now: number): void {
    const second = Math.floor(now / 1000);
    if (second === this.second) return;
    this.second = second;
    this.counts = new Map();
    this.changed = false;
    for (const [instance, report] of this.peers) if (report.second < second) this.peers.delete(instance);
  }

  private peerCount(orgId: string): number {
    let count = 0;
    for (const report of this.peers.values()) if (report.second === this.second) count += report.counts[orgId] ?? 0;
    return count;
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
