import { randomBytes } from 'node:crypto';
import { constants, type Dirent } from 'node:fs';
import { access, mkdir, open, readdir, readFile, rename, rmdir, unlink } from 'node:fs/promises';
import path from 'node:path';
import { assertBlobKey, assertBlobPrefix, type BlobStore } from './store';

/** Temporary files carry `~`, which no key segment may hold, so a listing never shows a half-written body. */
const TEMP_MARK = '~tmp-';

/** fsync of a directory makes the entries created or renamed in it durable (a file's own fsync does not). */
async function syncDirectory(directory: string): Promise<void> {
  const handle = await open(directory, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

const missing = (error: unknown): boolean => ['ENOENT', 'ENOTDIR'].includes((error as NodeJS.ErrnoException).code ?? '');

/**
 * Standalone blob store: one file per key under `root` (DATA_DIR/blobs). A put writes a temporary file beside the
 * target, fsyncs it, renames it over the target and fsyncs the directory, so after a crash a key holds either its
 * old bytes or its new ones, never a torn file, and a resolved put is on disk.
 */
export class FileSystemBlobStore implements BlobStore {
  private constructor(private readonly root: string) {}

  static async open(root: string): Promise<FileSystemBlobStore> {
    const resolved = path.resolve(root);
    await mkdir(resolved, { recursive: true });
    return new FileSystemBlobStore(resolved);
  }

  async put(key: string, body: Buffer): Promise<void> {
    assertBlobKey(key);
    const file = path.join(this.root, key);
    const directory = path.dirname(file);
    const firstCreated = await mkdir(directory, { recursive: true });
    const temporary = path.join(directory, `${path.basename(file)}${TEMP_MARK}${randomBytes(6).toString('hex')}`);
    const handle = await open(temporary, 'w');
    try {
      await handle.writeFile(body);
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await rename(temporary, file);
    } catch (error) {
      await unlink(temporary).catch(() => undefined);
      throw error;
    }
    await syncDirectory(directory);
    if (firstCreated) {
      // New directories are entries of their parents: sync each parent from the first one created down.
      for (let created = directory; created !== path.dirname(firstCreated); created = path.dirname(created)) {
        await syncDirectory(path.dirname(created));
      }
    }
  }

  async get(key: string): Promise<Buffer | undefined> {
    assertBlobKey(key);
    try {
      return await readFile(path.join(this.root, key));
    } catch (error) {
      if (missing(error)) return undefined;
      throw error;
    }
  }

  async list(prefix: string): Promise<string[]> {
    assertBlobPrefix(prefix);
    const keys: string[] = [];
    await this.walk(this.startOf(prefix), (key) => {
      if (key.startsWith(prefix)) keys.push(key);
    });
    return keys.sort();
  }

  async deletePrefix(prefix: string): Promise<number> {
    const keys = await this.list(prefix);
    for (const key of keys) {
      try {
        await unlink(path.join(this.root, key));
      } catch (error) {
        if (!missing(error)) throw error;
      }
    }
    await this.pruneEmpty(this.startOf(prefix));
    return keys.length;
  }

  async ping(): Promise<void> {
    await access(this.root, constants.W_OK);
  }

  async close(): Promise<void> {}

  /** The deepest directory that holds every key of the prefix. */
  private startOf(prefix: string): string {
    const directory = prefix.endsWith('/') || prefix === '' ? prefix : path.posix.dirname(prefix);
    return path.join(this.root, directory === '.' ? '' : directory);
  }

  private async walk(directory: string, visit: (key: string) => void): Promise<void> {
    const entries = await entriesOf(directory);
    if (!entries) return;
    for (const entry of entries) {
      const full = path.join(directory, entry.name);
      if (entry.isDirectory()) await this.walk(full, visit);
      else if (entry.isFile() && !entry.name.includes(TEMP_MARK)) visit(path.relative(this.root, full).split(path.sep).join('/'));
    }
  }

  /** Removes directories left empty under `directory` (and it, unless it is the root). */
  private async pruneEmpty(directory: string): Promise<void> {
    const entries = await entriesOf(directory);
    if (!entries) return;
    for (const entry of entries) if (entry.isDirectory()) await this.pruneEmpty(path.join(directory, entry.name));
    if (directory !== this.root) await rmdir(directory).catch(() => undefined);
  }
}

/** The entries of a directory; undefined when it does not exist. */
async function entriesOf(directory: string): Promise<Dirent[] | undefined> {
  try {
    return await readdir(directory, { withFileTypes: true });
  } catch (error) {
    if (missing(error)) return undefined;
    throw error;
  }
}
