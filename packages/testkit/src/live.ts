import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** Environment variables that point a live suite at an engine that is already running. */
export type LiveEngineVariable = 'KAFKA_BROKERS' | 'CLICKHOUSE_URL';

interface StartedEngine {
  /**
   * What the variable would hold: `host:port` brokers for Kafka; for ClickHouse an HTTP URL (credentials included), or
   * `chdb:<data directory>` for chDB (clickhouseConnection reads both).
   */
  target: string;
  stop(): Promise<unknown>;
}

interface LiveEngine {
  label: string;
  /** Why this machine cannot start the engine for a suite, or undefined when it can. */
  unavailable(): string | undefined;
  start(): Promise<StartedEngine>;
}

/** The single-node KRaft broker of deploy/kafka (its pom.xml pins the Kafka version). */
interface LocalKafka {
  unavailableReason(): string | undefined;
  startBroker(): Promise<{ brokers: string; stop(): Promise<void> }>;
}

function localKafka(): LocalKafka {
  return require(path.join(__dirname, '..', '..', '..', 'deploy', 'kafka', 'broker.js')) as LocalKafka;
}

/** True when testcontainers can reach a Docker engine (remote through DOCKER_HOST, or the local socket). */
export function dockerAvailable(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env['DOCKER_HOST']) || existsSync('/var/run/docker.sock');
}

/** Engines pinned so a live run today and one next month test against the same versions. */
const ENGINES: Record<LiveEngineVariable, LiveEngine> = {
  KAFKA_BROKERS: {
    label: 'Kafka',
    unavailable: () => localKafka().unavailableReason(),
    async start() {
      const broker = await localKafka().startBroker();
      return { target: broker.brokers, stop: () => broker.stop() };
    },
  },
  CLICKHOUSE_URL: {
    label: 'ClickHouse',
    // chDB, ClickHouse's engine as a library, stands in for a server where it is installed.
    unavailable() {
      const engine = chdb();
      return 'module' in engine || dockerAvailable() ? undefined : `${engine.reason}, and no Docker engine`;
    },
    async start() {
      if ('module' in chdb()) return startChdb();
      const { ClickHouseContainer } = await import('@testcontainers/clickhouse');
      const container = await new ClickHouseContainer('clickhouse/clickhouse-server:25.3').start();
      const url = new URL(container.getHttpUrl());
      url.username = container.getUsername();
      url.password = container.getPassword();
      return { target: url.toString().replace(/\/$/, ''), stop: () => container.stop() };
    },
  },
};

const ENGINE_START_TIMEOUT_MS = 300_000;
const ENGINE_STOP_TIMEOUT_MS = 60_000;

/**
 * A describe block against a real external engine: the one `envVar` names when it is set (`make test` sets
 * KAFKA_BROKERS to the broker it starts for the whole run), else one started for the suite (Kafka: the local broker of
 * deploy/kafka, which needs Java; ClickHouse: chDB, ClickHouse's engine in this process, on a fresh data directory when
 * `make test` has installed it in deploy/clickhouse, else a testcontainers container, which needs Docker), else the
 * suite is skipped with one printed line saying why. `target()` returns the engine's address inside tests and hooks
 * (not while the suite is being declared); clickhouseConnection turns a ClickHouse one into a store's options.
 */
export function liveSuite(name: string, envVar: LiveEngineVariable, run: (target: () => string) => void): void {
  const engine = ENGINES[envVar];
  const configured = process.env[envVar];
  if (configured) {
    describe(name, () => run(() => configured));
    return;
  }
  const reason = engine.unavailable();
  if (reason) {
    console.log(`skipping live ${engine.label} suite: ${reason}; set ${envVar} to a running ${engine.label}`);
    describe.skip(name, () =>
      run(() => {
        throw new Error(`the live ${engine.label} suite is skipped`);
      }),
    );
    return;
  }
  describe(name, () => {
    let started: StartedEngine | undefined;
    // Jest runs a block's hooks in the order they are declared: the engine starts before the suite's own beforeAll
    // and stops after its afterAll has closed the clients.
    beforeAll(async () => {
      started = await engine.start();
    }, ENGINE_START_TIMEOUT_MS);
    run(() => {
      if (!started) throw new Error(`the ${engine.label} engine did not start`);
      return started.target;
    });
    afterAll(async () => {
      await started?.stop();
    }, ENGINE_STOP_TIMEOUT_MS);
  });
}

/** A live ClickHouse target that names a chDB data directory rather than a server. */
const CHDB_SCHEME = 'chdb:';

interface ChdbConnection {
  chdb: { queryAsync(sql: string): Promise<unknown> };
}

interface ChdbConnectionModule {
  createChdbConnection(options: { path: string }): ChdbConnection;
}

/**
 * A chDB connection in `database`: chDB's connection does not take @clickhouse/client's `database` (it runs
 * everything in `default`), so the connection's session makes the database and switches to it before its first call.
 */
function inDatabase(connection: ChdbConnection, database: string): ChdbConnection {
  const quoted = `\`${database.replace(/`/g, '``')}\``;
  const ready = connection.chdb.queryAsync(`CREATE DATABASE IF NOT EXISTS ${quoted}`).then(() => connection.chdb.queryAsync(`USE ${quoted}`));
  // Each call reports a failed switch itself; close needs none, so a session that could not switch still closes.
  ready.catch(() => undefined);
  return new Proxy(connection, {
    get(target, property) {
      // Read from the connection itself: its getters use private fields, which the proxy does not have.
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      const method = value as (...given: unknown[]) => unknown;
      if (property === 'close') return method.bind(target);
      return async (...args: unknown[]) => {
        await ready;
        return method.apply(target, args);
      };
    },
  });
}

/** Where `make test` installs chDB (deploy/clickhouse/package.json pins it). */
const CHDB_PROJECT = path.join(__dirname, '..', '..', '..', 'deploy', 'clickhouse', 'package.json');

/**
 * chDB on a fresh data directory in this process: `target` is for clickhouseConnection, and `stop` removes the
 * directory once its connections are closed. Rejects, saying why, where chDB is not installed.
 */
export async function startChdb(): Promise<{ target: string; stop(): Promise<void> }> {
  const engine = chdb();
  if (!('module' in engine)) throw new Error(engine.reason);
  const dataDir = await mkdtemp(path.join(tmpdir(), 'tlm-chdb-'));
  // chDB may still be finishing with the closed connections, and one process holds one data directory at a time:
  // the next start waits for that.
  const stop = async () => {
    await (createRequire(CHDB_PROJECT)('chdb') as { drainPending(): Promise<void> }).drainPending();
    await rm(dataDir, { recursive: true, force: true });
  };
  return { target: `${CHDB_SCHEME}${dataDir}`, stop };
}

/** chDB's connection for @clickhouse/client, or why it cannot be loaded here. */
function chdb(): { module: ChdbConnectionModule } | { reason: string } {
  try {
    return { module: createRequire(CHDB_PROJECT)('chdb/connection') as ChdbConnectionModule };
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return { reason: code === 'MODULE_NOT_FOUND' ? 'chDB is not installed in deploy/clickhouse' : `chDB does not load (${(error as Error).message})` };
  }
}

/**
 * How a store connects to a live ClickHouse target (ClickHouseStore.connect's options): over HTTP to a server's URL,
 * its credentials taken out of it, or through chDB connections on a data directory.
 */
export function clickhouseConnection<Connection>(target: string, database: string): { url?: string; username?: string; password?: string; database: string; connection?: () => Connection } {
  if (target.startsWith(CHDB_SCHEME)) {
    const engine = chdb();
    if (!('module' in engine)) throw new Error(`${target} names a chDB directory: ${engine.reason}`);
    const dataDir = target.slice(CHDB_SCHEME.length);
    return { database, connection: () => inDatabase(engine.module.createChdbConnection({ path: dataDir }), database) as Connection };
  }
  const url = new URL(target);
  const username = decodeURIComponent(url.username) || 'default';
  const password = decodeURIComponent(url.password);
  url.username = '';
  url.password = '';
  return { url: url.toString().replace(/\/$/, ''), username, password, database };
}
