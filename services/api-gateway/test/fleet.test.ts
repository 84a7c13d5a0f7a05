import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { TObject } from '@sinclair/typebox';
import { displayPrefix, generateApiKey, hashApiKey, TokenIssuer } from '@tlm/auth';
import { KafkaBus, Topics } from '@tlm/bus';
import { createLogger, loadConfig, newId } from '@tlm/core';
import { insertApiKey, insertMembership, insertOrganization, insertProject, insertUser } from '@tlm/metadata-store';
import { liveSuite, openIsolatedPostgres, postgresUnavailableReason } from '@tlm/testkit';
import { parse } from 'yaml';

const ROOT = path.join(__dirname, '..', '..', '..');
/** Every service with a fleet entry point; standalone is the one-process runner, not a fleet member. */
const FLEET = readdirSync(path.join(ROOT, 'services')).filter(
  (name) => name !== 'standalone' && existsSync(path.join(ROOT, 'services', name, 'src', 'main.ts')),
);

function configSchemaOf(service: string): TObject {
  const module = require(path.join(ROOT, 'services', service, 'src', 'config.ts')) as Record<string, TObject>;
  const schemas = Object.values(module).filter((value) => typeof value === 'object' && value !== null && 'properties' in value);
  expect(schemas).toHaveLength(1);
  return schemas[0]!;
}

describe('docker-compose.yml', () => {
  const compose = parse(readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
    services: Record<string, { environment?: Record<string, string>; image?: string }>;
    'x-env': Record<string, string>;
  };
  /** Names the image's entry point, not a service's configuration. */
  const ENTRY = 'SERVICE';

  it('sets no variable that no fleet service reads', () => {
    const read = new Set(FLEET.flatMap((service) => Object.keys(configSchemaOf(service).properties)));
    const unread = FLEET.flatMap((service) => Object.keys(compose.services[service]!.environment!).filter((name) => name !== ENTRY && !read.has(name)));
    expect([...new Set(unread)]).toEqual([]);
  });

  it.each(FLEET)('sets for %s alone only variables it reads', (service) => {
    const own = Object.keys(compose.services[service]!.environment!).filter((name) => name !== ENTRY && !(name in compose['x-env']));
    const properties = configSchemaOf(service).properties;
    expect(own.filter((name) => !(name in properties))).toEqual([]);
  });

  it('runs Kafka, ClickHouse, Postgres, MinIO and a container for every fleet service', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['clickhouse', 'kafka', 'minio', 'postgres', ...FLEET].sort());
  });

  it.each(FLEET)('gives %s every variable its configuration requires', (service) => {
    const environment = compose.services[service]!.environment!;
    expect(environment['SERVICE']).toBe(service);
    expect(() => loadConfig(configSchemaOf(service), environment)).not.toThrow();
  });
});

describe('fleet entry points', () => {
  it.each(FLEET)('%s refuses to start without its configuration and names the missing variable', (service) => {
    const main = path.join(ROOT, 'services', service, 'dist', 'main.js');
    const result = spawnSync(process.execPath, [main], { env: { PATH: process.env['PATH'] }, encoding: 'utf8', timeout: 20_000 });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/^invalid configuration: .*[A-Z_]+ is required/m);
  });

  it('names the variable of a dependency it cannot reach, without its credentials', () => {
    const main = path.join(ROOT, 'services', 'status-pages', 'dist', 'main.js');
    const result = spawnSync(process.execPath, [main], {
      env: { PATH: process.env['PATH'], PORT: '0', DATABASE_URL: 'postgres://tlm:hunter2@127.0.0.1:1/tlm', JWT_SECRET: 'y'.repeat(40) },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/^DATABASE_URL: cannot use Postgres at 127\.0\.0\.1:1\/tlm: .*ECONNREFUSED/m);
    expect(result.stderr).not.toContain('hunter2');
  });

  it('names a malformed variable and the value it got', () => {
    const main = path.join(ROOT, 'services', 'query', 'dist', 'main.js');
    const result = spawnSync(process.execPath, [main], {
      env: { PATH: process.env['PATH'], PORT: 'eighty', DATABASE_URL: 'postgres://x', CLICKHOUSE_URL: 'http://x', KAFKA_BROKERS: 'x:1', JWT_SECRET: 'y'.repeat(40) },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('PORT must be integer (got "eighty")');
  });
});

describe('fleet configuration', () => {
  const valid = {
    DATABASE_URL: 'postgres://tlm:tlm@postgres:5432/tlm',
    CLICKHOUSE_URL: 'http://clickhouse:8123',
    KAFKA_BROKERS: 'kafka-1:9092, kafka-2:9092,[::1]:9092',
    S3_BUCKET: 'tlm-blobs',
    S3_ENDPOINT: 'http://minio:9000',
    JWT_SECRET: 'y'.repeat(40),
  };

  it('takes connection strings, endpoints and host:port brokers in their documented forms', () => {
    expect(() => loadConfig(configSchemaOf('query'), valid)).not.toThrow();
  });

  it.each([
    ['DATABASE_URL', 'not-a-url'],
    ['DATABASE_URL', 'mysql://tlm@db/tlm'],
    ['CLICKHOUSE_URL', 'clickhouse:8123'],
    ['KAFKA_BROKERS', 'kafka'],
    ['KAFKA_BROKERS', 'kafka:9092,'],
    ['KAFKA_SESSION_TIMEOUT_MS', '5999'],
    ['KAFKA_SESSION_TIMEOUT_MS', '300001'],
    ['S3_ENDPOINT', 'minio'],
  ])('refuses %s=%s at startup, naming the variable and the value (not a secret\'s)', (name, value) => {
    // A connection string may hold a password: DATABASE_URL is named but never echoed.
    const secret = name === 'DATABASE_URL';
    const shown = secret ? '' : ` \\(got ${JSON.stringify(JSON.stringify(value)).slice(1, -1)}\\)`;
    const load = () => loadConfig(configSchemaOf('query'), { ...valid, [name]: value });
    expect(load).toThrow(new RegExp(`^invalid configuration: ${name} must .*${shown}$`));
    if (secret) expect(load).not.toThrow(value);
  });
});

describe('docs/configuration.md', () => {
  it('lists every variable of every service, as generated from the config schemas', () => {
    const { reference } = require(path.join(ROOT, 'scripts', 'config-reference.js')) as { reference: (load: (file: string) => unknown) => string };
    const committed = readFileSync(path.join(ROOT, 'docs', 'configuration.md'), 'utf8');
    expect(committed).toBe(reference((file) => require(`${file}.ts`)));
  });
});

/** A fleet service's entry point running as its own process, and the URL it listens on. */
interface ServiceProcess {
  url: string;
  stop(): Promise<void>;
}

async function startService(service: string, env: Record<string, string>): Promise<ServiceProcess> {
  const child: ChildProcess = spawn(process.execPath, [path.join(ROOT, 'services', service, 'dist', 'main.js')], {
    env: { PATH: process.env['PATH'], PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const listening = /"url":"([^"]+)","msg":"[a-z-]+ listening"/.exec(line);
      if (listening) resolve(listening[1]!);
    });
    void exited.then(() => reject(new Error(`${service} exited before it listened: ${stderr}`)));
    setTimeout(() => reject(new Error(`${service} did not listen within a minute: ${stderr}`)), 60_000).unref();
  }).catch(async (error: unknown) => {
    child.kill('SIGKILL');
    await exited;
    throw error;
  });
  return {
    url,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

liveSuite('fleet services on a live Kafka', 'KAFKA_BROKERS', (brokers) => {
  const postgresMissing = postgresUnavailableReason();
  if (postgresMissing) {
    console.log(`skipping the fleet services on a live Kafka: no Postgres (${postgresMissing})`);
    return;
  }
  const run = randomUUID();
  const jwtSecret = 'f'.repeat(40);
  const blobDir = mkdtempSync(path.join(tmpdir(), 'tlm-fleet-blobs-'));
  let postgres: Awaited<ReturnType<typeof openIsolatedPostgres>>;
  let keyAdmin: ServiceProcess;
  let gateway: ServiceProcess;
  let writerView: KafkaBus;
  const published: { projectId?: string; message?: string }[] = [];
  const account = { userId: newId(), orgId: newId(), projectId: newId(), keyId: newId(), key: generateApiKey('secret', 'us') };

  beforeAll(async () => {
    postgres = await openIsolatedPostgres(2);
    const env = { DATABASE_URL: postgres.url, KAFKA_BROKERS: brokers(), JWT_SECRET: jwtSecret };
    // key-admin migrates the schema before the gateway starts on it.
    keyAdmin = await startService('key-admin', env);
    const { store } = postgres;
    await insertUser(store, { id: account.userId, email: `fleet-${run}@example.com`, name: null, passwordHash: 'x' });
    await insertOrganization(store, { id: account.orgId, name: 'fleet', region: 'us' });
    await insertMembership(store, account.orgId, account.userId, 'owner');
    await insertProject(store, { id: account.projectId, orgId: account.orgId, name: 'fleet', allowBrowserLogs: false });
    await insertApiKey(store, {
      id: account.keyId,
      projectId: account.projectId,
      orgId: account.orgId,
      name: 'fleet',
      type: 'secret',
      scopes: ['*'],
      prefix: displayPrefix(account.key),
      keyHash: hashApiKey(account.key),
      region: 'us',
    });
    // A cached key lives ten minutes here, so only the key change on Kafka can end it sooner.
    gateway = await startService('ingest-gateway', { ...env, BLOB_DIR: blobDir, KEY_CACHE_TTL_MS: '600000' });
    writerView = await KafkaBus.connect({
      brokers: brokers().split(','),
      clientId: 'tlm-fleet-test',
      partitions: 1,
      replicationFactor: 1,
      compression: 'none',
      instanceId: `fleet-${run}`,
      logger: createLogger('fleet-test', 'error'),
    });
    await writerView.subscribe<{ projectId?: string; message?: string }>(Topics.logs, { group: `fleet-writer-${run}` }, async (values) => {
      published.push(...values.filter((value) => value.projectId === account.projectId));
    });
  }, 180_000);

  afterAll(async () => {
    await writerView?.close();
    await gateway?.stop();
    await keyAdmin?.stop();
    await postgres?.dispose();
    rmSync(blobDir, { recursive: true, force: true });
  }, 60_000);

  const sendLog = (message: string) =>
    fetch(`${gateway.url}/v1/logs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${account.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ batch: [{ severity: 'info', message }] }),
    });

  async function waitFor(condition: () => Promise<boolean> | boolean, what: string): Promise<void> {
    const deadline = Date.now() + 60_000;
    while (!(await condition())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  it('reports ready, the broker included, on /readyz of both services', async () => {
    for (const service of [keyAdmin, gateway]) {
      const reply = await fetch(`${service.url}/readyz`);
      expect(reply.status).toBe(200);
      expect(((await reply.json()) as { checks: { name: string; status: string }[] }).checks).toContainEqual({ name: 'bus', status: 'ok' });
    }
  });

  it('answers 202 to a log batch once it is on Kafka, where the writers\' group reads it', async () => {
    const message = `fleet log ${run}`;
    const reply = await sendLog(message);
    expect(reply.status).toBe(202);
    await waitFor(() => published.some((value) => value.message === message), 'the log on tlm.logs.v1');
    expect(published.filter((value) => value.message === message)).toHaveLength(1);
  }, 90_000);

  it('refuses a key revoked at key-admin once the key change has crossed Kafka to the gateway', async () => {
    expect((await sendLog('before the revoke')).status).toBe(202);
    const token = await new TokenIssuer(jwtSecret).issue(account.userId, 0);
    const revoke = await fetch(`${keyAdmin.url}/api/orgs/${account.orgId}/projects/${account.projectId}/keys/${account.keyId}/revoke`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(revoke.status).toBe(200);
    let refused: Response | undefined;
    await waitFor(async () => {
      const reply = await sendLog('after the revoke');
      if (reply.status === 202) return false;
      refused = reply;
      return true;
    }, 'the gateway to refuse the revoked key');
    expect(refused!.status).toBe(401);
    expect(((await refused!.json()) as { error: { code: string } }).error.code).toBe('UNAUTHORIZED');
  }, 90_000);
});
