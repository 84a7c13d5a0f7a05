import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openIsolatedPostgres, postgresUnavailableReason, startSmallFleet, type SmallFleet } from '@tlm/testkit';
import { logItem } from './data';
import { ingestOverHttp } from './ingest';
import { call } from './server';
import { rate } from './stats';

// The test broker of deploy/kafka (plain JavaScript, shared with `make test`).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const broker = require(path.join(__dirname, '..', '..', 'deploy', 'kafka', 'broker.js')) as {
  unavailableReason(): string | undefined;
  startBroker(): Promise<{ brokers: string; version: string; stop(): Promise<void> }>;
};

/** A project and its secret key, made through the fleet's public address. */
async function provision(fleet: SmallFleet, name: string): Promise<string> {
  const url = fleet.gateway.url;
  const session = await call(`${url}/api/auth/signup`, 'POST', { email: `bench-fleet-${name}-${Date.now()}@example.com`, password: 'benchmark password' });
  const orgId = session.organization.id as string;
  const project = await call(`${url}/api/orgs/${orgId}/projects`, 'POST', { name }, session.token);
  const key = await call(`${url}/api/orgs/${orgId}/projects/${project.id}/keys`, 'POST', { name, type: 'secret' }, session.token);
  return key.key as string;
}

/** Sends `items` logs to `target` and then waits until the storage node's GQL counts them all. */
async function run(fleet: SmallFleet, target: string, key: string, items: number, concurrency: number): Promise<{ accepted: number; stored: number }> {
  const started = performance.now();
  const sent = await ingestOverHttp({ url: target, key, path: '/v1/logs', makeItem: logItem, offset: 0, total: items, batchSize: 100, concurrency });
  for (;;) {
    const answer = await call(`${fleet.gateway.url}/v1/gql/query`, 'POST', { q: 'from:logs | count' }, key);
    if (Number(answer.data.results[0]?.value ?? 0) >= items) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { accepted: sent.itemsPerSecond, stored: items / ((performance.now() - started) / 1000) };
}

/**
 * Issue "A real Kafka broker": logs/s through a small fleet of separate processes on one machine, the test broker and
 * the PostgreSQL server: into one ingest gateway directly (the baseline), then through the API gateway taking turns
 * between two; accepted (the last 202) and stored (until the storage node's GQL count has every row).
 */
export async function fleetSection(options: { items: number; concurrency: number }): Promise<Record<string, number>> {
  const reason = broker.unavailableReason() ?? postgresUnavailableReason();
  if (reason) {
    console.log(`\nfleet: skipped (${reason})`);
    return {};
  }
  const kafka = await broker.startBroker();
  const postgres = await openIsolatedPostgres(2);
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tlm-bench-fleet-'));
  const blobDir = mkdtempSync(path.join(tmpdir(), 'tlm-bench-fleet-blobs-'));
  console.log(
    `\nfleet: separate processes (API gateway, 2 ingest gateways, key-admin, one storage node on DuckDB) on Kafka ${kafka.version} and PostgreSQL, ` +
      `${options.items.toLocaleString('en-US')} logs in batches of 100 from ${options.concurrency} clients`,
  );
  let fleet: SmallFleet | undefined;
  try {
    fleet = await startSmallFleet({ brokers: kafka.brokers, databaseUrl: postgres.url, dataDir, blobDir, env: { RATE_LIMIT_ENABLED: 'false' } });
    const direct = await run(fleet, fleet.gateways[0]!.url, await provision(fleet, 'direct'), options.items, options.concurrency);
    const spread = await run(fleet, fleet.gateway.url, await provision(fleet, 'spread'), options.items, options.concurrency);
    console.log(`  one ingest gateway, directly       accepted ${rate(direct.accepted).padStart(12)}   stored ${rate(direct.stored).padStart(12)}`);
    console.log(
      `  API gateway over two gateways      accepted ${rate(spread.accepted).padStart(12)}   stored ${rate(spread.stored).padStart(12)}   ` +
        `(${(spread.accepted / direct.accepted).toFixed(2)}x and ${(spread.stored / direct.stored).toFixed(2)}x the baseline)`,
    );
    return {
      direct_accepted_per_second: direct.accepted,
      direct_stored_per_second: direct.stored,
      two_gateways_accepted_per_second: spread.accepted,
      two_gateways_stored_per_second: spread.stored,
    };
  } finally {
    await fleet?.stop();
    await postgres.dispose();
    await kafka.stop();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(blobDir, { recursive: true, force: true });
  }
}
