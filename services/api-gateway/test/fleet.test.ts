import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { TObject } from '@sinclair/typebox';
import { loadConfig } from '@tlm/core';
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
  };

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
