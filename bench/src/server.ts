import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const STANDALONE_MAIN = path.join(__dirname, '..', '..', 'services', 'standalone', 'dist', 'main.js');
/** The operator's token of the bench server: provisioning puts the bench organization on the team plan with it. */
const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef';

export interface BenchServer {
  url: string;
  dataDir: string;
  process: ChildProcess;
  /** CPU time the server process has used so far, all threads (utime + stime), in microseconds. */
  cpuMicros(): number;
  stop(): Promise<void>;
}

/** Linux: fields 14 and 15 of /proc/<pid>/stat are user and system time in clock ticks (100 per second). */
function processCpuMicros(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/** Starts `node services/standalone/dist/main.js` as its own process, as `make start` does, on a free port. */
export async function startServer(
  port: number,
  dataDir = mkdtempSync(path.join(tmpdir(), 'tlm-bench-')),
  /** Settings of the server's own, e.g. LOG_SCAN_INTERVAL_MS. */
  env: Record<string, string> = {},
): Promise<BenchServer> {
  // BENCH_SERVER_ARGS passes Node flags to the server only, e.g. "--cpu-prof --cpu-prof-dir=/tmp/profiles".
  const nodeArgs = (process.env['BENCH_SERVER_ARGS'] ?? '').split(' ').filter(Boolean);
  // BENCH_SERVER_WRAPPER runs the server under another program, e.g. "heaptrack" for native allocations by stack.
  const [command, ...args] = [...(process.env['BENCH_SERVER_WRAPPER'] ?? '').split(' ').filter(Boolean), process.execPath, ...nodeArgs, STANDALONE_MAIN];
  const child = spawn(command!, args, {
    // Two malloc arenas unless the bench's own environment names a number, as `make start` runs it.
    env: { MALLOC_ARENA_MAX: '2', ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn', RATE_LIMIT_ENABLED: 'false', ADMIN_TOKEN, ...env },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  // A bound on a hang, not a speed: PGlite's start alone has taken over 30 s on a busy machine.
  const deadline = Date.now() + 90_000;
  for (;;) {
    try {
      if ((await fetch(`${url}/readyz`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline || child.exitCode !== null) {
      // A server that is still starting would hold the port for the next section.
      child.kill('SIGKILL');
      throw new Error('standalone server did not become ready');
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    dataDir,
    process: child,
    cpuMicros: () => processCpuMicros(child.pid!),
    stop: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

async function call(url: string, method: string, body: unknown, token?: string): Promise<any> {
  const response = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${url} answered ${response.status}: ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/** Signs up, creates a project on the team plan and a secret key; returns the key. */
export async function provisionKey(url: string): Promise<{ key: string; projectId: string; token: string; orgId: string }> {
  const session = await call(`${url}/api/auth/signup`, 'POST', { email: `bench-${Date.now()}@example.com`, password: 'benchmark password' });
  const orgId = session.organization.id as string;
  await call(`${url}/admin/orgs/${orgId}/plan`, 'PUT', { plan: 'team' }, ADMIN_TOKEN);
  const project = await call(`${url}/api/orgs/${orgId}/projects`, 'POST', { name: 'bench' }, session.token);
  const key = await call(`${url}/api/orgs/${orgId}/projects/${project.id}/keys`, 'POST', { name: 'bench', type: 'secret' }, session.token);
  return { key: key.key, projectId: project.id, token: session.token, orgId };
}

export { call };
