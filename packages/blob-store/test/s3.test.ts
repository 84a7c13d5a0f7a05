import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { S3BlobStore, type S3Options } from '@tlm/blob-store';
import { blobStoreContract } from './contract';

/**
 * The live S3 suite: against the server S3_ENDPOINT names (MinIO, AWS, …) when it is set; else against moto's S3
 * server when Python has moto (so CI exercises the adapter too); else skipped with one printed line.
 */
const configured = process.env['S3_ENDPOINT'];
const motoAvailable = !configured && spawnSync('python3', ['-c', 'import moto.server'], { stdio: 'ignore', timeout: 30_000 }).status === 0;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Starts `python3 -m moto.server` on a free loopback port and waits until it answers. */
async function startMoto(): Promise<{ endpoint: string; process: ChildProcess }> {
  const port = await freePort();
  const child = spawn('python3', ['-m', 'moto.server', '-H', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
  const endpoint = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      await fetch(`${endpoint}/moto-api/`);
      return { endpoint, process: child };
    } catch {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error('moto server did not start');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

const suite = configured || motoAvailable ? describe : describe.skip;
if (!configured && !motoAvailable) console.log('skipping live S3 suite: set S3_ENDPOINT (with S3_BUCKET and credentials) or install Python moto');

suite('S3BlobStore (live)', () => {
  let moto: ChildProcess | undefined;
  let options: S3Options;
  let store: S3BlobStore;
  // Each run uses its own bucket (and key scope), so runs against one server never see each other's objects.
  const run = `${process.pid}-${Date.now()}`;

  beforeAll(async () => {
    let endpoint = configured;
    if (!endpoint) {
      const started = await startMoto();
      moto = started.process;
      endpoint = started.endpoint;
    }
    options = {
      endpoint,
      bucket: process.env['S3_BUCKET'] ?? `tlm-test-${run}`,
      region: process.env['S3_REGION'] ?? 'us-east-1',
      accessKeyId: process.env['S3_ACCESS_KEY_ID'] ?? 'test',
      secretAccessKey: process.env['S3_SECRET_ACCESS_KEY'] ?? 'test',
      forcePathStyle: (process.env['S3_FORCE_PATH_STYLE'] ?? 'true') === 'true',
    };
    store = await S3BlobStore.connect(options);
  }, 60_000);
  afterAll(async () => {
    await store?.deletePrefix(`run-${run}/`);
    await store?.close();
    // Waits for moto to exit: a child still running keeps the Jest worker from exiting.
    if (moto && moto.exitCode === null && moto.signalCode === null) {
      const exited = once(moto, 'exit');
      moto.kill('SIGTERM');
      await exited;
    }
  });

  blobStoreContract(() => store, `run-${run}`);

  it('creates its bucket at start when the bucket does not exist, and a second start finds it', async () => {
    const fresh = { ...options, bucket: `tlm-fresh-${run}` };
    const first = await S3BlobStore.connect(fresh);
    await first.put('k/v', Buffer.from('in a new bucket'));
    const second = await S3BlobStore.connect(fresh);
    expect((await second.get('k/v'))!.toString()).toBe('in a new bucket');
    await first.deletePrefix('');
    await first.close();
    await second.close();
  });

  it('deletes more keys than one DeleteObjects request takes', async () => {
    const prefix = `run-${run}/many/`;
    for (let start = 0; start < 1_005; start += 50) {
      const names = Array.from({ length: Math.min(50, 1_005 - start) }, (_, i) => `${prefix}${String(start + i).padStart(4, '0')}`);
      await Promise.all(names.map((name) => store.put(name, Buffer.from(name))));
    }
    expect(await store.list(prefix)).toHaveLength(1_005);
    expect(await store.deletePrefix(prefix)).toBe(1_005);
    expect(await store.list(prefix)).toEqual([]);
  }, 120_000);

  it('refuses to start when the server cannot be reached', async () => {
    await expect(S3BlobStore.connect({ ...options, endpoint: 'http://127.0.0.1:9', bucket: `tlm-unreachable-${run}` })).rejects.toThrow(/ECONNREFUSED/);
  });
});
