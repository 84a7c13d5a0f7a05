/** The answers of the dashboard API (docs/api.md), as the web app reads them. */

export type Plan = 'free' | 'starter' | 'pro' | 'team';
export type Role = 'owner' | 'member';

export interface User {
  id: string;
  email: string;
  name: string | null;
}

export interface Organization {
  id: string;
  name: string;
  plan: Plan;
  region: string;
  created_at?: string;
  role?: Role;
}

export interface Me extends User {
  organizations: Organization[];
}

export interface Project {
  id: string;
  org_id: string;
  name: string;
  dsn_id: number;
  allow_browser_logs: boolean;
  created_at: string;
  deleted_at?: string;
  restore_until?: string;
}

export type Scope = '*' | 'ingest:write' | 'data:read' | 'data:write' | 'alerts:read' | 'alerts:write' | 'exports:read' | 'exports:write' | 'ai:chat';

export interface ApiKey {
  id: string;
  project_id: string;
  name: string;
  type: 'public' | 'secret';
  scopes: Scope[];
  prefix: string;
  region: string;
  dsn_id: number;
  status: 'active' | 'revoked' | 'deleted';
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  deleted_at?: string;
  restore_until?: string;
}

/** The answer to creating a key: the only time its value is shown; public keys come with their Sentry DSN. */
export interface CreatedKey extends ApiKey {
  key: string;
  dsn?: string;
}

export interface QuotaDetails {
  limit: number;
  used: number;
  plan: Plan;
  upgrade: Plan[];
}

export interface SchemaProperty {
  key: string;
  type: string;
  examples: unknown[];
  volume: number;
}

export interface SchemaDocument {
  log_properties: SchemaProperty[];
  event_properties: SchemaProperty[];
  event_names: { name: string; volume: number }[];
}

export interface GqlFilter {
  field: string;
  op: string;
  value: unknown;
}

export interface GqlAnswer {
  query: {
    source: string;
    mode: 'search' | 'aggregate';
    filters: GqlFilter[];
    pipeline: { type: string; func?: string; field?: string | null; group_by?: string[] }[];
    time_range?: { last?: string; since?: string; until?: string } | null;
    limit?: number | null;
    fields?: string[] | null;
    /** The bucket of `by time(…)`, e.g. `5m`, or null. */
    interval?: string | null;
  };
  data: { mode: 'search' | 'aggregate'; table: string; results: Record<string, unknown>[]; total_groups: number };
}

export interface Suggestion {
  text: string;
  description: string;
  kind: 'source' | 'field' | 'operator' | 'value' | 'function';
}

export interface AutocompleteAnswer {
  suggestions: Suggestion[];
  valid: boolean;
  parsed: unknown;
}

export interface NlAnswer {
  gql: string;
  valid: boolean;
  parsed: unknown;
}
