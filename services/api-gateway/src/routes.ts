export type Upstream = 'ingest-gateway' | 'query' | 'key-admin' | 'dashboard-api' | 'alerts' | 'ai' | 'exports' | 'status-pages';

/**
 * Which service owns a path, first match wins; an entry with `methods` matches only those methods. This table is the
 * whole routing of the fleet; in standalone every service's router is mounted in one process instead.
 */
export const ROUTE_TABLE: readonly { upstream: Upstream; pattern: RegExp; methods?: readonly string[] }[] = [
  // Replay and profile reads (data:read) share their paths with the ingest doors (POST).
  { upstream: 'query', pattern: /^\/v1\/(replay|profiles)(\/|$)/, methods: ['GET', 'HEAD'] },
  // Source maps live with the ingest gateway: upload (ingest:write), list and symbolicate (data:read).
  { upstream: 'ingest-gateway', pattern: /^\/v1\/(logs|events|envelope|otlp|replay|profiles|artifacts|symbolicate)(\/|$)/ },
  { upstream: 'ingest-gateway', pattern: /^\/api\/\d+\/(envelope|store)\/?$/ },
  { upstream: 'ingest-gateway', pattern: /^\/(batch|e|capture|i\/v0\/e)\/?$/ },
  // posthog-js's feature flags and remote config (posthog-node and older posthog-js ask /decide).
  { upstream: 'ingest-gateway', pattern: /^\/(flags|decide)\/?$/ },
  { upstream: 'ingest-gateway', pattern: /^\/array\/[^/]+\/config(\.js)?$/ },
  // Natural language to GQL belongs to the AI service, before the query service's /v1/gql paths.
  { upstream: 'ai', pattern: /^\/v1\/(gql\/nl|ai)(\/|$)/ },
  { upstream: 'ai', pattern: /^\/api\/orgs\/[^/]+\/projects\/[^/]+\/gql\/nl\/?$/ },
  { upstream: 'alerts', pattern: /^\/v1\/(alerts|slos)(\/|$)/ },
  { upstream: 'alerts', pattern: /^\/api\/orgs\/[^/]+\/projects\/[^/]+\/(alerts|slos)(\/|$)/ },
  { upstream: 'exports', pattern: /^\/v1\/exports(\/|$)/ },
  { upstream: 'exports', pattern: /^\/api\/orgs\/[^/]+\/projects\/[^/]+\/exports(\/|$)/ },
  // The public status page is HTML the service renders itself, not a page of the web app.
  { upstream: 'status-pages', pattern: /^\/status\/[^/]+\/?$/, methods: ['GET', 'HEAD'] },
  { upstream: 'status-pages', pattern: /^\/v1\/(status|status-pages)(\/|$)/ },
  { upstream: 'status-pages', pattern: /^\/api\/orgs\/[^/]+\/status-pages(\/|$)/ },
  { upstream: 'query', pattern: /^\/v1\/(gql|schema|info|attachments)(\/|$)/ },
  { upstream: 'query', pattern: /^\/api\/orgs\/[^/]+\/projects\/[^/]+\/(gql|schema|replay|profiles|attachments)(\/|$)/ },
  { upstream: 'key-admin', pattern: /^\/api\/orgs\/[^/]+\/projects\/[^/]+\/keys(\/|$)/ },
  { upstream: 'dashboard-api', pattern: /^\/api\// },
];

export function upstreamOf(path: string, method?: string): Upstream | undefined {
  return ROUTE_TABLE.find((route) => (!route.methods || (method !== undefined && route.methods.includes(method))) && route.pattern.test(path))?.upstream;
}
