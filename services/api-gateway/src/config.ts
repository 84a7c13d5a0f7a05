import { Type } from '@sinclair/typebox';
import { httpConfig } from '@tlm/core';
import { webAppConfig } from '@tlm/runtime';

const url = (service: string) => Type.String({ format: 'uri', description: `Base URL of the ${service} service, e.g. http://${service}:8080.` });

/** Fleet configuration of the API gateway. */
export const ApiGatewayConfig = Type.Object({
  ...httpConfig,
  INGEST_GATEWAY_URL: Type.String({
    pattern: '^\\s*https?://[^\\s,]+\\s*(,\\s*https?://[^\\s,]+\\s*)*$',
    description:
      'Base URL of the ingest-gateway service, e.g. http://ingest-gateway:8080, or several separated by commas: requests go to them in turn, and one that refuses connections is skipped for 2 s.',
  }),
  QUERY_URL: url('query'),
  KEY_ADMIN_URL: url('key-admin'),
  DASHBOARD_API_URL: url('dashboard-api'),
  ALERTS_URL: url('alerts'),
  AI_URL: url('ai'),
  EXPORTS_URL: url('exports'),
  STATUS_PAGES_URL: url('status-pages'),
  ...webAppConfig,
  UPSTREAM_TIMEOUT_MS: Type.Integer({ minimum: 100, default: 60_000, description: 'How long the gateway waits for an upstream answer.' }),
});
