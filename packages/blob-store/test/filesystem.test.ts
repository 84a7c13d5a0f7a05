import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FileSystemBlobStore } from '@tlm/blob-store';
import { blobStoreContract } from './contract';

describe('FileSystemBlobStore', () => {
  let root: string;
  let store: FileSystemBlobStore;

  beforeAll(async () => {
    root = path.join(mkdtempSync(path.join(tmpdir(), 'tlm-blobs-')), 'blobs');
    store = await FileSystemBlobStore.open(root);
  });
  afterAll(async () => {
    await store.close();
    rmSync(path.dirname(root), { recursive: true, force: true });
  });

  blobStoreContract(() => store, 'contract');

  it('keeps one file per key under its root and leaves no temporary file behind', async () => {
    await store.put('layout/replays/2026-01-02/s/7', Buffer.from('seven'));
    expect(readdirSync(path.join(root, 'layout', 'replays', '2026-01-02', 's'))).toEqual(['7']);
  });

  it('never lists or reads a temporary file a crash left mid-write', async () => {
    await store.put('crash/replays/2026-01-02/s/0', Buffer.from('committed'));
    writeFileSync(path.join(root, 'crash', 'replays', '2026-01-02', 's', '1~tmp-0123456789ab'), 'torn');
    expect(await store.list('crash/')).toEqual(['crash/replays/2026-01-02/s/0']);
    expect(await store.get('crash/replays/2026-01-02/s/1')).toBeUndefined();
  });

  it('reads what an earlier instance stored on the same root', async () => {
    await store.put('reopen/profiles/2026-01-02/c1', Buffer.from('still here'));
    const reopened = await FileSystemBlobStore.open(root);
    expect((await reopened.get('reopen/profiles/2026-01-02/c1'))!.toString()).toBe('still here');
  });

  it('removes the directories a prefix deletion leaves empty', async () => {
    await store.put('prune/replays/2026-01-02/s/0', Buffer.from('x'));
    await store.deletePrefix('prune/');
    expect(readdirSync(root)).not.toContain('prune');
  });

  it('fails ping when its root is gone', async () => {
    const lonely = await FileSystemBlobStore.open(path.join(path.dirname(root), 'lonely'));
    await lonely.ping();
    rmSync(path.join(path.dirname(root), 'lonely'), { recursive: true });
    await expect(lonely.ping()).rejects.toThrow(/ENOENT/);
  });
});
