import { randomUUID } from 'node:crypto';
import { EmbeddedBus, Topics } from '@tlm/bus';
import { createLogger } from '@tlm/core';
import {
  insertApiKey,
  insertOrganization,
  insertProject,
  setApiKeyRevoked,
  setOrganizationsDeletedAt,
  setProjectDeletedAt,
  updateOrganization,
  type SqlClient,
  type SqlParams,
  type PGliteStore,
} from '@tlm/metadata-store';
import { openMigratedPGlite } from '@tlm/testkit/metadata';
import { displayPrefix, generateApiKey, hashApiKey } from './keys';
import { KeyResolver, announceKeyChange, type ResolvedKey } from './resolver';

/** Delegates to the real store, counting statements; `hold()` parks the answers of the next statements until released. */
class CountingClient implements SqlClient {
  statements: string[] = [];
  private gate: Promise<void> | undefined;

  constructor(private readonly inner: SqlClient) {}

  async query<Row extends object = Record<string, unknown>>(text: string, params?: SqlParams): Promise<Row[]> {
    this.statements.push(text);
    const gate = this.gate;
    const rows = await this.inner.query<Row>(text, params);
    if (gate) await gate;
    return rows;
  }

  hold(): () => void {
    let release!: () => void;
    this.gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    return () => {
      this.gate = undefined;
      release();
    };
  }

  get lookups(): number {
    return this.statements.filter((text) => text.includes('from api_keys k')).length;
  }
}

const logger = createLogger('resolver-test', 'silent');
const tick = () => new Promise((resolve) => setImmediate(resolve));

let store: PGliteStore;
let bus: EmbeddedBus;
let counting: CountingClient;
let resolver: KeyResolver;

let disposeStore: () => Promise<void>;

beforeAll(async () => {
  ({ store, dispose: disposeStore } = await openMigratedPGlite());
  bus = new EmbeddedBus();
});
afterAll(async () => {
  await bus.close();
  await disposeStore();
});

beforeEach(async () => {
  counting = new CountingClient(store);
  resolver = new KeyResolver(counting, { ttlMs: 60_000, missTtlMs: 60_000, lastUsedFlushMs: 60_000, logger });
  await resolver.start(bus);
});
afterEach(() => resolver.stop());

/** An organization on the pro plan with a project and one key; returns the raw key and its expected grant. */
async function seedKey(type: 'public' | 'secret' = 'secret') {
  const org = await insertOrganization(store, { id: randomUUID(), name: 'Acme', region: 'eu' });
  await updateOrganization(store, org.id, { plan: 'pro' });
  const project = await insertProject(store, { id: randomUUID(), orgId: org.id, name: 'web', allowBrowserLogs: true });
  const raw = generateApiKey(type, 'eu');
  const row = await insertApiKey(store, {
    id: randomUUID(),
    projectId: project.id,
    orgId: org.id,
    name: 'server',
    type,
    scopes: type === 'secret' ? ['*'] : ['ingest:write'],
    prefix: displayPrefix(raw),
    keyHash: hashApiKey(raw),
    region: 'eu',
  });
  const grant: ResolvedKey = {
    keyId: row.id,
    projectId: project.id,
    orgId: org.id,
    type,
    scopes: row.scopes,
    region: 'eu',
    plan: 'pro',
    retentionDays: 90,
    allowBrowserLogs: true,
    dsnId: project.dsn_id,
  };
  return { raw, grant, org, project, row };
}

describe('KeyResolver.resolve', () => {
  it('returns the grant of an active key', async () => {
    const { raw, grant } = await seedKey();
    expect(await resolver.resolve(raw)).toEqual(grant);
  });

  it('answers a second resolve of a key from the cache, without a query', async () => {
    const { raw, grant } = await seedKey();
    await resolver.resolve(raw);
    expect(counting.lookups).toBe(1);
    expect(await resolver.resolve(raw)).toEqual(grant);
    expect(counting.statements).toHaveLength(1);
  });

  it('returns null for a malformed key without a query', async () => {
    expect(await resolver.resolve('not-a-key')).toBeNull();
    expect(await resolver.resolve('tlm_sk_xx_Ab3dEf6hIj9lMn2pQr5tUv8xYz1B4c7D')).toBeNull();
    expect(counting.statements).toEqual([]);
  });

  it('remembers an unknown key as unknown, so a flood of bad keys costs one query each', async () => {
    const unknown = generateApiKey('secret', 'us');
    expect(await resolver.resolve(unknown)).toBeNull();
    expect(await resolver.resolve(unknown)).toBeNull();
    expect(counting.lookups).toBe(1);
  });

  it('shares one query among concurrent resolves of one key', async () => {
    const { raw, grant } = await seedKey();
    const results = await Promise.all(Array.from({ length: 8 }, () => resolver.resolve(raw)));
    expect(results).toEqual(Array.from({ length: 8 }, () => grant));
    expect(counting.lookups).toBe(1);
  });

  it('looks a key up again once its cache entry has expired', async () => {
    const { raw } = await seedKey();
    const uncached = new KeyResolver(counting, { ttlMs: 0, missTtlMs: 0, lastUsedFlushMs: 60_000, logger });
    await uncached.resolve(raw);
    await uncached.resolve(raw);
    expect(counting.lookups).toBe(2);
  });
});

describe('invalidation over Topics.keyChanges', () => {
  it('drops the entry of a key named in a KeyChange, so the next resolve queries again', async () => {
    const { raw, grant } = await seedKey();
    await resolver.resolve(raw);
    await announceKeyChange(bus, { keyIds: [grant.keyId] });
    expect(await resolver.resolve(raw)).toEqual(grant);
    expect(counting.lookups).toBe(2);
  });

  it('drops entries by project and by organization', async () => {
    const byProject = await seedKey();
    const byOrg = await seedKey();
    await resolver.resolve(byProject.raw);
    await resolver.resolve(byOrg.raw);
    await announceKeyChange(bus, { projectIds: [byProject.grant.projectId] });
    await resolver.resolve(byProject.raw);
    await resolver.resolve(byOrg.raw);
    expect(counting.lookups).toBe(3);
    await announceKeyChange(bus, { orgIds: [byOrg.grant.orgId] });
    await resolver.resolve(byOrg.raw);
    expect(counting.lookups).toBe(4);
  });

  it('keeps entries that a KeyChange does not name', async () => {
    const { raw } = await seedKey();
    await resolver.resolve(raw);
    await announceKeyChange(bus, { keyIds: [randomUUID()], projectIds: [randomUUID()], orgIds: [randomUUID()] });
    await resolver.resolve(raw);
    expect(counting.lookups).toBe(1);
  });

  it('resolves a revoked key to null once the revocation is announced', async () => {
    const { raw, grant } = await seedKey();
    expect(await resolver.resolve(raw)).toEqual(grant);
    await setApiKeyRevoked(store, grant.keyId, true);
    await announceKeyChange(bus, { keyIds: [grant.keyId] });
    expect(await resolver.resolve(raw)).toBeNull();
    await setApiKeyRevoked(store, grant.keyId, false);
    await announceKeyChange(bus, { keyIds: [grant.keyId] });
    expect(await resolver.resolve(raw)).toEqual(grant);
  });

  it('resolves keys of a deleted project or organization to null once announced', async () => {
    const ofProject = await seedKey();
    const ofOrg = await seedKey();
    await resolver.resolve(ofProject.raw);
    await resolver.resolve(ofOrg.raw);
    await setProjectDeletedAt(store, ofProject.grant.projectId, new Date());
    await setOrganizationsDeletedAt(store, [ofOrg.grant.orgId], new Date());
    await announceKeyChange(bus, { projectIds: [ofProject.grant.projectId], orgIds: [ofOrg.grant.orgId] });
    expect(await resolver.resolve(ofProject.raw)).toBeNull();
    expect(await resolver.resolve(ofOrg.raw)).toBeNull();
  });

  it('picks up a plan change once the organization is announced', async () => {
    const { raw, grant } = await seedKey();
    await resolver.resolve(raw);
    await updateOrganization(store, grant.orgId, { plan: 'team' });
    await announceKeyChange(bus, { orgIds: [grant.orgId] });
    expect(await resolver.resolve(raw)).toEqual({ ...grant, plan: 'team', retentionDays: 365 });
  });

  it('answers a lookup that straddles an invalidation but does not cache it', async () => {
    const { raw, grant } = await seedKey();
    const release = counting.hold();
    const pending = resolver.resolve(raw);
    await tick();
    expect(counting.lookups).toBe(1);
    await setApiKeyRevoked(store, grant.keyId, true);
    await announceKeyChange(bus, { keyIds: [grant.keyId] });
    release();
    // The query read the key before the revocation, so its answer is stale...
    expect(await pending).toEqual(grant);
    // ...which is why it must not be cached: the next resolve asks again and sees the revocation.
    expect(await resolver.resolve(raw)).toBeNull();
    expect(counting.lookups).toBe(2);
  });

  it('does not cache a miss that straddles an invalidation', async () => {
    const unknown = generateApiKey('secret', 'eu');
    const release = counting.hold();
    const pending = resolver.resolve(unknown);
    await tick();
    await announceKeyChange(bus, { keyIds: [randomUUID()] });
    release();
    expect(await pending).toBeNull();
    await resolver.resolve(unknown);
    expect(counting.lookups).toBe(2);
  });

  it('stops listening after stop(), and every started resolver receives each change', async () => {
    const { raw, grant } = await seedKey();
    const second = new KeyResolver(counting, { ttlMs: 60_000, missTtlMs: 60_000, lastUsedFlushMs: 60_000, logger });
    await second.start(bus);
    await resolver.resolve(raw);
    await second.resolve(raw);
    await announceKeyChange(bus, { keyIds: [grant.keyId] });
    await resolver.resolve(raw);
    await second.resolve(raw);
    expect(counting.lookups).toBe(4);
    await second.stop();
    await announceKeyChange(bus, { keyIds: [grant.keyId] });
    await second.resolve(raw);
    expect(counting.lookups).toBe(4);
  });
});

describe('KeyResolver.flushLastUsed', () => {
  const lastUsedAt = async (keyId: string) =>
    (await store.query<{ last_used_at: Date | null }>('select last_used_at from api_keys where id = $1', [keyId]))[0]!.last_used_at;

  it('writes last_used_at of the keys resolved since the last flush', async () => {
    const { raw, grant } = await seedKey();
    const before = Date.now();
    await resolver.resolve(raw);
    const after = Date.now();
    expect(await lastUsedAt(grant.keyId)).toBeNull();
    await resolver.flushLastUsed();
    const written = await lastUsedAt(grant.keyId);
    expect(written).toBeInstanceOf(Date);
    expect(written!.getTime()).toBeGreaterThanOrEqual(before);
    expect(written!.getTime()).toBeLessThanOrEqual(after);
  });

  it('writes nothing when no key was used, and nothing for unknown keys', async () => {
    await resolver.resolve(generateApiKey('secret', 'us'));
    const statements = counting.statements.length;
    await resolver.flushLastUsed();
    expect(counting.statements).toHaveLength(statements);
  });

  it('flushes on stop()', async () => {
    const { raw, grant } = await seedKey();
    await resolver.resolve(raw);
    await resolver.stop();
    expect(await lastUsedAt(grant.keyId)).toBeInstanceOf(Date);
    resolver = new KeyResolver(counting, { ttlMs: 60_000, missTtlMs: 60_000, lastUsedFlushMs: 60_000, logger });
    await resolver.start(bus);
  });

  it('flushes on its own every lastUsedFlushMs', async () => {
    const { raw, grant } = await seedKey();
    const ticking = new KeyResolver(counting, { ttlMs: 60_000, missTtlMs: 60_000, lastUsedFlushMs: 20, logger });
    await ticking.start(bus);
    try {
      await ticking.resolve(raw);
      const deadline = Date.now() + 2_000;
      while ((await lastUsedAt(grant.keyId)) === null && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(await lastUsedAt(grant.keyId)).toBeInstanceOf(Date);
    } finally {
      await ticking.stop();
    }
  });
});

describe('announceKeyChange', () => {
  it('publishes the change on Topics.keyChanges', async () => {
    const seen: unknown[] = [];
    const subscription = await bus.subscribe(Topics.keyChanges, { group: 'observer', broadcast: true }, async (values) => {
      seen.push(...values);
    });
    await announceKeyChange(bus, { projectIds: ['p-1'] });
    await subscription.close();
    expect(seen).toEqual([{ projectIds: ['p-1'] }]);
  });
});
