import { Type } from '@sinclair/typebox';
import { ConsumerGroups, Topics, type Bus, type Subscription } from '@tlm/bus';
import { PLANS, shared, type Logger, type PlanName } from '@tlm/core';
import { findKeyGrant, touchApiKeys, type SqlClient } from '@tlm/metadata-store';
import { hashApiKey, parseApiKey, sameDigest, type KeyType } from './keys';

export const keyCacheConfig = {
  KEY_CACHE_TTL_MS: Type.Integer({
    minimum: 0,
    default: 30_000,
    description: 'How long a gateway trusts a cached key lookup; revocations reach every gateway at once over the bus anyway.',
  }),
  KEY_CACHE_MISS_TTL_MS: Type.Integer({ minimum: 0, default: 1_000, description: 'How long an unknown key is remembered as unknown.' }),
  KEY_LAST_USED_FLUSH_MS: Type.Integer({ minimum: 10, default: 2_000, description: 'How often last_used_at of used keys is written.' }),
};

/** Everything a gateway needs to authorize a request with a key. */
export interface ResolvedKey {
  keyId: string;
  projectId: string;
  orgId: string;
  type: KeyType;
  scopes: string[];
  region: string;
  plan: PlanName;
  retentionDays: number;
  allowBrowserLogs: boolean;
  dsnId: number;
}

/** Published on `Topics.keyChanges` whenever something a cached lookup depends on changes. */
export interface KeyChange {
  keyIds?: string[];
  projectIds?: string[];
  orgIds?: string[];
}

export async function announceKeyChange(bus: Bus, change: KeyChange): Promise<void> {
  await bus.publish(Topics.keyChanges, [{ key: 'key-change', value: change }]);
}

interface CacheEntry {
  key: ResolvedKey | null;
  expiresAt: number;
}

const MAX_CACHE_ENTRIES = 50_000;

/**
 * Turns a raw API key into its grant without a database round trip per request: lookups are cached by key hash,
 * concurrent lookups of one key share one query, and `Topics.keyChanges` drops entries the moment a key,
 * project or organization changes, on every gateway.
 */
export class KeyResolver {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly inFlight = new Map<string, Promise<ResolvedKey | null>>();
  private lastUsed = new Map<string, Date>();
  /** Bumped by every invalidation; a lookup that straddles one is answered but not cached. */
  private generation = 0;
  private flushTimer: NodeJS.Timeout | undefined;
  private subscription: Subscription | undefined;

  constructor(
    private readonly store: SqlClient,
    private readonly options: { ttlMs: number; missTtlMs: number; lastUsedFlushMs: number; logger: Logger },
  ) {}

  /** A resolver configured by `keyCacheConfig`'s variables. */
  static fromConfig(
    store: SqlClient,
    config: { KEY_CACHE_TTL_MS: number; KEY_CACHE_MISS_TTL_MS: number; KEY_LAST_USED_FLUSH_MS: number },
    logger: Logger,
  ): KeyResolver {
    return new KeyResolver(store, {
      ttlMs: config.KEY_CACHE_TTL_MS,
      missTtlMs: config.KEY_CACHE_MISS_TTL_MS,
      lastUsedFlushMs: config.KEY_LAST_USED_FLUSH_MS,
      logger,
    });
  }

  async start(bus: Bus): Promise<void> {
    this.subscription = await bus.subscribe<KeyChange>(Topics.keyChanges, { group: ConsumerGroups.keyCache, broadcast: true }, async (changes) => {
      for (const change of changes) this.invalidate(change);
    });
    this.flushTimer = setInterval(() => {
      this.flushLastUsed().catch((error: unknown) => this.options.logger.error({ err: error }, 'writing last_used_at failed'));
    }, this.options.lastUsedFlushMs);
    this.flushTimer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.flushTimer);
    await this.subscription?.close();
    await this.flushLastUsed();
  }

  /** The grant of a key that may authenticate now, or null (unknown, revoked, deleted, or its project is gone). */
  async resolve(raw: string): Promise<ResolvedKey | null> {
    if (!parseApiKey(raw)) return null;
    const hash = hashApiKey(raw);
    const cached = this.cache.get(hash);
    let key: ResolvedKey | null;
    if (cached && cached.expiresAt > Date.now()) {
      key = cached.key;
    } else {
      key = await shared(this.inFlight, hash, () => this.lookup(hash));
    }
    if (key) this.lastUsed.set(key.keyId, new Date());
    return key;
  }

  invalidate(change: KeyChange): void {
    this.generation += 1;
    const keyIds = new Set(change.keyIds ?? []);
    const projectIds = new Set(change.projectIds ?? []);
    const orgIds = new Set(change.orgIds ?? []);
    for (const [hash, entry] of this.cache) {
      const key = entry.key;
      // A cached miss carries no ids, and the change may be what brings its key back (unrevoke, restore): drop it too.
      if (!key || keyIds.has(key.keyId) || projectIds.has(key.projectId) || orgIds.has(key.orgId)) this.cache.delete(hash);
    }
  }

  async flushLastUsed(): Promise<void> {
    if (this.lastUsed.size === 0) return;
    const batch = this.lastUsed;
    this.lastUsed = new Map();
    await touchApiKeys(this.store, batch);
  }

  private async lookup(hash: string): Promise<ResolvedKey | null> {
    const generation = this.generation;
    const row = await findKeyGrant(this.store, hash);
    const key: ResolvedKey | null =
      row && sameDigest(row.key_hash, hash)
        ? {
            keyId: row.key_id,
            projectId: row.project_id,
            orgId: row.org_id,
            type: row.type,
            scopes: row.scopes,
            region: row.region,
            plan: row.plan as PlanName,
            retentionDays: PLANS[row.plan as PlanName].retentionDays,
            allowBrowserLogs: row.allow_browser_logs,
            dsnId: row.dsn_id,
          }
        : null;
    if (generation !== this.generation) return key;
    if (this.cache.size >= MAX_CACHE_ENTRIES) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(hash, { key, expiresAt: Date.now() + (key ? this.options.ttlMs : this.options.missTtlMs) });
    return key;
  }
}
