import { Type, type Static } from '@sinclair/typebox';

/**
 * The dashboard API's request bodies and answers, one definition each: the server validates bodies and types its
 * answers with these schemas, and the web app takes its types from them (docs/api.md describes each route).
 */

/** A string enum as JSON Schema `enum` (TypeBox's union of literals would make ajv report every branch). */
export function StringEnum<const T extends readonly string[]>(values: T, options: { description?: string; default?: T[number] } = {}) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);
/** ISO 8601 UTC with milliseconds (DECISIONS.md "Names and formats"). */
const Time = Type.String({ description: 'ISO 8601 UTC with milliseconds' });

export const PLAN_NAMES = ['free', 'starter', 'pro', 'team'] as const;
export type PlanName = (typeof PLAN_NAMES)[number];

/** What a billing provider's webhook says: this organization is now on this plan. Other fields it sends are ignored. */
export const PlanEvent = Type.Object({ organization_id: Type.String({ minLength: 1, maxLength: 100 }), plan: StringEnum(PLAN_NAMES) });
export type PlanEvent = Static<typeof PlanEvent>;

export const REGIONS = ['us', 'eu', 'ap'] as const;
export type Region = (typeof REGIONS)[number];

export const ROLES = ['owner', 'member'] as const;
export type Role = (typeof ROLES)[number];

/** Scope names of SPEC.md's scope table plus `alerts:read`/`alerts:write` (DECISIONS.md "Conflicts resolved"). */
export const SCOPES = [
  '*',
  'ingest:write',
  'data:read',
  'data:write',
  'exports:read',
  'exports:write',
  'ai:chat',
  'alerts:read',
  'alerts:write',
] as const;
export type Scope = (typeof SCOPES)[number];

// Identity (`/api/auth`).

export const SignupBody = Type.Object({
  email: Type.String({ format: 'email', maxLength: 320 }),
  password: Type.String({ minLength: 8, maxLength: 1024 }),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  region: Type.Optional(StringEnum(REGIONS)),
});
export type SignupBody = Static<typeof SignupBody>;

export const CredentialsBody = Type.Object({
  email: Type.String({ minLength: 1, maxLength: 320 }),
  password: Type.String({ minLength: 1, maxLength: 1024 }),
});
export type CredentialsBody = Static<typeof CredentialsBody>;

export const User = Type.Object({ id: Type.String(), email: Type.String(), name: Nullable(Type.String()) });
export type User = Static<typeof User>;

export const Organization = Type.Object({
  id: Type.String(),
  name: Type.String(),
  plan: StringEnum(PLAN_NAMES),
  region: Type.String(),
  created_at: Type.Optional(Time),
  /** The signed-in user's role, where the answer is about them. */
  role: Type.Optional(StringEnum(ROLES)),
});
export type Organization = Static<typeof Organization>;

export const Me = Type.Composite([User, Type.Object({ organizations: Type.Array(Organization) })]);
export type Me = Static<typeof Me>;

/** Log-in and restore; `token` is absent when the web app's session cookie carries it instead. */
export const Session = Type.Object({ token: Type.Optional(Type.String()), user: User });
export type Session = Static<typeof Session>;

// Projects.

export const NewProject = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  allow_browser_logs: Type.Optional(Type.Boolean()),
});
export type NewProject = Static<typeof NewProject>;

export const ProjectPatch = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    allow_browser_logs: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type ProjectPatch = Static<typeof ProjectPatch>;

export const Project = Type.Object({
  id: Type.String(),
  org_id: Type.String(),
  name: Type.String(),
  dsn_id: Type.Integer(),
  allow_browser_logs: Type.Boolean(),
  created_at: Time,
  deleted_at: Type.Optional(Time),
  restore_until: Type.Optional(Time),
});
export type Project = Static<typeof Project>;

/** The details of a 402 `QUOTA_EXCEEDED`: the limit, what is in use, the plans that allow more. */
export const QuotaDetails = Type.Object({ limit: Type.Integer(), used: Type.Integer(), plan: StringEnum(PLAN_NAMES), upgrade: Type.Array(StringEnum(PLAN_NAMES)) });
export type QuotaDetails = Static<typeof QuotaDetails>;

// API keys.

export const NewKey = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  type: StringEnum(['public', 'secret'] as const),
  scopes: Type.Optional(Type.Array(StringEnum(SCOPES), { minItems: 1, uniqueItems: true })),
});
export type NewKey = Static<typeof NewKey>;

/** A key as listed: never its value or hash. */
export const ApiKey = Type.Object({
  id: Type.String(),
  project_id: Type.String(),
  name: Type.String(),
  type: StringEnum(['public', 'secret'] as const),
  scopes: Type.Array(StringEnum(SCOPES)),
  prefix: Type.String(),
  region: Type.String(),
  dsn_id: Type.Integer(),
  status: StringEnum(['active', 'revoked', 'deleted'] as const),
  created_at: Time,
  last_used_at: Nullable(Time),
  revoked_at: Nullable(Time),
  deleted_at: Type.Optional(Time),
  restore_until: Type.Optional(Time),
});
export type ApiKey = Static<typeof ApiKey>;

/** The answer to creating a key: the only time its value is shown; public keys come with their Sentry DSN. */
export const CreatedKey = Type.Composite([ApiKey, Type.Object({ key: Type.String(), dsn: Type.Optional(Type.String()) })]);
export type CreatedKey = Static<typeof CreatedKey>;

// Plan and usage.

export const PlanLimits = Type.Object({
  requestsPerSecond: Type.Integer({ description: '/v1 requests per second of the account, over all its keys' }),
  apiRequestsPerSecond: Type.Integer({ description: '/api requests per second of the account, over all its members' }),
  maxApiKeys: Type.Integer(),
  retentionDays: Type.Integer(),
  maxProjects: Type.Integer(),
  aiQueriesPerMonth: Type.Integer(),
  aiTokensPerMonth: Type.Integer({ description: 'AI chat tokens (prompt and completion) of the account per calendar month' }),
});
export type PlanLimits = Static<typeof PlanLimits>;

const deprecatedName = (name: string) => Type.Integer({ deprecated: true, description: `deprecated name of ${name}` });
/**
 * A plan's limits as answers carry them (`limits` of /v1/info, the organization, its usage): snake_case like the rest
 * of the API, with the camelCase names of earlier answers kept beside them, deprecated (docs/api.md "Plan limits").
 */
export const PlanLimitsAnswer = Type.Object({
  requests_per_second: Type.Integer({ description: '/v1 requests per second of the account, over all its keys' }),
  api_requests_per_second: Type.Integer({ description: '/api requests per second of the account, over all its members' }),
  max_api_keys: Type.Integer({ description: 'API keys of the account, over all its projects' }),
  retention_days: Type.Integer({ description: 'days of telemetry kept and readable' }),
  max_projects: Type.Integer({ description: 'live projects of the account' }),
  ai_queries_per_month: Type.Integer({ description: 'AI requests of the account per calendar month' }),
  ai_tokens_per_month: Type.Integer({ description: 'AI chat tokens (prompt and completion) of the account per calendar month' }),
  requestsPerSecond: deprecatedName('requests_per_second'),
  apiRequestsPerSecond: deprecatedName('api_requests_per_second'),
  maxApiKeys: deprecatedName('max_api_keys'),
  retentionDays: deprecatedName('retention_days'),
  maxProjects: deprecatedName('max_projects'),
  aiQueriesPerMonth: deprecatedName('ai_queries_per_month'),
});
export type PlanLimitsAnswer = Static<typeof PlanLimitsAnswer>;

export const USAGE_SIGNALS = ['logs', 'events', 'ai_queries', 'ai_prompt_tokens', 'ai_completion_tokens', 'errors', 'spans', 'vitals', 'sessions'] as const;
export type UsageSignal = (typeof USAGE_SIGNALS)[number];

const SignalCounts = Type.Object({
  logs: Type.Integer(),
  events: Type.Integer(),
  ai_queries: Type.Integer(),
  ai_prompt_tokens: Type.Integer({ description: 'tokens the AI chat read' }),
  ai_completion_tokens: Type.Integer({ description: 'tokens the AI chat wrote' }),
  errors: Type.Integer(),
  spans: Type.Integer(),
  vitals: Type.Integer(),
  sessions: Type.Integer(),
});
const Quota = Type.Object({ used: Type.Integer(), limit: Type.Integer() });

/** `GET /api/orgs/:org/usage`: this month's items per signal, for the organization and each project. */
export const Usage = Type.Object({
  organization: Type.Object({ id: Type.String(), name: Type.String(), plan: StringEnum(PLAN_NAMES), region: Type.String() }),
  month: Type.String({ description: 'YYYY-MM' }),
  limits: PlanLimitsAnswer,
  keys: Quota,
  projects: Quota,
  usage: SignalCounts,
  by_project: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), usage: SignalCounts })),
});
export type Usage = Static<typeof Usage>;

export * from './alerts';
export * from './dashboard';
export * from './dashboards';
export * from './exports';
export * from './members';
export * from './openapi';
export * from './queries';
export * from './query';
export * from './routes';
export * from './sourcemaps';
export * from './statusPages';
