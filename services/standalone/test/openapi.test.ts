import { validate, compileErrors } from '@readme/openapi-parser';
import { ApiError, parseBody } from '@tlm/core';
import { MAX_STACK_FRAMES, NewAlertRule, NewKey, SignupBody, SingleQueryBody, SymbolicateRequest, jsonSchemaOf, openApiPath } from '@tlm/api-schemas';
import { LogItemSchema, MAX_ERROR_FRAMES } from '@tlm/signals';
import { eventually, gqlRows, serverWithProject } from '@tlm/testkit';
import type { TSchema } from '@sinclair/typebox';

const context = serverWithProject();

type OpenApiDocument = { openapi: string; paths: Record<string, Record<string, any>> };
let document: OpenApiDocument;

beforeAll(async () => {
  document = (await context.server.api.get('/v1/openapi.json')).body;
});

interface Layer {
  route?: { path: string | string[]; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
  rawPath?: string | string[];
}

/** Every method and path the Express app registers, walking mounted routers and their mount paths. */
function registeredRoutes(stack: Layer[], prefix = ''): string[] {
  return stack.flatMap((layer) => {
    if (layer.route) {
      const paths = ([] as string[]).concat(layer.route.path);
      return paths.flatMap((path) => Object.keys(layer.route!.methods).map((method) => `${method.toUpperCase()} ${prefix}${path}`));
    }
    if (!layer.handle?.stack) return [];
    const mounts = ([] as (string | undefined)[]).concat(layer.rawPath);
    return mounts.flatMap((mount) => registeredRoutes(layer.handle!.stack!, prefix + (mount === undefined || mount === '/' ? '' : mount)));
  });
}

/** The documented schema of a route's JSON request body. */
const requestSchema = (method: string, path: string) => document.paths[path]?.[method]?.requestBody?.content?.['application/json']?.schema as TSchema;

/** Whether `schema` (as the document states it) refuses `body`, checked with the server's own validator. */
function refuses(schema: TSchema, body: unknown): boolean {
  try {
    parseBody(schema, body);
    return false;
  } catch (error) {
    if (error instanceof ApiError && error.code === 'VALIDATION_ERROR') return true;
    throw error;
  }
}

describe('GET /v1/openapi.json', () => {
  it('answers an OpenAPI 3.1 document without credentials, and a maintained validator accepts it', async () => {
    const reply = await context.server.api.get('/v1/openapi.json');
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
    expect(reply.body.openapi).toBe('3.1.0');
    const result = await validate(structuredClone(reply.body));
    expect(result.valid ? '' : compileErrors(result)).toBe('');
  });

  it('describes every /v1 and /api route the server registers, and no route it lacks', () => {
    // CORS preflights (OPTIONS) answer on the ingest paths for browsers; they are not operations of the API.
    const registered = new Set(
      registeredRoutes((context.server.standalone.app as unknown as { router: { stack: Layer[] } }).router.stack)
        .filter((route) => /^[A-Z]+ \/(v1|api)\//.test(route) && !route.startsWith('OPTIONS '))
        .map((route) => {
          const [method, path] = route.split(' ');
          return `${method} ${openApiPath(path!)}`;
        }),
    );
    const documented = new Set(Object.entries(document.paths).flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`)));
    expect([...registered].filter((route) => !documented.has(route))).toEqual([]);
    expect([...documented].filter((route) => !registered.has(route))).toEqual([]);
    expect(registered.size).toBeGreaterThan(100);
  });

  it('gives every operation a summary, a tag, its credentials and a success answer', () => {
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const where = `${method.toUpperCase()} ${path}`;
        expect([where, typeof operation.summary]).toEqual([where, 'string']);
        expect([where, operation.tags?.length]).toEqual([where, 1]);
        expect([where, Array.isArray(operation.security)]).toEqual([where, true]);
        expect([where, Object.keys(operation.responses).some((status) => /^2/.test(status))]).toEqual([where, true]);
      }
    }
    expect(document.paths['/v1/alerts']!['post'].security).toEqual([{ ApiKey: ['data:write', 'alerts:write'] }]);
    expect(document.paths['/api/orgs/{org}/projects']!['post'].security).toEqual([{ Session: [] }, { SessionCookie: [] }]);
    expect(document.paths['/v1/status/{slug}']!['get'].security).toEqual([]);
  });

  it('describes request bodies with the TypeBox schemas the routes validate with', () => {
    expect(requestSchema('post', '/v1/alerts')).toEqual(jsonSchemaOf(NewAlertRule));
    expect(requestSchema('post', '/api/orgs/{org}/projects/{project}/alerts')).toEqual(jsonSchemaOf(NewAlertRule));
    expect(requestSchema('post', '/api/auth/signup')).toEqual(jsonSchemaOf(SignupBody));
    expect(requestSchema('post', '/api/orgs/{org}/projects/{project}/keys')).toEqual(jsonSchemaOf(NewKey));
    expect(requestSchema('post', '/v1/gql/query')).toEqual(jsonSchemaOf(SingleQueryBody));
    expect(requestSchema('post', '/v1/symbolicate')).toEqual(jsonSchemaOf(SymbolicateRequest));
    expect((requestSchema('post', '/v1/logs') as any).properties.batch.items).toEqual(jsonSchemaOf(LogItemSchema));
    expect(MAX_STACK_FRAMES).toBe(MAX_ERROR_FRAMES);
  });
});

describe('a body the described schema refuses is refused by its route', () => {
  it('POST /v1/alerts: 400 VALIDATION_ERROR for a window of 0 minutes, and no rule is stored', async () => {
    const body = { name: 'errors', metric: 'from:logs severity:error | count', threshold: 1, window_minutes: 0 };
    expect(refuses(requestSchema('post', '/v1/alerts'), body)).toBe(true);
    const reply = await context.server.api.post('/v1/alerts', { token: context.setup.secretKey, body });
    expect([reply.status, reply.body.error.code]).toEqual([400, 'VALIDATION_ERROR']);
    expect((await context.server.api.get('/v1/alerts', { token: context.setup.secretKey })).body.alerts).toEqual([]);
  });

  it('POST /api/auth/signup: 400 VALIDATION_ERROR for a 7-character password, and no account is made', async () => {
    const body = { email: `openapi-${process.pid}@example.com`, password: 'short12' };
    expect(refuses(requestSchema('post', '/api/auth/signup'), body)).toBe(true);
    const reply = await context.server.api.post('/api/auth/signup', { body });
    expect([reply.status, reply.body.error.code]).toEqual([400, 'VALIDATION_ERROR']);
    expect((await context.server.api.post('/api/auth/login', { body })).status).toBe(401);
  });

  it('POST /api/orgs/:org/projects/:project/keys: 400 VALIDATION_ERROR for an unknown key type, and no key is made', async () => {
    const path = `/api/orgs/${context.setup.session.organization.id}/projects/${context.setup.project.id}/keys`;
    const body = { name: 'shared', type: 'shared' };
    expect(refuses(requestSchema('post', '/api/orgs/{org}/projects/{project}/keys'), body)).toBe(true);
    const before = (await context.server.api.get(path, { token: context.setup.session.token })).body.keys.length;
    const reply = await context.server.api.post(path, { token: context.setup.session.token, body });
    expect([reply.status, reply.body.error.code]).toEqual([400, 'VALIDATION_ERROR']);
    expect((await context.server.api.get(path, { token: context.setup.session.token })).body.keys).toHaveLength(before);
  });

  it('POST /v1/symbolicate: 400 VALIDATION_ERROR for a frame at line 0', async () => {
    const body = { release: 'web@1.0.0', frames: [{ filename: 'app.min.js', lineno: 0, colno: 1 }] };
    expect(refuses(requestSchema('post', '/v1/symbolicate'), body)).toBe(true);
    const reply = await context.server.api.post('/v1/symbolicate', { token: context.setup.secretKey, body });
    expect([reply.status, reply.body.error.code]).toEqual([400, 'VALIDATION_ERROR']);
  });

  it('POST /v1/gql/nl: 400 VALIDATION_ERROR for a prompt of 501 characters', async () => {
    const body = { prompt: 'x'.repeat(501) };
    expect(refuses(requestSchema('post', '/v1/gql/nl'), body)).toBe(true);
    const reply = await context.server.api.post('/v1/gql/nl', { token: context.setup.secretKey, body });
    expect([reply.status, reply.body.error.code]).toEqual([400, 'VALIDATION_ERROR']);
  });
});

describe('a parameter or batch the description refuses is refused by its route', () => {
  const pathParameter = (path: string, name: string) =>
    (document.paths[path]!['get'].parameters as { name: string; in: string; schema: TSchema }[]).find((parameter) => parameter.in === 'path' && parameter.name === name)!;

  it('GET /v1/replay/sessions/:id/chunks/:seq: seq is described as the 32-bit count the route checks, and one past it is 400', async () => {
    const seq = pathParameter('/v1/replay/sessions/{id}/chunks/{seq}', 'seq');
    expect(seq.schema).toEqual({ type: 'integer', minimum: 0, maximum: 2_147_483_647 });
    const reply = await context.server.api.get(`/v1/replay/sessions/s-1/chunks/${2_147_483_648}`, { token: context.setup.secretKey });
    expect([reply.status, reply.body.error.code]).toEqual([400, 'VALIDATION_ERROR']);
    const fits = await context.server.api.get(`/v1/replay/sessions/s-1/chunks/${2_147_483_647}`, { token: context.setup.secretKey });
    expect([fits.status, fits.body.error.code]).toEqual([404, 'NOT_FOUND']);
  });

  it('GET /v1/profiles/chunks/:chunk_id: chunk_id is described with the pattern the route checks', async () => {
    const chunkId = pathParameter('/v1/profiles/chunks/{chunk_id}', 'chunk_id');
    expect(new RegExp(String(chunkId.schema['pattern'])).test('.hidden')).toBe(false);
    const reply = await context.server.api.get('/v1/profiles/chunks/.hidden', { token: context.setup.secretKey });
    expect([reply.status, reply.body.error.code]).toEqual([400, 'VALIDATION_ERROR']);
  });

  it('POST /v1/events: a batch one over the described maxItems is 400 VALIDATION_ERROR, and none of it is stored', async () => {
    const maxItems = (requestSchema('post', '/v1/events') as any).properties.batch.maxItems as number;
    const batch = Array.from({ length: maxItems + 1 }, () => ({ event: 'openapi_batch', distinct_id: 'u-1' }));
    const reply = await context.server.api.post('/v1/events', { token: context.setup.secretKey, body: { batch } });
    expect([reply.status, reply.body.error.code]).toEqual([400, 'VALIDATION_ERROR']);
    const fits = await context.server.api.post('/v1/events', { token: context.setup.secretKey, body: { batch: batch.slice(1) } });
    expect([fits.status, fits.body.accepted]).toEqual([202, maxItems]);
    // Once the accepted batch is queryable, the count holds it alone: the refused one left nothing.
    const counted = () => gqlRows(context.server.api, context.setup.secretKey, 'from:events event_name:openapi_batch | count | last:1h');
    await eventually(async () => expect((await counted())[0]!['value']).toBeGreaterThan(0));
    expect(await counted()).toEqual([{ value: maxItems }]);
  });
});
