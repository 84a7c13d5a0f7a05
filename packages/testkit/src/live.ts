import { existsSync } from 'node:fs';
import path from 'node:path';

/** Environment variables that point a live suite at an engine that is already running. */
export type LiveEngineVariable = 'KAFKA_BROKERS' | 'CLICKHOUSE_URL';

interface StartedEngine {
  /** What the variable would hold: `host:port` brokers for Kafka, an HTTP URL (credentials included) for ClickHouse. */
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
    unavailable: () => (dockerAvailable() ? undefined : 'no Docker engine'),
    async start() {
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
 * deploy/kafka, which needs Java; ClickHouse: a testcontainers container, which needs Docker), else the suite is
 * skipped with one printed line saying why. `target()` returns the engine's address inside tests and hooks (not while
 * the suite is being declared).
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
