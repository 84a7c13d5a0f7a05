import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { PostgresStore } from '@tlm/metadata-store';

/** The Postgres server tests of the Postgres adapter use; this machine runs one (DEVELOPERS.md). */
export const TEST_POSTGRES_URL = process.env['TEST_POSTGRES_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';

/**
 * Why the Postgres server cannot be used, or undefined when it answers. Jest declares suites synchronously, so the
 * question is asked once, synchronously, in a child process; a suite is then run or skipped with a printed reason.
 */
export function postgresUnavailableReason(): string | undefined {
  const probe = `const pg = require('pg');
const client = new pg.Client({ connectionString: process.argv[1], connectionTimeoutMillis: 3000 });
client.connect().then(() => client.query('select 1')).then(() => client.end()).then(
  () => process.exit(0),
  (error) => { process.stderr.write(error.message); process.exit(1); });`;
  const result = spawnSync(process.execPath, ['-e', probe, TEST_POSTGRES_URL], {
    // Where `pg` resolves.
    cwd: path.join(__dirname, '..', '..', 'metadata-store'),
    timeout: 10_000,
    encoding: 'utf8',
  });
  if (result.status === 0) return undefined;
  return result.stderr.trim() || result.error?.message || `probe exited with ${String(result.status ?? result.signal)}`;
}

/** A store on a schema of its own, so parallel runs and leftovers never meet; `dispose` drops the schema. */
export async function openIsolatedPostgres(connections: number): Promise<{ store: PostgresStore; url: string; dispose(): Promise<void> }> {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const admin = await PostgresStore.connect(TEST_POSTGRES_URL, 1);
  await admin.query(`create schema ${schema}`);
  const url = `${TEST_POSTGRES_URL}?options=-c%20search_path%3D${schema}`;
  const store = await PostgresStore.connect(url, connections);
  return {
    store,
    url,
    dispose: async () => {
      await store.close();
      await admin.query(`drop schema ${schema} cascade`);
      await admin.close();
    },
  };
}
