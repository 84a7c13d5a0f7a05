import { randomBytes } from 'node:crypto';
import type { BlobStore } from '@tlm/blob-store';

/**
 * What every BlobStore adapter must do, run against the real filesystem and a real S3-compatible server. `store()`
 * is read inside tests, after the suite's beforeAll opened it; `scope` keeps suites that share a bucket apart.
 */
export function blobStoreContract(store: () => BlobStore, scope: string): void {
  const key = (rest: string) => `${scope}/${rest}`;

  it('returns the bytes it stored, byte for byte, binary included', async () => {
    const body = Buffer.concat([Buffer.from([0x1f, 0x8b, 0x00, 0xff, 0x0a, 0x0d]), randomBytes(256 * 1024)]);
    await store().put(key('replays/2026-01-02/session-a/0'), body);
    const read = await store().get(key('replays/2026-01-02/session-a/0'));
    expect(read).toBeInstanceOf(Buffer);
    expect(read!.equals(body)).toBe(true);
  });

  it('stores an empty body as zero bytes, not as a missing key', async () => {
    await store().put(key('empty/blob'), Buffer.alloc(0));
    expect((await store().get(key('empty/blob')))?.length).toBe(0);
  });

  it('answers undefined for a key that was never stored', async () => {
    expect(await store().get(key('never/stored'))).toBeUndefined();
  });

  it('replaces the bytes of a key that is stored again', async () => {
    await store().put(key('overwrite/one'), Buffer.from('first version, longer than the second'));
    await store().put(key('overwrite/one'), Buffer.from('second'));
    expect((await store().get(key('overwrite/one')))!.toString()).toBe('second');
  });

  it('keeps one whole body when two puts of one key race', async () => {
    const first = Buffer.alloc(512 * 1024, 'a');
    const second = Buffer.alloc(300 * 1024, 'b');
    await Promise.all([store().put(key('race/one'), first), store().put(key('race/one'), second)]);
    const read = (await store().get(key('race/one')))!;
    expect(read.equals(first) || read.equals(second)).toBe(true);
    expect(await store().list(key('race/'))).toEqual([key('race/one')]);
  });

  it('lists the keys under a prefix in order, a partial last segment included', async () => {
    for (const name of ['p1/replays/2026-01-02/s/1', 'p1/replays/2026-01-02/s/0', 'p1/replays/2026-01-03/s/0', 'p1/profiles/2026-01-02/c', 'p2/replays/2026-01-02/s/0']) {
      await store().put(key(name), Buffer.from(name));
    }
    expect(await store().list(key('p1/replays/'))).toEqual(
      ['p1/replays/2026-01-02/s/0', 'p1/replays/2026-01-02/s/1', 'p1/replays/2026-01-03/s/0'].map(key),
    );
    expect(await store().list(key('p1/replays/2026-01-0'))).toHaveLength(3);
    expect(await store().list(key('p1/replays/2026-01-03'))).toEqual([key('p1/replays/2026-01-03/s/0')]);
    expect(await store().list(key('p1/'))).toHaveLength(4);
    expect(await store().list(key('nothing/here/'))).toEqual([]);
  });

  it('deletes exactly the keys under a prefix and says how many', async () => {
    for (const name of ['d1/replays/2026-01-02/s/0', 'd1/replays/2026-01-02/s/1', 'd1/profiles/2026-01-02/c', 'd2/replays/2026-01-02/s/0']) {
      await store().put(key(name), Buffer.from(name));
    }
    expect(await store().deletePrefix(key('d1/replays/'))).toBe(2);
    expect(await store().list(key('d1/'))).toEqual([key('d1/profiles/2026-01-02/c')]);
    expect(await store().get(key('d1/replays/2026-01-02/s/0'))).toBeUndefined();
    expect(await store().deletePrefix(key('d1/'))).toBe(1);
    expect(await store().list(key('d2/'))).toEqual([key('d2/replays/2026-01-02/s/0')]);
    expect(await store().deletePrefix(key('d1/'))).toBe(0);
  });

  it.each(['../escape', '/absolute', 'a//b', 'a/../b', 'a/b~tmp-1', 'a/b c', '', 'a/'])('refuses the key %j', async (bad) => {
    await expect(store().put(bad, Buffer.from('x'))).rejects.toThrow('invalid blob key');
    await expect(store().get(bad)).rejects.toThrow('invalid blob key');
  });

  it('refuses a prefix that could leave the store', async () => {
    await expect(store().list('../')).rejects.toThrow('invalid blob key prefix');
    await expect(store().deletePrefix('/')).rejects.toThrow('invalid blob key prefix');
  });

  it('answers ping', async () => {
    await expect(store().ping()).resolves.toBeUndefined();
  });
}
