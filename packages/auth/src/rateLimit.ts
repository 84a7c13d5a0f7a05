import { randomUUID } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { ConsumerGroups, Topics, type Bus, type Subscription } from '@tlm/bus';
import { PLANS, rateLimited, type Logger } from '@tlm/core';
import type { RequestHandler } from 'express';
import { requestKey } from './guards';

export const rateLimitConfig = {
  RATE_LIMIT_ENABLED: Type.Boolean({
    default: true,
    description:
      "Enforce the per-plan requests-per-second limits per organization: /v1 at the plan's requests_per_second, /api apart at its api_requests_per_second (both shown in the limits of GET /api/orgs/:org), and /api per person and per client address (docs/api.md); off for self-hosting or benchmarks.",
  }),
  RATE_LIMIT_SHARE_MS: Type.Integer({
    minimum: 10,
    maximum: 1_000,
    default: 100,
    description:
      "How often each process tells the others (over the bus) what it admitted this second, so an organization's limit holds across a fleet; a burst from an idle start may pass the limit by what the fleet admits in this long.",
  }),
};

/** What one process admitted per organization in one second (`Topics.rateCounts`): totals of the organizations that changed. */
export interface RateCounts {
  instance: string;
  /** Epoch seconds of the window. */
  second: number;
  counts: Record<string, number>;
}

/**
 * Fixed one-second windows per organization (DECISIONS.md: per account, over all its keys and projects). A request is
 * admitted while this process's admitted requests plus the other processes' stay within the limit; `share` exchanges
 * the counts over the bus every interval. Until a peer has reported on the current second, what it admitted in the
 * previous one stands in for it, so a steady rate spread over a fleet is held from the first request of each second;
 * a burst from an idle start can pass the limit by what the fleet admits before the first reports arrive (one
 * interval plus the bus's latency). docs/decisions.md.
 */
export class RateLimiter {
  private second = 0;
  private counts = new Map<string, number>();
  /** Organizations whose count changed since the last report. */
  private dirty = new Set<string>();
  /** The other processes' counts by instance: of the current second, or of the previous one until they report. */
  private readonly peers = new Map<string, { second: number; counts: Map<string, number> }>();
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
    this.dirty.add(orgId);
    return true;
  }

  /** This second's totals of the organizations admitted since the last report; undefined when there are none. */
  report(now = Date.now()): RateCounts | undefined {
    this.roll(now);
    if (this.dirty.size === 0) return undefined;
    const counts: Record<string, number> = {};
    for (const orgId of this.dirty) counts[orgId] = this.counts.get(orgId)!;
    this.dirty = new Set();
    return { instance: this.instanceId, second: this.second, counts };
  }

  /** A report that could not be sent: its organizations go into the next one, if it is still this second. */
  unsent(report: RateCounts): void {
    if (report.second === this.second) for (const orgId of Object.keys(report.counts)) this.dirty.add(orgId);
  }

  /** Takes another process's report; its own come back on a broadcast topic and are ignored. */
  receive(report: RateCounts): void {
    if (report.instance === this.instanceId) return;
    const held = this.peers.get(report.instance);
    if (held && report.second < held.second) return;
    const counts = held && held.second === report.second ? held.counts : new Map<string, number>();
    for (const [orgId, count] of Object.entries(report.counts)) counts.set(orgId, Math.max(count, counts.get(orgId) ?? 0));
    this.peers.set(report.instance, { second: report.second, counts });
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
        .catch((error: unknown) => {
          this.unsent(report);
          logger.warn({ err: error }, 'sharing rate-limit counts failed');
        })
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
    this.dirty = new Set();
    for (const [instance, report] of this.peers) if (report.second < second - 1) this.peers.delete(instance);
  }

  /** The peers' counts for this second, or their previous second's where they have not reported on this one yet. */
  private peerCount(orgId: string): number {
    let count = 0;
    for (const report of this.peers.values()) if (report.second >= this.second - 1) count += report.counts.get(orgId) ?? 0;
    return count;
  }
}

/** A limiter sharing its counts with the other processes over the bus every RATE_LIMIT_SHARE_MS; `stop` it when the service closes. */
export async function startRateLimiter(
  bus: Bus,
  config: { RATE_LIMIT_ENABLED: boolean; RATE_LIMIT_SHARE_MS: number },
  logger: Logger,
): Promise<RateLimiter> {
  const limiter = new RateLimiter(config.RATE_LIMIT_ENABLED);
  await limiter.share(bus, config.RATE_LIMIT_SHARE_MS, logger);
  return limiter;
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
