import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DuckDBStore } from '@tlm/analytics-store';
import { Kafka, logLevel } from 'kafkajs';
import {
  FLEET_START_MS,
  createKey,
  createProject,
  eventually,
  liveSuite,
  metricValue,
  openIsolatedPostgres,
  postgresUnavailableReason,
  setPlan,
  signup,
  startProcess,
  startSmallFleet,
  stopProcess,
  type FleetProcess,
  type SmallFleet,
} from '@tlm/testkit';

/**
 * The small fleet as it runs in production, each service its own Node process (the built entry points), on a real
 * Kafka broker and the real PostgreSQL server: two ingest gateways behind the API gateway, key-admin, the dashboard
 * API, and one storage node (the standalone entry point with KAFKA_BROKERS: the writers, the issues processor, the log
 * scanner, query and the services that read the analytics store, on DuckDB; it answers the dashboard API's analytics
 * calls). Sign-up, keys, ingest at both gateways, exact counts, GDPR counts and erasure from the dashboard API, key
 * revocation reaching both gateways, one rate limit across them, and SIGKILL of a gateway and the storage node in the
 * middle of a load.
 */

const envelope = (eventId: string, message: string) =>
  `{"event_id":"${eventId}"}\n{"type":"event"}\n${JSON.stringify({ event_id: eventId, message, level: 'error', platform: 'node' })}\n`;
const eventIdOf = (prefix: number, n: number) => `${prefix.toString(16).padStart(8, '0')}${n.toString(16).padStart(24, '0')}`;
const logBatch = (prefix: string, request: number) => ({
  batch: Array.from({ length: 20 }, (_, item) => ({ severity: 'info', message: `${prefix} ${request}-${item}` })),
});

const skipReason = postgresUnavailableReason();
if (skipReason) console.log(`skipping the fleet processes suite: ${skipReason}`);

(skipReason ? describe.skip : describe)('the fleet as separate processes', () => {
  liveSuite('on a live Kafka broker and PostgreSQL', 'KAFKA_BROKERS', (brokers) => {
    let postgres: Awaited<ReturnType<typeof openIsolatedPostgres>>;
    let dataDir: string;
    let blobDir: string;
    let fleet: SmallFleet;
    let storage: FleetProcess;
    let dashboard: FleetProcess;
    let gateways: FleetProcess[];
    let gateway: FleetProcess;

    beforeAll(async () => {
      postgres = await openIsolatedPostgres(1);
      dataDir = mkdtempSync(path.join(tmpdir(), 'tlm-fleet-storage-'));
      blobDir = mkdtempSync(path.join(tmpdir(), 'tlm-fleet-blobs-'));
      // A killed storage node's partitions wait out its consumers' session before its restart gets them: 10 s, not 30.
      fleet = await startSmallFleet({ brokers: brokers(), databaseUrl: postgres.url, dataDir, blobDir, env: { KAFKA_SESSION_TIMEOUT_MS: '10000' } });
      ({ storage, dashboard, gateways, gateway } = fleet);
    }, 5 * FLEET_START_MS);

    afterAll(async () => {
      await fleet?.stop();
      await postgres?.dispose();
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(blobDir, { recursive: true, force: true });
    }, 60_000);

    /** An organization on the team plan (100 ingest requests a second) with a project and a secret key, made through the API gateway. */
    async function provision(plan: 'free' | 'team' = 'team') {
      const session = await signup(gateway.api);
      // The operator's route lives on the storage node, beside the maintenance jobs.
      await setPlan(storage.api, session, plan);
      const project = await createProject(gateway.api, session);
      const key = await createKey(gateway.api, session, project.id, { type: 'secret' });
      return { session, project, key };
    }

    it('stores every item accepted at either gateway once, and counts issues exactly', async () => {
      const { key } = await provision();
      const logs = await Promise.all(Array.from({ length: 20 }, (_, i) => gateway.api.post('/v1/logs', { token: key.key, body: logBatch('spread', i) })));
      expect(logs.map((reply) => reply.status)).toEqual(Array(20).fill(202));
      const events = await Promise.all(
        Array.from({ length: 10 }, (_, i) => gateway.api.post('/v1/events', { token: key.key, body: { batch: [{ event: 'fleet_signup', distinctId: `user-${i}` }] } })),
      );
      expect(events.map((reply) => reply.status)).toEqual(Array(10).fill(202));
      const errors = await Promise.all(
        Array.from({ length: 30 }, (_, n) =>
          gateway.api.post('/v1/envelope', { token: key.key, body: envelope(eventIdOf(1, n), 'the fleet stores this once'), headers: { 'content-type': 'application/x-sentry-envelope' } }),
        ),
      );
      expect(errors.map((reply) => reply.status)).toEqual(Array(30).fill(200));
      // The API gateway took turns: both gateways accepted part of the load.
      for (const one of gateways) expect(await metricValue(one, 'tlm_ingest_items_total', { signal: 'logs', outcome: 'accepted' })).toBeGreaterThan(0);

      const value = async (q: string) => (await gateway.api.post('/v1/gql/query', { token: key.key, body: { q } })).body.data?.results?.[0];
      await eventually(async () => {
        expect(await value('from:logs | count')).toEqual({ value: 400 });
        expect(await value('from:events event:fleet_signup | count')).toEqual({ value: 10 });
        expect(await value('from:errors | count')).toEqual({ value: 30 });
        expect(await value('from:issues | fields title, event_count')).toEqual({ title: 'the fleet stores this once', event_count: 30 });
      }, 30_000, 200);
      // Consumer lag and publish latency, as docs/architecture.md names them.
      expect((await storage.api.get('/metrics')).text).toMatch(/^tlm_bus_consumer_lag\{topic="tlm\.logs\.v1",group="tlm-ingest-writer\.tlm\.logs\.v1"\} 0$/m);
      expect(await metricValue(gateways[0]!, 'tlm_bus_publish_duration_seconds_count', { topic: 'tlm.logs.v1' })).toBeGreaterThan(0);
    }, 120_000);

    it("serves accounts and projects from the dashboard API's process, whose GDPR counts and erasure reach the storage node's store", async () => {
      const { session, project, key } = await provision();
      const login = await gateway.api.post('/api/auth/login', { body: { email: session.user.email, password: session.password } });
      expect(login.status).toBe(200);
      const token = login.body.token as string;
      const me = await gateway.api.get('/api/auth/me', { token });
      expect(me.status).toBe(200);
      expect(me.body.email).toBe(session.user.email);
      expect(me.body.organizations.map((one: { id: string }) => one.id)).toEqual([session.organization.id]);
      const projects = await gateway.api.get(`/api/orgs/${session.organization.id}/projects`, { token });
      expect(projects.status).toBe(200);
      expect(projects.body.projects.map((one: { id: string }) => one.id)).toEqual([project.id]);
      // The dashboard API's process answered them; the storage node, which mounts the same routes, did not.
      expect(await metricValue(dashboard, 'tlm_http_requests_total', { route: '/api/auth/login', status: '200' })).toBeGreaterThan(0);
      expect(await metricValue(storage, 'tlm_http_requests_total', { route: '/api/auth/login' })).toBe(0);

      const people = ['erase-me', 'erase-me', 'erase-me', 'keep-me', 'keep-me'];
      const sent = await gateway.api.post('/v1/events', { token: key.key, body: { batch: people.map((distinctId) => ({ event: 'fleet_gdpr', distinctId })) } });
      expect(sent.status).toBe(202);
      const value = async (q: string) => (await gateway.api.post('/v1/gql/query', { token: key.key, body: { q } })).body.data?.results?.[0];
      await eventually(async () => expect(await value('from:events | count')).toEqual({ value: 5 }), 30_000, 200);
      const exportPath = `/api/orgs/${session.organization.id}/gdpr/export`;
      expect((await gateway.api.get(exportPath, { token })).body.counts).toEqual({ events: 5, logs: 0, alert_rules: 0 });

      const erased = await gateway.api.post(`/api/orgs/${session.organization.id}/projects/${project.id}/gdpr/erase`, { token, body: { distinct_id: 'erase-me' } });
      expect(erased.status).toBe(200);
      expect(erased.body.removed.events).toBe(3);
      expect(await value('from:events | count')).toEqual({ value: 2 });
      expect((await gateway.api.get(exportPath, { token })).body.counts).toEqual({ events: 2, logs: 0, alert_rules: 0 });
      expect(await metricValue(storage, 'tlm_http_requests_total', { route: '/internal/analytics/execute', status: '200' })).toBeGreaterThan(0);

      // The storage node's analytics endpoint takes only its token.
      const refused = await storage.api.post('/internal/analytics/execute', { token: 'not-the-analytics-token', body: { sql: 'DELETE FROM events' } });
      expect(refused.status).toBe(401);
      expect(refused.body.error.code).toBe('UNAUTHORIZED');
      // The fleet's public port does not lead to it.
      expect((await gateway.api.post('/internal/analytics/execute', { body: { sql: 'DELETE FROM events' } })).status).toBe(404);
      expect(await value('from:events | count')).toEqual({ value: 2 });
    }, 60_000);

    it('refuses a key revoked through key-admin at both gateways', async () => {
      const { session, project, key } = await provision();
      for (const one of gateways) expect((await one.api.post('/v1/logs', { token: key.key, body: logBatch('before-revoke', 0) })).status).toBe(202);
      const revokedAt = Date.now();
      const revoke = await gateway.api.post(`/api/orgs/${session.organization.id}/projects/${project.id}/keys/${key.id}/revoke`, { token: session.token });
      expect(revoke.status).toBe(200);
      const refusedAfter = await Promise.all(
        gateways.map((one) =>
          eventually(async () => {
            const reply = await one.api.post('/v1/logs', { token: key.key, body: logBatch('after-revoke', 0) });
            expect(reply.status).toBe(401);
            return Date.now() - revokedAt;
          }, 10_000, 20),
        ),
      );
      console.log(`a revoked key was refused by both gateways ${Math.max(...refusedAfter)} ms after key-admin answered`);
    }, 60_000);

    it('holds one per-second rate limit across both gateways', async () => {
      const { key } = await provision('free');
      // Start at the beginning of a second, so the whole burst counts against one second's budget of 10 requests.
      await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000) + 5));
      const statuses: number[] = [];
      for (let round = 0; round < 8; round++) {
        const replies = await Promise.all(gateways.map((one) => one.api.post('/v1/logs', { token: key.key, body: logBatch('limited', round) })));
        statuses.push(...replies.map((reply) => reply.status));
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const accepted = statuses.filter((status) => status === 202).length;
      expect(statuses.every((status) => status === 202 || status === 429)).toBe(true);
      // Each gateway alone would admit 10; together they admit the plan's 10, and a share interval's worth more at most.
      expect(accepted).toBeGreaterThanOrEqual(10);
      expect(accepted).toBeLessThan(16);
    }, 60_000);

    it('keeps every item it answered for when a gateway and the storage node are killed with SIGKILL mid-load', async () => {
      const { key, project } = await provision();
      const accepted = { logs: 0, errors: 0 };
      // Requests the kill cut off without an answer: published or not, so each may or may not be stored (once).
      const unanswered = { logs: 0, errors: 0 };
      let request = 0;
      let loading = true;
      const load = (async () => {
        while (loading) {
          const n = request++;
          const [logs, error] = await Promise.all([
            gateway.api.post('/v1/logs', { token: key.key, body: logBatch('crash', n) }).catch(() => undefined),
            gateway.api
              .post('/v1/envelope', { token: key.key, body: envelope(eventIdOf(2, n), 'a crash in the middle'), headers: { 'content-type': 'application/x-sentry-envelope' } })
              .catch(() => undefined),
          ]);
          if (logs?.status === 202) accepted.logs += 20;
          else unanswered.logs += 20;
          if (error?.status === 200) accepted.errors += 1;
          else unanswered.errors += 1;
        }
      })();
      await eventually(async () => expect(accepted.logs).toBeGreaterThan(400), 30_000);
      expect(await stopProcess(gateways[0]!, 'SIGKILL')).toBeNull();
      expect(await stopProcess(storage, 'SIGKILL')).toBeNull();
      // The other gateway keeps accepting while the storage node is down: Kafka holds what it publishes.
      const acceptedWhileDown = accepted.logs;
      await eventually(async () => expect(accepted.logs).toBeGreaterThan(acceptedWhileDown + 200), 30_000);
      await Promise.all([startProcess(storage), startProcess(gateways[0]!)]);
      await new Promise((resolve) => setTimeout(resolve, 500));
      loading = false;
      await load;

      const value = async (q: string) => (await gateway.api.post('/v1/gql/query', { token: key.key, body: { q } })).body.data?.results?.[0];
      await drained();
      // The restarted storage node may not answer queries yet when the topics are drained: its first answer is read.
      const answered = (q: string) =>
        eventually(async () => {
          const result = await value(q);
          expect(result).toBeDefined();
          return result.value as number;
        }, 30_000, 250);
      const stored = { logs: await answered('from:logs | count'), errors: await answered('from:errors | count') };
      expect(stored.logs).toBeGreaterThanOrEqual(accepted.logs);
      expect(stored.logs).toBeLessThanOrEqual(accepted.logs + unanswered.logs);
      expect(stored.errors).toBeGreaterThanOrEqual(accepted.errors);
      expect(stored.errors).toBeLessThanOrEqual(accepted.errors + unanswered.errors);
      await eventually(async () => {
        expect(await value('from:issues | fields title, event_count')).toEqual({ title: 'a crash in the middle', event_count: stored.errors });
      }, 30_000, 250);
      // Stopped cleanly, the storage node's DuckDB file is read directly: no row was written twice.
      expect(await stopProcess(storage, 'SIGTERM')).toBe(0);
      await expectStoredOnce(project.id, stored);

      // What a crash between a batch's insert and its offset commit leaves behind, made on purpose: the consumer
      // groups' offsets moved back over rows already stored and counted. The restarted node gets those messages again.
      const rewound = await rewindConsumerGroups(30);
      expect(rewound).toBeGreaterThan(0);
      await startProcess(storage);
      await drained();
      expect(await value('from:logs | count')).toEqual({ value: stored.logs });
      await eventually(async () => {
        expect(await value('from:issues | fields title, event_count')).toEqual({ title: 'a crash in the middle', event_count: stored.errors });
      }, 30_000, 250);
      expect(await stopProcess(storage, 'SIGTERM')).toBe(0);
      await expectStoredOnce(project.id, stored);
    }, 6 * FLEET_START_MS);

    const CONSUMED = [
      ['tlm-ingest-writer.tlm.logs.v1', 'tlm.logs.v1'],
      ['tlm-issues-processor.tlm.errors.v1', 'tlm.errors.v1'],
    ] as const;

    function kafkaAdmin() {
      return new Kafka({ clientId: 'fleet-test', brokers: brokers().split(','), logLevel: logLevel.NOTHING }).admin();
    }

    /** Waits until the writer's and the issues processor's committed offsets reach the end of their topics. */
    async function drained(): Promise<void> {
      const admin = kafkaAdmin();
      await admin.connect();
      try {
        await eventually(async () => {
          for (const [groupId, topic] of CONSUMED) {
            const ends = new Map((await admin.fetchTopicOffsets(topic)).map(({ partition, high }) => [partition, high]));
            const [committed] = await admin.fetchOffsets({ groupId, topics: [topic] });
            // A partition nothing was ever committed on answers -1; with no message in it, its end is 0.
            const at = committed!.partitions.map(({ partition, offset }) => [partition, offset === '-1' ? '0' : offset]);
            expect(Object.fromEntries(at)).toEqual(Object.fromEntries(ends));
          }
        }, 60_000, 250);
      } finally {
        await admin.disconnect();
      }
    }

    /** Reads the stopped storage node's DuckDB file: each stored log and error is one row, none written twice. */
    async function expectStoredOnce(projectId: string, stored: { logs: number; errors: number }): Promise<void> {
      const store = await DuckDBStore.open(path.join(dataDir, 'analytics.duckdb'));
      try {
        const [logs] = await store.query('SELECT count(*) AS n, count(DISTINCT message) AS messages FROM logs WHERE project_id = $project', { project: projectId });
        expect(logs).toEqual({ n: stored.logs, messages: stored.logs });
        const [errors] = await store.query('SELECT count(*) AS n, count(DISTINCT id) AS ids FROM errors WHERE project_id = $project', { project: projectId });
        expect(errors).toEqual({ n: stored.errors, ids: stored.errors });
      } finally {
        await store.close();
      }
    }

    /** Moves the writer's and the issues processor's committed offsets back by up to `messages` per partition. */
    async function rewindConsumerGroups(messages: number): Promise<number> {
      const admin = kafkaAdmin();
      await admin.connect();
      let rewound = 0;
      try {
        for (const [groupId, topic] of CONSUMED) {
          const [committed] = await admin.fetchOffsets({ groupId, topics: [topic] });
          const partitions = committed!.partitions.map(({ partition, offset }) => {
            const back = Math.max(0, Number(offset) - messages);
            rewound += Number(offset) - back;
            return { partition, offset: String(back) };
          });
          await admin.setOffsets({ groupId, topic, partitions });
        }
      } finally {
        await admin.disconnect();
      }
      return rewound;
    }
  });
});
