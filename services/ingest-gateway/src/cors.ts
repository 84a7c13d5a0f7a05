import cors from 'cors';

/**
 * CORS for browser SDKs: any origin, no cookies (keys travel in headers), preflight cached for a day. The rate-limit
 * headers are exposed, as Sentry's Relay does: they are not CORS-safelisted, and a browser SDK that cannot read them
 * on a 429 backs off for a minute instead of a second.
 */
export const ingestCors = cors({
  origin: true,
  methods: ['POST', 'PUT', 'OPTIONS'],
  allowedHeaders: ['Authorization', 'Content-Type', 'Content-Encoding', 'X-Sentry-Auth', 'traceparent', 'tracestate', 'baggage', 'sentry-trace'],
  exposedHeaders: ['X-Sentry-Rate-Limits', 'Retry-After', 'X-Sentry-Error'],
  maxAge: 86_400,
});
