import { existsSync } from 'node:fs';

/** Environment variables that point a live suite at an engine that is already running. */
export type LiveEngineVariable = 'KAFKA_BROKERS' | 'CLICKHOUSE_URL';

interface StartedEngine {
  /** What the variable would hold: `host:port` brokers for Kafka, an HTTP URL (credentials included) for ClickHouse. */
  target: string;
  stop(): Promise<unknown>;
}

interface LiveEngine {
  label: string;
  start(): Promise<StartedEngine>;
}

/** Images pinned so a live run today and one next month test against the same engine versions. */
const ENGINES: Record<LiveEngineVariable, LiveEngine> = {
  KAFKA_BROKERS: {
    label: 'Kafka',
    async start() {
      const { KafkaContainer } = await import('@testcontainers/kafka');
      const container = await new KafkaContainer('confluentinc/cp-kafka:7.9.0').start();
      // 9093 is the listener the container advertises to clients outside its network.
      return { target: `${container.getHost()}:${container.getMappedPort(9093)}`, stop: () => container.stop() };
    },
  },
  CLICKHOUSE_URL: {
    label: 'ClickHouse',
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

/** True when testcontainers can reach a Docker engine (remote through DOCKER_HOST, or the local socket). */
export function dockerAvailable(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env['DOCKER_HOST']) || existsSync('/var/run/docker.sock');
}

/**
 * A describe block against a real external engine: the one `envVar` names when it is set, else one started with
 * testcontainers for the suite when a Docker engine is reachable, else the suite is skipped with one printed line.
 * `target()` returns the engine's address inside tests and hooks (not while the suite is being declared).
 */
export function liveSuite(name: string, envVar: LiveEngineVariable, run: (target: () => string) => void): void {
  const engine = ENGINES[envVar];
  const configured = process.env[envVar];
  if (configured) {
    describe(name, () => run(() => configured));
    return;
  }
  if (!dockerAvailable()) {
    console.log(`skipping live ${engine.label} suite: set ${envVar} or run a Docker engine`);
    describe.skip(name, () =>
      run(() => {
        throw new Error(`the live ${engine.label} suite is skipped`);
      }),
    );
    return;
  }
  describe(name, () => {
    let started: StartedEngine | undefined;
    // Registered before `run` declares its hooks, so the engine is up when the suite's own beforeAll runs.
    beforeAll(async () => {
      started = await engine.start();
    }, ENGINE_START_TIMEOUT_MS);
    afterAll(async () => {
      await started?.stop();
    }, ENGINE_STOP_TIMEOUT_MS);
    run(() => {
      if (!started) throw new Error(`the ${engine.label} container did not start`);
      return started.target;
    });
  });
}
