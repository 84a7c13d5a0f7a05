import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
// A namespace import, read when called: this module is re-exported by index, which defines Api.
import * as testkit from './index';

const ROOT = path.resolve(__dirname, '../../..');
/** The built entry point of a service; the storage node is the standalone entry point. */
const mainOf = (service: string) => path.join(ROOT, 'services', service, 'dist', 'main.js');
/** Every process of a small fleet checks dashboard tokens with the same secret. */
export const FLEET_JWT_SECRET = 'small-fleet-jwt-secret-0123456789abcdefghij';
/** The dashboard API's token for the storage node's analytics endpoints. */
const FLEET_ANALYTICS_TOKEN = 'small-fleet-analytics-token-0123456789';
/** A bound on a hang of a start on a loaded machine, not a speed. */
export const FLEET_START_MS = 90_000;

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** One process of the fleet, started again on the same port with `start`. */
export interface FleetProcess {
  name: string;
  /** The built entry point's service folder. */
  service: string;
  url: string;
  api: testkit.Api;
  env: Record<string, string>;
  child?: ChildProcess;
  exited?: Promise<number | null>;
  /** What it wrote to stdout and stderr since its last start. */
  output: string;
}

async function defineProcess(name: string, service: string, env: Record<string, string>): Promise<FleetProcess> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  return { name, service, url, api: new testkit.Api(url), env: { HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn', ...env }, output: '' };
}

/** Starts the process and waits for its /readyz. */
export async function startProcess(process_: FleetProcess): Promise<FleetProcess> {
  const child = spawn(process.execPath, [mainOf(process_.service)], { env: { PATH: process.env['PATH'], ...process_.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  process_.child = child;
  process_.output = '';
  process_.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  child.stdout!.on('data', (chunk: Buffer) => (process_.output += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (process_.output += chunk.toString('utf8')));
  const deadline = Date.now() + FLEET_START_MS;
  for (;;) {
    const ready = await process_.api.get('/readyz').then((reply) => reply.status, () => 0);
    if (ready === 200) return process_;
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`${process_.name} did not become ready:\n${process_.output}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Sends `signal` and answers the exit code (null when a signal ended it). */
export async function stopProcess(process_: FleetProcess, signal: NodeJS.Signals): Promise<number | null> {
  if (!process_.child || process_.child.exitCode !== null || process_.child.signalCode !== null) return process_.child?.exitCode ?? null;
  process_.child.kill(signal);
  return process_.exited!;
}

export interface SmallFleet {
  storage: FleetProcess;
  keyAdmin: FleetProcess;
  /** The dashboard API, on the storage node's analytics store (ANALYTICS_URL). */
  dashboard: FleetProcess;
  gateways: FleetProcess[];
  /** The API gateway: the fleet's one public address. */
  gateway: FleetProcess;
  /** Kills whatever still runs. */
  stop(): Promise<void>;
}

/**
 * A small fleet, each service its own process of its built entry point: one storage node (the standalone entry point
 * with KAFKA_BROKERS and DATABASE_URL, on DuckDB under `dataDir`), key-admin, the dashboard API (whose analytics
 * calls the storage node answers), `gateways` ingest gateways and the API gateway in front, all on the broker and
 * Postgres given, sharing `blobDir` for bodies.
 */
export async function startSmallFleet(options: {
  brokers: string;
  databaseUrl: string;
  dataDir: string;
  blobDir: string;
  gateways?: number;
  /** Settings for every process (RATE_LIMIT_ENABLED=false for a benchmark). */
  env?: Record<string, string>;
}): Promise<SmallFleet> {
  const shared = {
    DATABASE_URL: options.databaseUrl,
    KAFKA_BROKERS: options.brokers,
    JWT_SECRET: FLEET_JWT_SECRET,
    TRUSTED_PROXIES: 'loopback',
    KAFKA_TOPIC_PARTITIONS: '3',
    ...options.env,
  };
  const storage = await defineProcess('storage', 'standalone', {
    ...shared,
    DATA_DIR: options.dataDir,
    BLOB_DIR: options.blobDir,
    ADMIN_TOKEN: testkit.TEST_ADMIN_TOKEN,
    ANALYTICS_API_TOKEN: FLEET_ANALYTICS_TOKEN,
    STATS_FLUSH_MS: '100',
  });
  const keyAdmin = await defineProcess('key-admin', 'key-admin', shared);
  const dashboard = await defineProcess('dashboard-api', 'dashboard-api', {
    ...shared,
    ANALYTICS_URL: storage.url,
    ANALYTICS_API_TOKEN: FLEET_ANALYTICS_TOKEN,
    BLOB_DIR: options.blobDir,
    // Sign-ups in tests: scrypt at 2^14 instead of 2^17.
    PASSWORD_COST: '16384',
  });
  const gateways: FleetProcess[] = [];
  for (let n = 1; n <= (options.gateways ?? 2); n++) gateways.push(await defineProcess(`ingest-gateway-${n}`, 'ingest-gateway', { ...shared, BLOB_DIR: options.blobDir }));
  const all = [storage, keyAdmin, dashboard, ...gateways];
  const stop = async () => {
    for (const one of [...all].reverse()) await stopProcess(one, 'SIGKILL');
  };
  try {
    // The storage node migrates the metadata store and subscribes its consumers first.
    await startProcess(storage);
    await Promise.all([startProcess(keyAdmin), startProcess(dashboard), ...gateways.map(startProcess)]);
    const gateway = await defineProcess('api-gateway', 'api-gateway', {
      INGEST_GATEWAY_URL: gateways.map((one) => one.url).join(','),
      QUERY_URL: storage.url,
      KEY_ADMIN_URL: keyAdmin.url,
      DASHBOARD_API_URL: dashboard.url,
      ALERTS_URL: storage.url,
      AI_URL: storage.url,
      EXPORTS_URL: storage.url,
      STATUS_PAGES_URL: storage.url,
    });
    all.push(gateway);
    await startProcess(gateway);
    return { storage, keyAdmin, dashboard, gateways, gateway, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** A counter or gauge of a process's `/metrics`, summed over the label sets that hold `labels`. */
export async function metricValue(process_: FleetProcess, name: string, labels: Record<string, string> = {}): Promise<number> {
  const text = (await process_.api.get('/metrics')).text;
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (Object.entries(labels).every(([key, value]) => line.includes(`${key}="${value}"`))) sum += Number(line.split(' ').at(-1));
  }
  return sum;
}
