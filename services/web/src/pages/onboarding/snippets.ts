/** What the snippets are filled with: real key values when known, else placeholders naming the key to use. */
export interface SnippetValues {
  origin: string;
  dsn: string;
  publicKey: string;
  secretKey: string;
}

export interface Snippet {
  id: string;
  title: string;
  intro: string;
  install?: string;
  code: string;
}

export function snippets({ origin, dsn, publicKey, secretKey }: SnippetValues): Snippet[] {
  const json = JSON.stringify;
  return [
    {
      id: 'sentry-node',
      title: 'Sentry (Node)',
      intro:
        'Errors, traces and logs from Node with the unmodified Sentry SDK: give it the DSN. Its logs come with the DSN\'s public key, so they need "Allow browser logs" (above, or in Settings); errors and traces need nothing more.',
      install: 'npm install @sentry/node',
      code: `import * as Sentry from '@sentry/node';

Sentry.init({
  dsn: ${json(dsn)},
  tracesSampleRate: 1.0,
  enableLogs: true,
});

Sentry.logger.info('hello from @sentry/node');
Sentry.captureException(new Error('hello from @sentry/node'));`,
    },
    {
      id: 'sentry-browser',
      title: 'Sentry (browser)',
      intro: 'Errors, traces and web vitals from the browser. Its logs need "Allow browser logs" in Settings.',
      install: 'npm install @sentry/browser',
      code: `import * as Sentry from '@sentry/browser';

Sentry.init({
  dsn: ${json(dsn)},
  integrations: [Sentry.browserTracingIntegration()],
  tracesSampleRate: 1.0,
});

Sentry.captureMessage('hello from @sentry/browser');`,
    },
    {
      id: 'opentelemetry',
      title: 'OpenTelemetry',
      intro: `Traces and logs over OTLP/HTTP (protobuf or JSON): the endpoint is ${origin}/v1/otlp, traces go to /v1/otlp/v1/traces and logs to /v1/otlp/v1/logs, with the header Authorization: Bearer <key>. This service takes no OTLP metrics, so the metrics exporter is off. For the Node SDK, set these variables and start your app with the auto-instrumentation:`,
      install: 'npm install @opentelemetry/api @opentelemetry/auto-instrumentations-node',
      code: `export OTEL_SERVICE_NAME="my-service"
export OTEL_EXPORTER_OTLP_ENDPOINT="${origin}/v1/otlp"
export OTEL_EXPORTER_OTLP_HEADERS="Authorization=Bearer ${secretKey}"
export OTEL_TRACES_EXPORTER="otlp"
export OTEL_LOGS_EXPORTER="otlp"
export OTEL_METRICS_EXPORTER="none"
node --require @opentelemetry/auto-instrumentations-node/register app.js`,
    },
    {
      id: 'posthog-js',
      title: 'PostHog (browser)',
      intro: 'Product analytics events from the browser with the unmodified posthog-js: the public key is the project API key.',
      install: 'npm install posthog-js',
      code: `import posthog from 'posthog-js';

posthog.init(${json(publicKey)}, { api_host: ${json(origin)} });

posthog.capture('hello from posthog-js');`,
    },
    {
      id: 'posthog-node',
      title: 'PostHog (Node)',
      intro: 'Events from a server with the unmodified posthog-node.',
      install: 'npm install posthog-node',
      code: `import { PostHog } from 'posthog-node';

const posthog = new PostHog(${json(publicKey)}, { host: ${json(origin)} });

posthog.capture({ distinctId: 'user-1', event: 'hello from posthog-node' });
await posthog.shutdown();`,
    },
    {
      id: 'tlm-client',
      title: '@tlm/client',
      intro: "This service's own client for Node 20 and later: logs, events, errors and traces from one small library. It is not on npm: install it from the packages/client folder of a built checkout of this repository.",
      install: 'npm install /path/to/tlm/packages/client',
      code: `import { Client } from '@tlm/client';

const tlm = new Client({ apiKey: ${json(secretKey)}, endpoint: ${json(origin)}, useEnvelope: true });

tlm.info('hello from @tlm/client', { step: 'setup' });
tlm.event('signed up', { plan: 'free' }, 'user-1');
try {
  throw new Error('hello from @tlm/client');
} catch (error) {
  tlm.captureException(error);
}
await tlm.close(); // sends what is queued`,
    },
    {
      id: 'curl',
      title: 'curl',
      intro: 'A log line, an event and an error from the command line.',
      code: `curl -X POST ${origin}/v1/logs \\
  -H 'Authorization: Bearer ${secretKey}' \\
  -H 'content-type: application/json' \\
  -d '{"batch":[{"severity":"info","message":"hello from curl"}]}'

curl -X POST ${origin}/v1/events \\
  -H 'Authorization: Bearer ${secretKey}' \\
  -H 'content-type: application/json' \\
  -d '{"batch":[{"event":"signed up","distinctId":"user-1","properties":{"plan":"free"}}]}'

# An error as a Sentry envelope: a header line, an item header, the event.
printf '%s\\n' '{}' '{"type":"event"}' \\
  '{"level":"error","exception":{"values":[{"type":"Error","value":"hello from curl"}]}}' |
curl -X POST ${origin}/v1/envelope \\
  -H 'Authorization: Bearer ${secretKey}' \\
  -H 'content-type: application/x-sentry-envelope' \\
  --data-binary @-`,
    },
  ];
}
