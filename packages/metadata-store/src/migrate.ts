import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { MetadataStore } from './store';

/** Migrations live beside src/ and dist/, so the same files serve tests and builds. */
export const MIGRATIONS_DIR = path.join(__dirname, '..', 'migrations');

export interface Migration {
  version: string;
  sql: string;
}

export function readMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith('.sql'))
    .sort()
    .map((file) => ({ version: file.replace(/\.sql$/, ''), sql: readFileSync(path.join(dir, file), 'utf8') }));
}

/**
 * Applies the migrations not yet recorded, in one transaction under an advisory lock, so fleet services
 * starting together never apply one twice. Returns the versions applied.
 */
export async function migrate(store: MetadataStore, migrations = readMigrations()): Promise<string[]> {
  return store.transaction(async (tx) => {
    await tx.query(`select pg_advisory_xact_lock(hashtext('tlm.schema_migrations'))`);
    await tx.query(
      `create table if not exists schema_migrations (version text primary key, applied_at timestamptz not null default now())`,
    );
    const done = new Set((await tx.query<{ version: string }>('select version from schema_migrations')).map((row) => row.version));
    const applied: string[] = [];
    for (const migration of migrations) {
      if (done.has(migration.version)) continue;
      for (const statement of splitStatements(migration.sql)) await tx.query(statement);
      await tx.query('insert into schema_migrations (version) values ($1)', [migration.version]);
      applied.push(migration.version);
    }
    return applied;
  });
}

/** Migrations are plain DDL separated by semicolons at line ends; no function bodies, so this split is exact. */
function splitStatements(sql: string): string[] {
  return sql
    .split(/;\s*$/m)
    .map((statement) => statement.replace(/^\s*--.*$/gm, '').trim())
    .filter((statement) => statement.length > 0);
}
