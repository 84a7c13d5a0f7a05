import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { migrate, PGliteStore } from '@tlm/metadata-store';

const METADATA_STORE = path.resolve(__dirname, '../../metadata-store');
const PREFIX = 'tlm-test-metadata-';

/**
 * What makes a migrated metadata store: the migrations and PGlite's version. A template is reused only while both are
 * the same, so a new migration or PGlite version builds a new one.
 */
function templateKey(): string {
  const hash = createHash('sha256');
  const migrations = path.join(METADATA_STORE, 'migrations');
  for (const file of readdirSync(migrations).sort()) hash.update(file).update(readFileSync(path.join(migrations, file)));
  // The package's exports do not include its package.json; pnpm links it under the metadata store.
  const pglite = path.join(METADATA_STORE, 'node_modules', '@electric-sql', 'pglite', 'package.json');
  hash.update(String((JSON.parse(readFileSync(pglite, 'utf8')) as { version: string }).version));
  return hash.digest('hex').slice(0, 16);
}

let template: Promise<string> | undefined;

/**
 * A PGlite data directory with every migration applied, built once for all test processes (in the system's temp
 * directory, keyed by the migrations and PGlite's version). PGlite's initdb takes 3 to 6 s of CPU; copying the
 * template takes about half a second, and each test server starts from a copy.
 */
export function metadataTemplate(): Promise<string> {
  template ??= (async () => {
    const key = templateKey();
    const dir = path.join(tmpdir(), `${PREFIX}${key}`);
    if (existsSync(path.join(dir, 'PG_VERSION'))) return dir;
    const building = mkdtempSync(path.join(tmpdir(), `${PREFIX}build-`));
    const store = await PGliteStore.open(path.join(building, 'metadata'));
    await migrate(store);
    await store.close();
    try {
      // Atomic: another test process building the same template at the same time finds one whole directory.
      renameSync(path.join(building, 'metadata'), dir);
    } catch (error) {
      if (!existsSync(path.join(dir, 'PG_VERSION'))) throw error;
    } finally {
      rmSync(building, { recursive: true, force: true });
    }
    // Templates of other migrations are of no further use.
    for (const other of readdirSync(tmpdir()).filter((name) => name.startsWith(PREFIX) && name !== `${PREFIX}${key}` && !name.startsWith(`${PREFIX}build-`))) {
      rmSync(path.join(tmpdir(), other), { recursive: true, force: true });
    }
    return dir;
  })();
  return template;
}

/** Gives a fresh data directory a migrated metadata store. */
export async function seedMetadata(dataDir: string): Promise<void> {
  cpSync(await metadataTemplate(), path.join(dataDir, 'metadata'), { recursive: true });
}

/**
 * A migrated PGlite metadata store of its own, for a suite that needs one without a server: a copy of the template in
 * a fresh directory (an in-memory store migrated from nothing costs about two seconds). `dispose` closes it and
 * removes the directory.
 */
export async function openMigratedPGlite(): Promise<{ store: PGliteStore; dispose(): Promise<void> }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'tlm-test-pglite-'));
  let store: PGliteStore;
  try {
    await seedMetadata(dir);
    store = await PGliteStore.open(path.join(dir, 'metadata'));
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    store,
    dispose: async () => {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
