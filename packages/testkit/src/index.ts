import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Writable } from 'node:stream';
import { crc32, deflateRawSync } from 'node:zlib';
import { loadConfig, MAX_JSON_CONTAINERS_PER_RECEIVED_BYTE, MIN_JSON_CONTAINER_BUDGET } from '@tlm/core';
import { StandaloneConfig, startStandalone, type Standalone } from '@tlm/standalone';
import pino from 'pino';
import { seedMetadata } from './metadataTemplate';
import { openIsolatedPostgres } from './postgres';

export * from './live';

export interface TestServer {
  url: string;
  api: Api;
  standalone: Standalone;
  dataDir: string;
  /** Closes the server and removes its data directory. */
  close(): Promise<void>;
}

/** The operator's token of test servers, which `setPlan` uses; a test passes ADMIN_TOKEN: '' for a server without one. */
export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';

/**
 * Starts the standalone server on 127.0.0.1 and an ephemeral port with a fresh data directory. Rate limits are
 * off unless a test turns them on; `logs` receives the server's JSON log lines. A variable given as '' is unset.
 */
export async function startTestServer(env: Record<string, string> = {}, logs?: Writable): Promise<TestServer> {
  const dataDir = env['DATA_DIR'] ?? mkdtempSync(path.join(tmpdir(), 'tlm-test-'));
  const settings: Record<string, string> = {
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    RATE_LIMIT_ENABLED: 'false',
    KEY_LAST_USED_FLUSH_MS: '100',
    STATS_FLUSH_MS: '50',
    // Tests read what they just sent: an ingest answer waits for its commit (the journal keeps it durable either way).
    INGEST_COMMIT_WAIT_MS: '60000',
    ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    // Hundreds of sign-ups: scrypt at 2^14 instead of 2^17 saves minutes of CPU; the rehash tests set the real cost.
    PASSWORD_COST: '16384',
    // A web app built elsewhere (vite build --outDir) is served instead of services/web/dist when this names it.
    ...(process.env['WEB_DIST_DIR'] ? { WEB_DIST_DIR: process.env['WEB_DIST_DIR'] } : {}),
    ...env,
  };
  const config = loadConfig(StandaloneConfig, Object.fromEntries(Object.entries(settings).filter(([, value]) => value !== '')));
  // A fresh PGlite metadata store starts as a copy of a migrated one: initdb costs seconds of CPU per server.
  if (!config.DATABASE_URL && !existsSync(path.join(dataDir, 'metadata'))) await seedMetadata(dataDir);
  const logger = logs ? pino({ level: 'info', base: { service: 'standalone' } }, logs) : pino({ level: 'silent' });
  const standalone = await startStandalone(config, logger);
  return {
    url: standalone.url,
    api: new Api(standalone.url),
    standalone,
    dataDir,
    close: async () => {
      await standalone.close();
      if (!env['DATA_DIR']) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface Reply<T = any> {
  status: number;
  body: T;
  text: string;
  headers: Headers;
}

export interface RequestOptions {
  /** Bearer credential: an API key or a JWT. */
  token?: string;
  /** Sent as JSON unless it is a string or a Buffer. */
  body?: unknown;
  headers?: Record<string, string>;
}

/** A thin HTTP client over fetch that never throws for a status. */
export class Api {
  constructor(readonly baseUrl: string) {}

  async request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<Reply<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers['authorization'] = `Bearer ${options.token}`;
    // Uint8Array<ArrayBuffer> is a body under both Node's fetch types and the DOM's (the browser tests compile with both).
    let body: string | Uint8Array<ArrayBuffer> | undefined;
    if (typeof options.body === 'string') body = options.body;
    else if (Buffer.isBuffer(options.body)) body = options.body as Uint8Array<ArrayBuffer>;
    else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(`${this.baseUrl}${path}`, { method, headers, body });
    const text = await response.text();
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: response.status, body: parsed as T, text, headers: response.headers };
  }

  get<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>('GET', path, options);
  }
  post<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>('POST', path, options);
  }
  put<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>('PUT', path, options);
  }
  patch<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>('PATCH', path, options);
  }
  delete<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>('DELETE', path, options);
  }
}

let counter = 0;
export function uniqueEmail(label = 'user'): string {
  counter += 1;
  return `${label}-${process.pid}-${Date.now()}-${counter}@example.com`;
}

export interface Session {
  token: string;
  user: { id: string; email: string; name: string | null };
  organization: { id: string; name: string; plan: string; region: string };
  password: string;
}

export async function signup(api: Api, input: { email?: string; password?: string; name?: string } = {}): Promise<Session> {
  const password = input.password ?? 'correct horse battery staple';
  const reply = await api.post('/api/auth/signup', { body: { email: input.email ?? uniqueEmail(), password, name: input.name ?? 'Test User' } });
  if (reply.status !== 201) throw new Error(`signup failed: ${reply.status} ${reply.text}`);
  return { ...reply.body, password };
}

export async function createProject(api: Api, session: Session, input: { name?: string; allow_browser_logs?: boolean } = {}) {
  const reply = await api.post(`/api/orgs/${session.organization.id}/projects`, { token: session.token, body: { name: 'web', ...input } });
  if (reply.status !== 201) throw new Error(`project creation failed: ${reply.status} ${reply.text}`);
  return reply.body as { id: string; dsn_id: number; name: string; allow_browser_logs: boolean };
}

export async function createKey(api: Api, session: Session, projectId: string, input: { name?: string; type: 'public' | 'secret'; scopes?: string[] }) {
  const reply = await api.post(`/api/orgs/${session.organization.id}/projects/${projectId}/keys`, {
    token: session.token,
    body: { name: `${input.type} key`, ...input },
  });
  if (reply.status !== 201) throw new Error(`key creation failed: ${reply.status} ${reply.text}`);
  return reply.body as { id: string; key: string; prefix: string; type: string; scopes: string[]; dsn?: string };
}

/** Sets the organization's plan as the operator does (PUT /admin/orgs/:org/plan with the test servers' admin token). */
export async function setPlan(api: Api, session: Session, plan: 'free' | 'starter' | 'pro' | 'team'): Promise<void> {
  const reply = await api.put(`/admin/orgs/${session.organization.id}/plan`, { token: TEST_ADMIN_TOKEN, body: { plan } });
  if (reply.status !== 200) throw new Error(`plan change failed: ${reply.status} ${reply.text}`);
}

/** A signed-up user with a project, a secret key (`*`) and a public key (`ingest:write`). */
export async function setupProject(api: Api, options: { allow_browser_logs?: boolean } = {}) {
  const session = await signup(api);
  const project = await createProject(api, session, { allow_browser_logs: options.allow_browser_logs ?? false });
  const secret = await createKey(api, session, project.id, { type: 'secret' });
  const publicKey = await createKey(api, session, project.id, { type: 'public' });
  return { session, project, secretKey: secret.key, publicKey: publicKey.key, secret, public: publicKey };
}

export type ProjectSetup = Awaited<ReturnType<typeof setupProject>>;

const started = <T>(value: T | undefined): T => {
  if (value === undefined) throw new Error('the test server starts in beforeAll; read it inside tests and hooks');
  return value;
};

/**
 * A test file's server with one project: started before the file's tests (jest's beforeAll), closed after them.
 * Read `server` and `setup` inside tests and hooks; they do not exist while the file is being loaded.
 */
export function serverWithProject(): { readonly server: TestServer; readonly setup: ProjectSetup } {
  let server: TestServer | undefined;
  let setup: ProjectSetup | undefined;
  beforeAll(async () => {
    server = await startTestServer();
    setup = await setupProject(server.api);
  });
  afterAll(() => server?.close());
  return {
    get server() {
      return started(server);
    },
    get setup() {
      return started(setup);
    },
  };
}

/**
 * A test file's server whose metadata store is a schema of its own on the Postgres server, where concurrent requests
 * really overlap (PGlite runs one query at a time): started before the file's tests, closed and its schema dropped
 * after them. Read `server` inside tests and hooks.
 */
export function serverOnPostgres(): { readonly server: TestServer } {
  let database: Awaited<ReturnType<typeof openIsolatedPostgres>> | undefined;
  let server: TestServer | undefined;
  beforeAll(async () => {
    database = await openIsolatedPostgres(1);
    server = await startTestServer({ DATABASE_URL: database.url });
  });
  afterAll(async () => {
    await server?.close();
    await database?.dispose();
  });
  return {
    get server() {
      return started(server);
    },
  };
}

/** The rows of a GQL query sent with `token` to `POST /v1/gql/query`; throws on any answer but 200. */
export async function gqlRows(api: Api, token: string, q: string): Promise<Record<string, any>[]> {
  const reply = await api.post('/v1/gql/query', { token, body: { q } });
  if (reply.status !== 200) throw new Error(`GQL failed: ${reply.status} ${reply.text}`);
  return reply.body.data.results as Record<string, any>[];
}

/** Retries `check` until it stops throwing, for effects that land shortly after a response (last_used_at). */
export async function eventually<T>(check: () => Promise<T>, timeoutMs = 5_000, intervalMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  }
}
/**
 * What the service answers, in `error.message` of a 400 VALIDATION_ERROR, to a compressed body of `receivedBytes` that
 * inflates to denser JSON than they allow (docs/api.md).
 */
export const denseBodyRefusal = (receivedBytes: number) =>
  `the body inflates to more than ${Math.max(MIN_JSON_CONTAINER_BUDGET, MAX_JSON_CONTAINERS_PER_RECEIVED_BYTE * receivedBytes).toLocaleString('en-US')} ` +
  `JSON objects and arrays (at most ${MAX_JSON_CONTAINERS_PER_RECEIVED_BYTE} per byte received, or ${MIN_JSON_CONTAINER_BUDGET.toLocaleString('en-US')})`;

/**
 * Gzip of `text` whose header carries `padBytes` of comment (RFC 1952 FCOMMENT): bytes a client sends that inflate to
 * nothing, to buy a decoder a larger budget if it were counted on them.
 */
export function paddedGzip(text: string, padBytes: number): Buffer {
  const data = Buffer.from(text);
  const header = Buffer.from([0x1f, 0x8b, 8, 0x10, 0, 0, 0, 0, 0, 0xff]);
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc32(data), 0);
  trailer.writeUInt32LE(data.length % 2 ** 32, 4);
  return Buffer.concat([header, Buffer.alloc(padBytes, 'a'), Buffer.from([0]), deflateRawSync(data), trailer]);
}

export * from './postgres';
export * from './browser';
export * from './fixtures';
export * from './smtp';
export * from './fleet';
export { openMigratedPGlite, seedMetadata } from './metadataTemplate';
export { seededRandom } from './random';
