import { randomBytes, randomUUID } from 'node:crypto';
import { readMigrations, migrate } from './migrate';
import { PGliteStore } from './pglite';
import type { MetadataStore } from './store';
import {
  advanceErrorPositions,
  errorPositions,
  findKeyGrant,
  findUserByEmail,
  insertApiKey,
  insertNewIssues,
  insertOrganization,
  lockIssues,
  insertProject,
  insertUser,
  readEventNames,
  readPropertySchema,
  readUsage,
  recordSchema,
  recordUsage,
  setApiKeyRevoked,
  setOrganizationsDeletedAt,
  setProjectDeletedAt,
  softDeleteApiKey,
  touchApiKeys,
  monthOf,
  type PropertyDelta,
} from './tables';
import { TEST_POSTGRES_URL, openIsolatedPostgres, postgresUnavailableReason } from '@tlm/testkit';


interface StoreUnderTest {
  store: MetadataStore;
  dispose(): Promise<void>;
}

async function openPglite(): Promise<StoreUnderTest> {
  const store = await PGliteStore.open();
  return { store, dispose: () => store.close() };
}

const openPostgres = (): Promise<StoreUnderTest> => openIsolatedPostgres(4);

const MIGRATION_VERSIONS = readMigrations().map((migration) => migration.version);

function storeSuite(open: () => Promise<StoreUnderTest>): void {
  let opened: StoreUnderTest;
  let store: MetadataStore;

  beforeAll(async () => {
    opened = await open();
    store = opened.store;
    await migrate(store);
  });
  afterAll(() => opened.dispose());

  /** An organization with one project and one active secret key. */
  async function seedKey(label: string) {
    const org = await insertOrganization(store, { id: randomUUID(), name: `org ${label}`, region: 'eu' });
    const project = await insertProject(store, { id: randomUUID(), orgId: org.id, name: `project ${label}`, allowBrowserLogs: true });
    const key = await insertApiKey(store, {
      id: randomUUID(),
      projectId: project.id,
      orgId: org.id,
      name: `key ${label}`,
      type: 'secret',
      scopes: ['*'],
      prefix: 'tlm_sk_eu_Ab',
      keyHash: randomBytes(32).toString('hex'),
      region: 'eu',
    });
    return { org, project, key };
  }

  describe('migrate', () => {
    let fresh: StoreUnderTest;
    beforeAll(async () => {
      fresh = await open();
    });
    afterAll(() => fresh.dispose());

    it('applies every migration the first time and nothing the second time', async () => {
      expect(MIGRATION_VERSIONS.length).toBeGreaterThan(0);
      expect(await migrate(fresh.store)).toEqual(MIGRATION_VERSIONS);
      expect(await migrate(fresh.store)).toEqual([]);
      const recorded = await fresh.store.query<{ version: string }>('select version from schema_migrations order by version');
      expect(recorded.map((row) => row.version)).toEqual(MIGRATION_VERSIONS);
    });

    it('creates the tables of the metadata model', async () => {
      const tables = await fresh.store.query<{ table_name: string }>(
        `select table_name from information_schema.tables where table_schema = current_schema() order by table_name`,
      );
      expect(tables.map((row) => row.table_name)).toEqual([
        'ai_conversations',
        'ai_messages',
        'alert_deliveries',
        'alert_rules',
        'api_keys',
        'artifacts',
        'dashboards',
        'error_positions',
        'export_jobs',
        'invitations',
        'issue_short_ids',
        'issue_user_erasures',
        'issue_users',
        'issues',
        'job_leases',
        'memberships',
        'organizations',
        'password_resets',
        'projects',
        'schema_event_names',
        'schema_migrations',
        'schema_properties',
        'slos',
        'stats_positions',
        'status_incidents',
        'status_pages',
        'usage_counters',
        'users',
      ]);
    });
  });

  describe('value types', () => {
    it('returns int8 as a number and timestamptz as a Date', async () => {
      const [row] = await store.query<{ big: unknown; counted: unknown; at: unknown }>(
        `select 9007199254740991::int8 as big, count(*) as counted, '2024-01-02T03:04:05.678Z'::timestamptz as at`,
      );
      expect(row).toEqual({ big: 9007199254740991, counted: 1, at: new Date('2024-01-02T03:04:05.678Z') });
      expect(typeof row!.big).toBe('number');
      expect(row!.at).toBeInstanceOf(Date);
    });

    it('stores NUL, which Postgres text refuses, as U+FFFD: in text and in text arrays, in and out of transactions', async () => {
      const projectId = randomUUID();
      const id = randomUUID();
      // An error message with NUL (from an OTLP log the scanner turned into an error) once failed every count of its
      // batch: insertNewIssues binds titles as a text array.
      await store.transaction((tx) => insertNewIssues(tx, [{ id, projectId, fingerprint: 'nul', title: 'Error: a\u0000b', culprit: 'f\u0000', level: 'error', firstSeen: 0 }]));
      const [issue] = await store.query<{ title: string; culprit: string }>('select title, culprit from issues where id = $1', [id]);
      expect(issue).toEqual({ title: 'Error: a\ufffdb', culprit: 'f\ufffd' });
      const [row] = await store.query<{ text: string }>('select $1::text as text', ['x\u0000y\u0000']);
      expect(row!.text).toBe('x\ufffdy\ufffd');
    });

    it('returns issue times as the stored instants whatever the time zone of the session', async () => {
      const projectId = randomUUID();
      const id = randomUUID();
      const issue = { id, projectId, fingerprint: 'f', title: 'Error: old clock', culprit: '', level: 'error' };
      // 1970 in Monrovia was 44 minutes 30 seconds behind UTC; JSON's text form of the time would carry that offset.
      const [epoch, century] = await store.transaction(async (tx) => {
        await tx.query("set local timezone = 'Africa/Monrovia'");
        await insertNewIssues(tx, [{ ...issue, firstSeen: 0 }, { ...issue, id: randomUUID(), fingerprint: 'g', firstSeen: Date.parse('1900-01-01T00:00:00.001Z') }]);
        return lockIssues(tx, [id]).then(async (rows) => [rows[0]!, (await tx.query<{ id: string }>('select id from issues where project_id = $1 and fingerprint = $2', [projectId, 'g']))[0]!]);
      });
      expect(epoch.first_seen).toEqual(new Date(0));
      expect(epoch.last_seen).toEqual(new Date(0));
      const [old] = await store.transaction(async (tx) => {
        await tx.query("set local timezone = 'Asia/Kolkata'");
        return lockIssues(tx, [century.id]);
      });
      expect(old!.first_seen).toEqual(new Date('1900-01-01T00:00:00.001Z'));
      expect(old!.updated_at.getTime()).not.toBeNaN();
    });

    it('returns a project dsn_id (bigint identity) as a number and created_at as a Date', async () => {
      const { project } = await seedKey('types');
      expect(typeof project.dsn_id).toBe('number');
      expect(Number.isInteger(project.dsn_id)).toBe(true);
      expect(project.created_at).toBeInstanceOf(Date);
      expect(project.deleted_at).toBeNull();
    });
  });

  describe('transaction', () => {
    it('commits when the work resolves and returns its result', async () => {
      const email = `commit-${randomUUID()}@example.com`;
      const result = await store.transaction(async (tx) => {
        await insertUser(tx, { id: randomUUID(), email, name: null, passwordHash: 'h' });
        return 'done';
      });
      expect(result).toBe('done');
      expect((await findUserByEmail(store, email))?.email).toBe(email);
    });

    it('rolls back every statement when the work throws, and rethrows', async () => {
      const email = `rollback-${randomUUID()}@example.com`;
      const failure = new Error('second step failed');
      await expect(
        store.transaction(async (tx) => {
          await insertUser(tx, { id: randomUUID(), email, name: null, passwordHash: 'h' });
          expect(await findUserByEmail(tx, email)).toBeDefined();
          throw failure;
        }),
      ).rejects.toBe(failure);
      expect(await findUserByEmail(store, email)).toBeUndefined();
    });

    it('rolls back when a statement fails, and leaves the store usable', async () => {
      const email = `failed-statement-${randomUUID()}@example.com`;
      await expect(
        store.transaction(async (tx) => {
          await insertUser(tx, { id: randomUUID(), email, name: null, passwordHash: 'h' });
          await tx.query('select * from no_such_table');
        }),
      ).rejects.toThrow('no_such_table');
      expect(await findUserByEmail(store, email)).toBeUndefined();
      expect(await store.query('select 1 as one')).toEqual([{ one: 1 }]);
    });
  });

  describe('users', () => {
    it('returns null for a duplicate email that differs only in case, and keeps the first account', async () => {
      const local = randomUUID();
      const first = await insertUser(store, { id: randomUUID(), email: `Ada.${local}@Example.com`, name: 'Ada', passwordHash: 'h1' });
      expect(first).not.toBeNull();
      const second = await insertUser(store, { id: randomUUID(), email: `ada.${local}@example.COM`, name: 'Impostor', passwordHash: 'h2' });
      expect(second).toBeNull();
      const found = await findUserByEmail(store, `ADA.${local}@EXAMPLE.COM`);
      expect(found).toEqual(first);
      expect(found?.name).toBe('Ada');
    });
  });

  describe('recordSchema', () => {
    const property = (projectId: string, delta: Partial<PropertyDelta>): PropertyDelta => ({
      projectId,
      signal: 'logs',
      key: 'route',
      type: 'string',
      examples: [],
      volume: 1,
      ...delta,
    });

    it('adds volumes and keeps at most five distinct examples in first-seen order', async () => {
      const projectId = randomUUID();
      await recordSchema(store, [property(projectId, { examples: ['/a', '/b', '/c'], volume: 3 })], []);
      await recordSchema(store, [property(projectId, { examples: ['/c', '/d', '/e', '/f'], volume: 4 })], []);
      await recordSchema(store, [property(projectId, { examples: ['/g'], volume: 2 })], []);
      expect(await readPropertySchema(store, projectId)).toEqual([
        { signal: 'logs', key: 'route', type: 'string', examples: ['/a', '/b', '/c', '/d', '/e'], volume: 9 },
      ]);
    });

    it('records a key and an example holding NUL (from an OTLP attribute, which no JSON repair saw) as U+FFFD', async () => {
      const projectId = randomUUID();
      await recordSchema(store, [property(projectId, { key: 'k\u0000ey', examples: ['va\u0000lue'] })], []);
      expect(await readPropertySchema(store, projectId)).toEqual([
        { signal: 'logs', key: 'k\ufffdey', type: 'string', examples: ['va\ufffdlue'], volume: 1 },
      ]);
    });

    it('treats examples of different JSON types as distinct values', async () => {
      const projectId = randomUUID();
      await recordSchema(store, [property(projectId, { key: 'code', type: 'number', examples: [1, 2] })], []);
      await recordSchema(store, [property(projectId, { key: 'code', type: 'number', examples: [2, 3] })], []);
      const [row] = await readPropertySchema(store, projectId);
      expect(row?.examples).toEqual([1, 2, 3]);
    });

    it("turns a key seen with two types into 'mixed', and it stays mixed", async () => {
      const projectId = randomUUID();
      await recordSchema(store, [property(projectId, { key: 'status', type: 'number', examples: [200] })], []);
      await recordSchema(store, [property(projectId, { key: 'status', type: 'string', examples: ['ok'] })], []);
      expect((await readPropertySchema(store, projectId))[0]?.type).toBe('mixed');
      await recordSchema(store, [property(projectId, { key: 'status', type: 'number', examples: [404] })], []);
      expect(await readPropertySchema(store, projectId)).toEqual([
        { signal: 'logs', key: 'status', type: 'mixed', examples: [200, 'ok', 404], volume: 3 },
      ]);
    });

    it('keeps logs and events properties of one key apart, and orders by volume', async () => {
      const projectId = randomUUID();
      await recordSchema(
        store,
        [
          property(projectId, { signal: 'logs', key: 'plan', examples: ['pro'], volume: 2 }),
          property(projectId, { signal: 'events', key: 'plan', type: 'boolean', examples: [true], volume: 5 }),
        ],
        [],
      );
      expect(await readPropertySchema(store, projectId)).toEqual([
        { signal: 'events', key: 'plan', type: 'boolean', examples: [true], volume: 5 },
        { signal: 'logs', key: 'plan', type: 'string', examples: ['pro'], volume: 2 },
      ]);
    });

    it('adds up event name volumes per project', async () => {
      const projectId = randomUUID();
      const otherProject = randomUUID();
      await recordSchema(store, [], [
        { projectId, name: 'signup', volume: 2 },
        { projectId, name: 'checkout', volume: 1 },
        { projectId: otherProject, name: 'signup', volume: 10 },
      ]);
      await recordSchema(store, [], [{ projectId, name: 'checkout', volume: 4 }]);
      expect(await readEventNames(store, projectId)).toEqual([
        { name: 'checkout', volume: 5 },
        { name: 'signup', volume: 2 },
      ]);
    });
  });

  describe('recordUsage', () => {
    it('adds items per project, signal and month', async () => {
      const projectId = randomUUID();
      await recordUsage(store, [
        { projectId, signal: 'logs', month: '2026-03-01', items: 3 },
        { projectId, signal: 'events', month: '2026-03-01', items: 2 },
        { projectId, signal: 'logs', month: '2026-02-01', items: 100 },
      ]);
      await recordUsage(store, [{ projectId, signal: 'logs', month: '2026-03-01', items: 4 }]);
      expect(await readUsage(store, projectId, '2026-03-01')).toEqual({ logs: 7, events: 2 });
      expect(await readUsage(store, projectId, '2026-02-01')).toEqual({ logs: 100 });
      expect(await readUsage(store, projectId, '2026-04-01')).toEqual({});
    });

    it('names the UTC month of an instant', () => {
      expect(monthOf(Date.parse('2026-03-31T23:59:59.999Z'))).toBe('2026-03-01');
      expect(monthOf(Date.parse('2026-04-01T00:30:00+02:00'))).toBe('2026-03-01');
    });
  });

  describe('touchApiKeys', () => {
    const lastUsed = async (keyId: string) =>
      (await store.query<{ last_used_at: Date | null }>('select last_used_at from api_keys where id = $1', [keyId]))[0]!.last_used_at;

    it('sets last_used_at, moves it forward, and never moves it backwards', async () => {
      const { key } = await seedKey('touch');
      const { key: other } = await seedKey('touch-other');
      expect(key.last_used_at).toBeNull();
      const noon = new Date('2026-05-01T12:00:00.000Z');
      await touchApiKeys(store, new Map([[key.id, noon]]));
      expect(await lastUsed(key.id)).toEqual(noon);
      await touchApiKeys(store, new Map([[key.id, new Date('2026-05-01T11:00:00.000Z')]]));
      expect(await lastUsed(key.id)).toEqual(noon);
      const later = new Date('2026-05-01T12:00:01.250Z');
      await touchApiKeys(store, new Map([[key.id, later]]));
      expect(await lastUsed(key.id)).toEqual(later);
      expect(await lastUsed(other.id)).toBeNull();
    });

    it('updates many keys in one call', async () => {
      const first = await seedKey('touch-many-1');
      const second = await seedKey('touch-many-2');
      const at = new Date('2026-06-01T00:00:00.000Z');
      await touchApiKeys(
        store,
        new Map([
          [first.key.id, at],
          [second.key.id, new Date(at.getTime() + 1)],
        ]),
      );
      expect(await lastUsed(first.key.id)).toEqual(at);
      expect(await lastUsed(second.key.id)).toEqual(new Date(at.getTime() + 1));
    });
  });

  describe('error positions', () => {
    it('reads -1 for a partition nobody has counted, and what a count stored otherwise', async () => {
      expect(await errorPositions(store, [901, 902])).toEqual(new Map([[901, -1], [902, -1]]));
      expect(await store.transaction((tx) => advanceErrorPositions(tx, [{ partition: 901, from: -1, to: 41 }]))).toEqual([]);
      expect(await errorPositions(store, [901, 902])).toEqual(new Map([[901, 41], [902, -1]]));
    });

    it('moves a position only from the value the counter knew, and names the partitions another counter moved', async () => {
      await store.transaction((tx) => advanceErrorPositions(tx, [{ partition: 903, from: -1, to: 10 }]));
      const taken = await store.transaction((tx) =>
        advanceErrorPositions(tx, [
          { partition: 904, from: -1, to: 5 },
          { partition: 903, from: -1, to: 12 },
        ]),
      );
      expect(taken).toEqual([903]);
      expect(await errorPositions(store, [903, 904])).toEqual(new Map([[903, 10], [904, 5]]));
      expect(await store.transaction((tx) => advanceErrorPositions(tx, [{ partition: 903, from: 10, to: 12 }]))).toEqual([]);
      expect((await errorPositions(store, [903])).get(903)).toBe(12);
    });

    it('names a partition as moved when a counter that read a position finds no row for it', async () => {
      expect(await store.transaction((tx) => advanceErrorPositions(tx, [{ partition: 905, from: 7, to: 9 }]))).toEqual([905]);
      expect(await errorPositions(store, [905])).toEqual(new Map([[905, -1]]));
    });
  });

  describe('findKeyGrant', () => {
    it('returns what a gateway needs for an active key', async () => {
      const { org, project, key } = await seedKey('grant');
      expect(await findKeyGrant(store, key.key_hash)).toEqual({
        key_id: key.id,
        key_hash: key.key_hash,
        project_id: project.id,
        org_id: org.id,
        type: 'secret',
        scopes: ['*'],
        region: 'eu',
        allow_browser_logs: true,
        dsn_id: project.dsn_id,
        plan: 'free',
      });
    });

    it('ignores an unknown hash', async () => {
      expect(await findKeyGrant(store, randomBytes(32).toString('hex'))).toBeUndefined();
    });

    it('ignores a revoked key until it is unrevoked', async () => {
      const { key } = await seedKey('revoked');
      await setApiKeyRevoked(store, key.id, true);
      expect(await findKeyGrant(store, key.key_hash)).toBeUndefined();
      await setApiKeyRevoked(store, key.id, false);
      expect((await findKeyGrant(store, key.key_hash))?.key_id).toBe(key.id);
    });

    it('ignores a soft-deleted key', async () => {
      const { key } = await seedKey('deleted');
      await softDeleteApiKey(store, key.id);
      expect(await findKeyGrant(store, key.key_hash)).toBeUndefined();
    });

    it('ignores a key of a soft-deleted project', async () => {
      const { project, key } = await seedKey('deleted-project');
      await setProjectDeletedAt(store, project.id, new Date());
      expect(await findKeyGrant(store, key.key_hash)).toBeUndefined();
    });

    it('ignores a key of a soft-deleted organization', async () => {
      const { org, key } = await seedKey('deleted-org');
      await setOrganizationsDeletedAt(store, [org.id], new Date());
      expect(await findKeyGrant(store, key.key_hash)).toBeUndefined();
      await setOrganizationsDeletedAt(store, [org.id], null);
      expect((await findKeyGrant(store, key.key_hash))?.key_id).toBe(key.id);
    });
  });
}

describe('metadata store on PGlite', () => {
  storeSuite(openPglite);
});

const postgresUnavailable = postgresUnavailableReason();
if (postgresUnavailable) console.log(`skipping the Postgres half of the metadata store suite: ${TEST_POSTGRES_URL} does not answer (${postgresUnavailable})`);
(postgresUnavailable ? describe.skip : describe)('metadata store on the Postgres server', () => {
  storeSuite(openPostgres);
});
