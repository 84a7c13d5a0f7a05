import { Type } from '@sinclair/typebox';
import { ANALYTICS_TABLES, type AnalyticsStore, type Dialect, type QueryParams, type ResultRow, type TableDefinition } from '@tlm/analytics-store';
import { bearerCredential, hashApiKey, sameDigest } from '@tlm/auth';
import { jsonBody, notFound, parseBody, unauthorized, validationError } from '@tlm/core';
import { Router, type RequestHandler } from 'express';

/**
 * The analytics store of a small fleet's storage node, used by a dashboard API in another process. DuckDB lets one
 * process write its file, so the storage node owns it and answers the dashboard API's reads, erasures and issue
 * snapshots on `/internal/analytics/*`, authenticated with ANALYTICS_API_TOKEN; there is one store and one writer.
 */
export const remoteAnalyticsConfig = {
  ANALYTICS_URL: Type.Optional(
    Type.String({
      format: 'uri',
      pattern: '^https?://',
      description: "A small fleet's storage node (its base URL), whose analytics store this service uses instead of ClickHouse.",
    }),
  ),
  ANALYTICS_API_TOKEN: Type.Optional(
    Type.String({
      minLength: 16,
      secret: true,
      description: "Bearer token of the storage node's /internal/analytics endpoints: the storage node answers them only when it is set, and ANALYTICS_URL's users send it.",
    }),
  ),
};

const Params = Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()]));
const Statement = Type.Object({ sql: Type.String({ minLength: 1 }), params: Type.Optional(Params) }, { additionalProperties: false });
const Insert = Type.Object(
  { table: Type.String({ minLength: 1 }), rows: Type.Array(Type.Record(Type.String(), Type.Unknown())) },
  { additionalProperties: false },
);

const TABLES = new Map<string, TableDefinition<object>>(ANALYTICS_TABLES.map((table) => [table.name, table as TableDefinition<object>]));

function requireToken(token: string | undefined): RequestHandler {
  return (req, _res, next) => {
    if (!token) throw notFound('the internal analytics endpoint is disabled: set ANALYTICS_API_TOKEN');
    const given = bearerCredential(req.headers.authorization);
    if (!given || !sameDigest(hashApiKey(given), hashApiKey(token))) throw unauthorized('invalid analytics token');
    next();
  };
}

/** The storage node's side: the store's reads, changes and inserts for the services that do not own it. */
export function remoteAnalyticsRoutes(store: AnalyticsStore, token: string | undefined): Router {
  const router = Router();
  const internal = [requireToken(token), jsonBody()];
  router.get('/internal/analytics/ping', requireToken(token), async (_req, res) => {
    await store.ping();
    res.json({ dialect: store.dialect });
  });
  router.post('/internal/analytics/query', ...internal, async (req, res) => {
    const { sql, params } = parseBody(Statement, req.body);
    res.json({ rows: await store.query(sql, params) });
  });
  router.post('/internal/analytics/execute', ...internal, async (req, res) => {
    const { sql, params } = parseBody(Statement, req.body);
    await store.execute(sql, params);
    res.json({});
  });
  router.post('/internal/analytics/insert', ...internal, async (req, res) => {
    const { table, rows } = parseBody(Insert, req.body);
    const definition = TABLES.get(table);
    if (!definition) throw validationError(`no analytics table is named ${table}`);
    await store.insert(definition, rows);
    res.json({});
  });
  return router;
}

/** The client side: an AnalyticsStore whose every call is answered by the storage node. */
export class RemoteAnalyticsStore implements AnalyticsStore {
  private constructor(
    private readonly baseUrl: string,
    private readonly token: string,
    readonly dialect: Dialect,
  ) {}

  /** Connects to the storage node and learns its store's dialect. */
  static async connect(url: string, token: string): Promise<RemoteAnalyticsStore> {
    const baseUrl = url.replace(/\/+$/, '');
    const answer = await call<{ dialect: Dialect }>(baseUrl, token, 'GET', 'ping');
    return new RemoteAnalyticsStore(baseUrl, token, answer.dialect);
  }

  /** The storage node migrates the store it owns. */
  async migrate(): Promise<void> {}

  async insert<Row extends object>(table: TableDefinition<Row>, rows: readonly Row[]): Promise<void> {
    if (rows.length === 0) return;
    await call(this.baseUrl, this.token, 'POST', 'insert', { table: table.name, rows });
  }

  async query(sql: string, params?: QueryParams): Promise<ResultRow[]> {
    return (await call<{ rows: ResultRow[] }>(this.baseUrl, this.token, 'POST', 'query', { sql, params })).rows;
  }

  async execute(sql: string, params?: QueryParams): Promise<void> {
    await call(this.baseUrl, this.token, 'POST', 'execute', { sql, params });
  }

  async ping(): Promise<void> {
    await call(this.baseUrl, this.token, 'GET', 'ping');
  }

  async close(): Promise<void> {}
}

/** Longest wait for the storage node: an erasure over a large project takes seconds, a hang never ends. */
const REMOTE_TIMEOUT_MS = 60_000;

async function call<T>(baseUrl: string, token: string, method: 'GET' | 'POST', operation: string, body?: unknown): Promise<T> {
  const reply = await fetch(`${baseUrl}/internal/analytics/${operation}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    // A storage node that stops answering fails the dashboard's request rather than holding it open.
    signal: AbortSignal.timeout(REMOTE_TIMEOUT_MS),
  });
  const text = await reply.text();
  if (!reply.ok) throw new Error(`the analytics store at ${baseUrl} answered ${operation} with ${reply.status}: ${text.slice(0, 500)}`);
  return JSON.parse(text) as T;
}
