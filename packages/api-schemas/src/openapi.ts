import { Type, type TObject, type TSchema } from '@sinclair/typebox';

/**
 * The OpenAPI 3.1 description of the HTTP API, generated from the route registry (`apiRoutes()` and the ingest doors of @tlm/signals): each route names the
 * TypeBox schemas its handler validates with, and TypeBox schemas are JSON Schema 2020-12, OpenAPI 3.1's dialect.
 * Served at `GET /v1/openapi.json`; a test compares it with the routes the server registers.
 */

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** Who may call a route. */
export type RouteAuth =
  /** A project API key holding any one of `scopes` (`*` holds them all). */
  | { kind: 'key'; scopes: readonly string[] }
  /** A dashboard session (JWT or the web app's cookie); `role: 'owner'` for organization owners only. */
  | { kind: 'session'; role?: 'member' | 'owner' }
  /** A project key the Sentry way: `X-Sentry-Auth`, `?sentry_key=` or the envelope header's `dsn`. */
  | { kind: 'sentry' }
  /** A billing provider's signed request (`X-TLM-Signature`). */
  | { kind: 'signature' }
  /** No credentials. */
  | { kind: 'public' };

/** A body the route reads in a format of its own (an SDK's wire format, a file), described rather than schematised. */
export interface RawBody {
  contentTypes: readonly string[];
  description: string;
}

export interface RouteResponse {
  status: number;
  description: string;
  schema?: TSchema;
  /** application/json unless given. */
  contentType?: string;
}

export interface RouteDoc {
  method: HttpMethod;
  /** Express form: `/v1/alerts/:id`. */
  path: string;
  summary: string;
  tag: string;
  auth: RouteAuth;
  description?: string;
  /** The query parameters, one property each. */
  query?: TObject;
  /**
   * The path parameters' schema, one property each, where the handler checks their form (`parsePath` of @tlm/core)
   * before it looks anything up; other path parameters are described as text.
   */
  params?: TObject;
  /** The JSON body's schema, the same object the handler validates with, or a body of another format. */
  body?: TSchema | RawBody;
  /** A JSON body that may be left out (an action with optional fields). */
  bodyOptional?: boolean;
  response: RouteResponse;
  /** Error statuses beyond those that follow from the route's credentials, body and path parameters. */
  errors?: readonly number[];
}

/** The error codes of each status (docs/api.md "errors"); `core`'s ApiError constructors answer with these. */
const ERROR_STATUSES: Record<number, string> = {
  400: 'VALIDATION_ERROR: the body, a parameter or a GQL query is invalid',
  401: 'UNAUTHORIZED: missing or invalid credentials',
  402: 'QUOTA_EXCEEDED: a plan limit is reached; `details: {limit, used, plan, upgrade}`',
  403: 'FORBIDDEN: the credentials lack a scope or role this needs',
  404: 'NOT_FOUND: no such resource, or one in an organization the caller does not belong to',
  409: 'CONFLICT: a duplicate, or a change that breaks a rule (`details.reason`)',
  413: 'PAYLOAD_TOO_LARGE: the body is over its limit',
  415: 'VALIDATION_ERROR: a body in a format this route does not read',
  421: 'WRONG_REGION: the key, or a sign-up, belongs to a region this deployment does not serve; `details.region`, and `details.url` for a sign-up when `REGION_URLS` names that region',
  422: 'VALIDATION_ERROR: a well-formed GQL query that cannot run',
  429: 'RATE_LIMITED: a budget of requests per second is used up; `Retry-After` says when to retry',
  503: 'MAIL_NOT_CONFIGURED: the server has no SMTP_URL to mail with',
};

export const ERROR_CODES = ['VALIDATION_ERROR', 'UNAUTHORIZED', 'QUOTA_EXCEEDED', 'FORBIDDEN', 'NOT_FOUND', 'CONFLICT', 'PAYLOAD_TOO_LARGE', 'WRONG_REGION', 'RATE_LIMITED', 'MAIL_NOT_CONFIGURED', 'INTERNAL_ERROR'] as const;

/** Every error answer (DECISIONS.md "Names and formats"). */
export const ErrorBody = Type.Object({
  error: Type.Object({
    code: Type.Unsafe<(typeof ERROR_CODES)[number]>({ type: 'string', enum: [...ERROR_CODES] }),
    message: Type.String(),
    details: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  }),
});

/** What the path parameters of every route name. */
const PATH_PARAMETERS: Record<string, string> = {
  org: 'Organization id',
  project: 'Project id',
  id: 'Id of the resource',
  key: 'API key id',
  user: 'User id of the member',
  invitation: 'Invitation id',
  issue: 'Issue id',
  slug: 'Status page slug',
  seq: 'Chunk sequence number within the replay session',
  chunk_id: 'Profile chunk id',
  dsn: "The project's numeric DSN id (the path of its Sentry DSN)",
};

function errorStatuses(route: RouteDoc): number[] {
  const statuses = new Set<number>(route.errors ?? []);
  const add = (...more: number[]) => more.forEach((status) => statuses.add(status));
  if (route.auth.kind === 'key') add(401, 403, 421, 429);
  if (route.auth.kind === 'session') add(401, 429);
  if (route.auth.kind === 'session' && route.auth.role === 'owner') add(403);
  if (route.auth.kind === 'sentry') add(401, 429);
  if (route.auth.kind === 'signature') add(401);
  if (route.body) add(400, 413);
  if (route.query || route.params) add(400);
  if (route.path.includes('/:')) add(404);
  return [...statuses].sort((a, b) => a - b);
}

function security(auth: RouteAuth): Record<string, string[]>[] {
  switch (auth.kind) {
    case 'key':
      return [{ ApiKey: [...auth.scopes] }];
    case 'session':
      return [{ Session: [] }, { SessionCookie: [] }];
    case 'sentry':
      return [{ SentryAuth: [] }, { SentryKeyQuery: [] }];
    case 'signature':
      return [{ BillingSignature: [] }];
    case 'public':
      return [];
  }
}

const isRawBody = (body: TSchema | RawBody): body is RawBody => 'contentTypes' in body && Array.isArray((body as RawBody).contentTypes);

/**
 * A TypeBox schema as plain JSON Schema 2020-12: TypeBox's symbol keys dropped, and tuples in 2020-12's form
 * (`prefixItems`) rather than draft 7's array-valued `items`.
 */
export function jsonSchemaOf(schema: TSchema): Record<string, unknown> {
  const plain = JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
  const convert = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(convert);
    if (node === null || typeof node !== 'object') return node;
    const out: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(node)) out[name] = convert(value);
    if (Array.isArray(out['items'])) {
      out['prefixItems'] = out['items'];
      out['items'] = out['additionalItems'] ?? false;
      delete out['additionalItems'];
    }
    return out;
  };
  return convert(plain) as Record<string, unknown>;
}

/** `/v1/alerts/:id` as OpenAPI writes it: `/v1/alerts/{id}`. */
export const openApiPath = (path: string) => path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');

function operationId(route: RouteDoc): string {
  const words = `${route.method} ${route.path}`.split(/[^A-Za-z0-9]+/).filter(Boolean);
  return words.map((word, index) => (index === 0 ? word : word[0]!.toUpperCase() + word.slice(1))).join('');
}

function operation(route: RouteDoc): Record<string, unknown> {
  const parameters: Record<string, unknown>[] = [];
  const names = [...route.path.matchAll(/:([A-Za-z_][A-Za-z0-9_]*)/g)].map(([, name]) => name!);
  const checked = route.params?.properties ?? {};
  const stray = Object.keys(checked).filter((name) => !names.includes(name));
  if (stray.length > 0) throw new Error(`${route.method.toUpperCase()} ${route.path} describes path parameters it does not have: ${stray.join(', ')}`);
  for (const name of names) {
    const { description, ...schema } = checked[name] ? jsonSchemaOf(checked[name]) : { description: PATH_PARAMETERS[name], type: 'string' };
    parameters.push({ name, in: 'path', required: true, description: description ?? PATH_PARAMETERS[name] ?? name, schema });
  }
  if (route.query) {
    const required = new Set(route.query.required ?? []);
    for (const [name, schema] of Object.entries(route.query.properties)) {
      const plain = jsonSchemaOf(schema);
      const { description, ...rest } = plain;
      parameters.push({ name, in: 'query', required: required.has(name), ...(description ? { description } : {}), schema: rest });
    }
  }
  const responses: Record<string, unknown> = {
    [String(route.response.status)]: {
      description: route.response.description,
      ...(route.response.schema || route.response.contentType
        ? { content: { [route.response.contentType ?? 'application/json']: route.response.schema ? { schema: jsonSchemaOf(route.response.schema) } : {} } }
        : {}),
    },
  };
  for (const status of errorStatuses(route)) responses[String(status)] = { $ref: `#/components/responses/Error${status}` };
  const description = [route.description, route.auth.kind === 'session' && route.auth.role === 'owner' ? 'Organization owners only.' : undefined]
    .filter(Boolean)
    .join(' ');
  return {
    operationId: operationId(route),
    summary: route.summary,
    ...(description ? { description } : {}),
    tags: [route.tag],
    security: security(route.auth),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(route.body
      ? {
          requestBody: isRawBody(route.body)
            ? { required: true, description: route.body.description, content: Object.fromEntries(route.body.contentTypes.map((type) => [type, {}])) }
            : { required: !route.bodyOptional, content: { 'application/json': { schema: jsonSchemaOf(route.body) } } },
        }
      : {}),
    responses,
  };
}

export interface OpenApiInfo {
  title: string;
  version: string;
  description?: string;
}

/** The OpenAPI 3.1 document of `routes`, in their order; two routes of one method and path are a mistake. */
export function openApiDocument(routes: readonly RouteDoc[], info: OpenApiInfo): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const item = (paths[openApiPath(route.path)] ??= {});
    if (item[route.method]) throw new Error(`${route.method.toUpperCase()} ${route.path} is described twice`);
    item[route.method] = operation(route);
  }
  const errorResponses = Object.fromEntries(
    Object.entries(ERROR_STATUSES).map(([status, description]) => [
      `Error${status}`,
      {
        description,
        ...(status === '429' ? { headers: { 'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer' } } } } : {}),
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      },
    ]),
  );
  return {
    openapi: '3.1.0',
    info,
    servers: [{ url: '/' }],
    tags: [...new Set(routes.map((route) => route.tag))].map((name) => ({ name })),
    paths,
    components: {
      schemas: { Error: jsonSchemaOf(ErrorBody) },
      responses: errorResponses,
      securitySchemes: {
        ApiKey: { type: 'http', scheme: 'bearer', description: 'A project API key, `Authorization: Bearer tlm_sk_<region>_…`; the project comes from the key.' },
        Session: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'A dashboard token from sign-up or log-in.' },
        SessionCookie: {
          type: 'apiKey',
          in: 'cookie',
          name: 'tlm_session',
          description: "The web app's session cookie; a write authenticated by it also sends the `X-TLM-CSRF` header.",
        },
        SentryAuth: { type: 'apiKey', in: 'header', name: 'X-Sentry-Auth', description: '`Sentry sentry_key=<public or secret key>`, as Sentry SDKs send it.' },
        SentryKeyQuery: { type: 'apiKey', in: 'query', name: 'sentry_key', description: 'The key as a query parameter, as Sentry SDKs send it from browsers.' },
        BillingSignature: {
          type: 'apiKey',
          in: 'header',
          name: 'X-TLM-Signature',
          description: '`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>." + body>` under BILLING_WEBHOOK_SECRET.',
        },
      },
    },
  };
}
