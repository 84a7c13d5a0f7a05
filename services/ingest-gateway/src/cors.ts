import cors from 'cors';

/** CORS for browser SDKs: any origin, no cookies (keys travel in headers), preflight cached for a day. */
export const ingestCors = cors({
  origin: true,
  methods: ['POST', 'PUT', 'OPTIONS'],
  allowedHeaders: ['Authorization', 'Content-Type', 'Content-Encoding', 'X-Sentry-Auth', 'traceparent', 'tracestate', 'baggage', 'sentry-trace'],
  maxAge: 86_400,
});
