import { apiRoutes, openApiDocument, type RouteDoc } from '@tlm/api-schemas';
import { INGEST_ROUTES } from '@tlm/signals';
import { Router } from 'express';

/** Every `/v1` and `/api` route the service serves, in the registry's shape: the ingest doors and all the others. */
export const ROUTE_DOCS: readonly RouteDoc[] = [...INGEST_ROUTES, ...apiRoutes()];

/** The OpenAPI 3.1 document of the HTTP API, generated from the route registry once, when first asked for. */
let document: string | undefined;
function openApiJson(): string {
  document ??= JSON.stringify(
    openApiDocument(ROUTE_DOCS, {
      title: 'tlm',
      version: '1',
      description: 'Telemetry ingest, GQL queries, issues, alerts and the dashboard API. `/v1` takes project API keys, `/api` dashboard sessions (docs/api.md).',
    }),
  );
  return document;
}

/** `GET /v1/openapi.json`, without credentials: what the API is is no secret. */
export function openApiRoutes(): Router {
  const router = Router();
  router.get('/v1/openapi.json', (_req, res) => {
    res.type('application/json').send(openApiJson());
  });
  return router;
}
