import { splitList } from '@tlm/core';
import { runService, start } from '@tlm/runtime';
import { ApiGatewayConfig } from './config';
import { gatewayRoutes, upstreamReadiness, type Upstream } from './index';

start(() =>
  runService('api-gateway', ApiGatewayConfig, async (config) => {
    const targets: Record<Upstream, string | string[]> = {
      'ingest-gateway': splitList(config.INGEST_GATEWAY_URL),
      query: config.QUERY_URL,
      'key-admin': config.KEY_ADMIN_URL,
      'dashboard-api': config.DASHBOARD_API_URL,
      alerts: config.ALERTS_URL,
      ai: config.AI_URL,
      exports: config.EXPORTS_URL,
      'status-pages': config.STATUS_PAGES_URL,
    };
    return {
      routes: gatewayRoutes(targets, config.UPSTREAM_TIMEOUT_MS, config.WEB_DIST_DIR),
      readiness: upstreamReadiness(targets),
      close: async () => undefined,
    };
  }),
);
