export type Upstream = 'ingest-gateway' | 'query' | 'key-admin' | 'dashboard-api';

/**
 * Which service owns a path, first match wins. This table is the whole routing of the fleet; in standalone
 * every service's router is mounted in one process instead.
 */
export const ROUTE_TABLE: readonly { upstream: Upstream; pattern: RegExp }[] = [
  { upstream: 'ingest-gateway', pattern: /^\/v1\/(logs|events|envelope|otlp|replay|profiles|artifacts)(\/|$)/ },
  { upstream: 'ingest-gateway', pattern: /^\/api\/\d+\/(envelope|store)\/?$/ },
  { upstream: 'ingest-gateway', pattern: /^\/(batch|e|capture|i\/v0\/e)\/?$/ },
  { upstream: 'query', pattern: /^\/v1\/(gql|schema|info|alerts|slos|exports|ai|symbolicate|status|status-pages)(\/|$)/ },
  { upstream: 'query', pattern: /^\/api\/orgs\/[^/]+\/projects\/[^/]+\/(gql|schema)(\/|$)/ },
  { upstream: 'key-admin', pattern: /^\/api\/orgs\/[^/]+\/projects\/[^/]+\/keys(\/|$)/ },
  { upstream: 'dashboard-api', pattern: /^\/api\// },
];

export function upstreamOf(path: string): Upstream | undefined {
  return ROUTE_TABLE.find((route) => route.pattern.test(path))?.upstream;
}
