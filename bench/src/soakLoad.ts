import { randomUUID } from 'node:crypto';
import { eventItem, logItem } from './data';
import { BenchClient } from './http';

/** Logs per POST /v1/logs, the ingest section's larger batch. */
export const LOG_BATCH = 500;
/** One log in this many is an error whose message carries a V8 stack trace, which the log scanner makes an error of. */
export const ERROR_LOG_EVERY = 200;
/** Distinct log bodies sent in turn: 30,000 logs, so the load costs the client no JSON work once it runs. */
const LOG_BODIES = 60;
/** A stream may send up to one second of its requests at once after falling behind, never more. */
const BURST_SECONDS = 1;
/** How often the streams look whether a request is due. */
const TICK_MS = 10;

const QUIET_SEVERITIES = ['debug', 'info', 'info', 'info', 'warn'] as const;
/** What a Node service logs with `logger.error(err.stack)`: three traces, so the scanner's errors group into three issues. */
const STACK_TRACES = [
  "TypeError: Cannot read properties of undefined (reading 'total')\n    at computeTotal (/srv/app/cart.js:42:17)\n    at checkout (/srv/app/routes/checkout.js:18:9)\n    at Layer.handle (/srv/app/node_modules/express/lib/router/layer.js:95:5)",
  'RangeError: Invalid array length\n    at paginate (/srv/app/search.js:88:11)\n    at search (/srv/app/routes/search.js:31:20)\n    at Layer.handle (/srv/app/node_modules/express/lib/router/layer.js:95:5)',
  'Error: connect ECONNREFUSED 10.0.0.7:5432\n    at chargeCard (/srv/app/payments.js:57:13)\n    at pay (/srv/app/routes/payments.js:12:7)\n    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)',
];
/** The exception types of the Sentry error envelopes: each one issue. */
const ERROR_TYPES = [
  { type: 'PaymentDeclinedError', value: 'card declined for order', fn: 'chargeOrder', file: '/app/src/payments.js' },
  { type: 'UpstreamTimeoutError', value: 'inventory service timed out after 5000 ms for order', fn: 'reserveStock', file: '/app/src/inventory.js' },
  { type: 'ValidationError', value: 'shipping address has no postcode in order', fn: 'validateAddress', file: '/app/src/checkout.js' },
  { type: 'TypeError', value: "Cannot read properties of null (reading 'id') in order", fn: 'loadCustomer', file: '/app/src/customers.js' },
];

/** The ingest section's log, made quiet except one in ERROR_LOG_EVERY, which is an error with a stack trace. */
function soakLogItem(i: number) {
  const item = logItem(i);
  if (i % ERROR_LOG_EVERY === 0) return { ...item, severity: 'error', message: STACK_TRACES[(i / ERROR_LOG_EVERY) % STACK_TRACES.length] };
  return { ...item, severity: QUIET_SEVERITIES[i % QUIET_SEVERITIES.length] };
}

/** A Sentry Node SDK error event in an envelope of its own, as `captureException` sends it; a fresh event id each. */
function errorEnvelope(sequence: number): Buffer {
  const kind = ERROR_TYPES[sequence % ERROR_TYPES.length]!;
  const eventId = randomUUID().replaceAll('-', '');
  const event = {
    event_id: eventId,
    timestamp: Date.now() / 1000,
    platform: 'node',
    level: 'error',
    release: 'shop@1.4.0',
    environment: 'production',
    exception: {
      values: [
        {
          type: kind.type,
          value: `${kind.value} ${sequence}`,
          mechanism: { type: 'generic', handled: true },
          stacktrace: {
            frames: [
              { function: 'Layer.handle', filename: '/app/node_modules/express/lib/router/layer.js', lineno: 95, colno: 5, in_app: false },
              { function: 'router', filename: '/app/src/server.js', lineno: 40, colno: 3, in_app: true },
              { function: kind.fn, filename: kind.file, lineno: 27, colno: 11, in_app: true },
            ],
          },
        },
      ],
    },
    user: { id: `u${sequence % 5_000}` },
    sdk: { name: 'sentry.javascript.node', version: '10.0.0' },
  };
  const payload = JSON.stringify(event);
  return Buffer.from(`${JSON.stringify({ event_id: eventId })}\n${JSON.stringify({ type: 'event', length: Buffer.byteLength(payload) })}\n${payload}\n`);
}

export type SignalName = 'logs' | 'errors' | 'events';

export interface IngestAnswer {
  signal: SignalName;
  /** When the request was sent and when its answer arrived (performance.now()). */
  sentAt: number;
  answeredAt: number;
  accepted: number;
  rejected: number;
  /** Error-level logs among the accepted items (logs only, and only when the whole batch was accepted). */
  errorLogs: number;
  /** Why the request failed (an unexpected status or a broken connection), when it did. */
  failure?: string;
}

interface Request {
  body: Buffer;
  items: number;
  errorLogs: number;
}

interface Stream {
  signal: SignalName;
  path: string;
  okStatus: number;
  headers: Record<string, string>;
  requestsPerSecond: number;
  maxInFlight: number;
  next(sequence: number): Request;
  client: BenchClient;
  credit: number;
  inFlight: number;
  sequence: number;
}

/**
 * The operator's steady mixed load: logs in batches, Sentry error envelopes and analytics events, each stream paced
 * at its rate by a token bucket. A stream that cannot keep up (its requests in flight at the maximum) sends as fast as
 * the server answers and carries at most BURST_SECONDS of owed requests; what it reached is what was accepted.
 */
export function startSoakLoad(options: {
  url: string;
  key: string;
  logsPerSecond: number;
  errorsPerSecond: number;
  eventsPerSecond: number;
  onAnswer(answer: IngestAnswer): void;
}): { stop(): Promise<void> } {
  const logBodies: Request[] = [];
  for (let body = 0; body < LOG_BODIES; body++) {
    const batch = [];
    let errorLogs = 0;
    for (let i = body * LOG_BATCH; i < (body + 1) * LOG_BATCH; i++) {
      batch.push(soakLogItem(i));
      if (i % ERROR_LOG_EVERY === 0) errorLogs++;
    }
    logBodies.push({ body: Buffer.from(JSON.stringify({ batch })), items: LOG_BATCH, errorLogs });
  }
  const eventBodies: Request[] = Array.from({ length: 1_000 }, (_, i) => ({ body: Buffer.from(JSON.stringify({ batch: [eventItem(i)] })), items: 1, errorLogs: 0 }));
  const auth = { authorization: `Bearer ${options.key}` };
  const stream = (signal: SignalName, fields: Omit<Stream, 'signal' | 'client' | 'credit' | 'inFlight' | 'sequence'>): Stream => ({
    signal,
    ...fields,
    client: new BenchClient(options.url, fields.maxInFlight),
    credit: 0,
    inFlight: 0,
    sequence: 0,
  });
  const streams = [
    stream('logs', {
      path: '/v1/logs',
      okStatus: 202,
      headers: { ...auth, 'content-type': 'application/json' },
      requestsPerSecond: options.logsPerSecond / LOG_BATCH,
      maxInFlight: 16,
      next: (sequence) => logBodies[sequence % LOG_BODIES]!,
    }),
    stream('errors', {
      path: '/v1/envelope',
      okStatus: 200,
      headers: { ...auth, 'content-type': 'application/x-sentry-envelope' },
      requestsPerSecond: options.errorsPerSecond,
      maxInFlight: 8,
      next: (sequence) => ({ body: errorEnvelope(sequence), items: 1, errorLogs: 0 }),
    }),
    stream('events', {
      path: '/v1/events',
      okStatus: 202,
      headers: { ...auth, 'content-type': 'application/json' },
      requestsPerSecond: options.eventsPerSecond,
      maxInFlight: 8,
      next: (sequence) => eventBodies[sequence % eventBodies.length]!,
    }),
  ];
  const pending = new Set<Promise<void>>();

  const send = (target: Stream) => {
    const request = target.next(target.sequence++);
    target.inFlight++;
    const sentAt = performance.now();
    const answered = target.client
      .request('POST', target.path, request.body, target.headers)
      .then(
        (response) => {
          if (response.status !== target.okStatus) {
            return { accepted: 0, rejected: 0, errorLogs: 0, failure: `${target.path} answered ${response.status}: ${response.text.slice(0, 200)}` };
          }
          const { accepted, rejected } = JSON.parse(response.text) as { accepted: number; rejected: number };
          return { accepted, rejected, errorLogs: accepted === request.items ? request.errorLogs : 0 };
        },
        (error: unknown) => ({ accepted: 0, rejected: 0, errorLogs: 0, failure: `${target.path}: ${(error as Error).message}` }),
      )
      .then((outcome) => {
        target.inFlight--;
        options.onAnswer({ signal: target.signal, sentAt, answeredAt: performance.now(), ...outcome });
      });
    pending.add(answered);
    void answered.finally(() => pending.delete(answered));
  };

  let lastTick = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    const seconds = (now - lastTick) / 1000;
    lastTick = now;
    for (const target of streams) {
      target.credit = Math.min(target.credit + seconds * target.requestsPerSecond, Math.max(1, BURST_SECONDS * target.requestsPerSecond));
      while (target.credit >= 1 && target.inFlight < target.maxInFlight) {
        target.credit -= 1;
        send(target);
      }
    }
  }, TICK_MS);

  return {
    stop: async () => {
      clearInterval(timer);
      await Promise.all(pending);
      for (const target of streams) target.client.close();
    },
  };
}
