/** The answers of the dashboard API (docs/api.md), as the web app reads them. */

import type { ApiKey, CreatedKey, Me, Organization, PlanName, Project, QuotaDetails, Role, Scope, Usage, User } from '@tlm/api-schemas';

/** The dashboard's resources: the shared schemas the server validates and answers with (packages/api-schemas). */
export type { ApiKey, CreatedKey, Me, Organization, Project, QuotaDetails, Role, Scope, Usage, User };
export type Plan = PlanName;

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
  /** Empty when the prompt had no meaning for the project. */
  gql: string;
  valid: boolean;
  parsed: unknown;
  /** Why there is no valid query. */
  reason?: string;
  /** Questions the project can answer, when the prompt had no meaning for it. */
  suggestions?: string[];
}
