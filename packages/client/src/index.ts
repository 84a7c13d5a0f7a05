import { AsyncLocalStorage } from 'node:async_hooks';
import { platform } from 'node:os';
import { ClientError, STACK_FRAME, Transport, asError, randomHex, resolveEndpoint, stackFrames, uuid4, type Properties, type Severity } from './transport';

export { ClientError, resolveEndpoint, type Severity } from './transport';

/**
 * The service's own client library (SPEC.md "Client-library conventions"): logs and events are queued and sent in
 * batches (50 items or every 5 seconds); errors, traces and web vitals, when `useEnvelope` is on, through the envelope
 * endpoint. Every telemetry failure is swallowed (reported to `onError`) so the host application never crashes on it,
 * and rate-limited requests are retried with exponential backoff. Alert rules and SLOs are managed through `alerts`
 * and `slos`.
 */

export const SDK_NAME = 'tlm.node';
export const SDK_VERSION = '0.1.0';

export interface ClientOptions {
  /** A project key (`tlm_pk_…` or `tlm_sk_…`); required: without one the client is disabled and says so to onError. */
  apiKey: string;
  /** The service's base URL. Default: the key's region in `regionEndpoints`, else `TLM_ENDPOINT`, else localhost. */
  endpoint?: string;
  /** Base URL per region (`{eu: 'https://eu.example.com'}`), for resolving the endpoint from the key. */
  regionEndpoints?: Record<string, string>;
  /** Items queued before a flush; default 50. */
  batchSize?: number;
  /** Seconds between flushes; default 5.0. */
  flushInterval?: number;
  /** Merged into the properties of every log. */
  defaultContext?: Properties;
  /** Sends nothing; every call is a no-op. */
  disabled?: boolean;
  /**
   * Sends through `POST /v1/envelope`, which also carries errors, traces and web vitals; default false (`/v1/logs`,
   * `/v1/events`; spans and vitals are then dropped and reported).
   */
  useEnvelope?: boolean;
  /** Attached to errors and spans. */
  release?: string;
  environment?: string;
  /** The person the telemetry is about (`$distinct_id`); default a random id per client. */
  distinctId?: string;
  /** Attempts after the first for a rate-limited, failed or unreachable request; default 5. */
  maxRetries?: number;
  /** First backoff in milliseconds, doubled per attempt (at least the answer's `Retry-After`); default 500. */
  retryBaseMs?: number;
  /** How long one request may take before it counts as failed (and is retried); default 30 seconds. */
  requestTimeoutMs?: number;
  /** Told about every swallowed failure. */
  onError?: (error: Error) => void;
}

/**
 * This file as stack traces name it: taken from a stack made here, so it is right however frames are mapped
 * (`--enable-source-maps` names src/index.ts, plain Node dist/index.js).
 */
const OWN_FILE = STACK_FRAME.exec(new Error().stack?.split('\n')[1] ?? '')?.[2];

/** `function@file:line` of the first stack frame outside this library: where the host application called it. */
export function callerLocation(stack: string | undefined = new Error().stack, ownFile = OWN_FILE): string | undefined {
  for (const line of (stack ?? '').split('\n').slice(1)) {
    const match = STACK_FRAME.exec(line);
    if (!match || match[2] === ownFile || match[2]!.startsWith('node:')) continue;
    return `${match[1] ?? '<anonymous>'}@${match[2]}:${match[3]}`;
  }
  return undefined;
}

/** W3C trace context: `00-<32 hex trace id>-<16 hex parent id>-<flags>`; all-zero ids are invalid. */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}(?:-.*)?$/;

/** The trace and parent span of a `traceparent` header, or undefined when it is not a valid one. */
export function parseTraceparent(header: string | undefined): { traceId: string; parentSpanId: string } | undefined {
  const match = TRACEPARENT.exec((header ?? '').trim().toLowerCase());
  if (!match || match[1] === 'ff' || /^0+$/.test(match[2]!) || /^0+$/.test(match[3]!)) return undefined;
  if (match[1] === '00' && header!.trim().length !== 55) return undefined;
  return { traceId: match[2]!, parentSpanId: match[3]! };
}

export interface SpanOptions {
  name: string;
  op?: string;
  attributes?: Properties;
  /** Continues a trace from another service (an incoming request's `traceparent` header); only for a root span. */
  traceparent?: string;
}

/**
 * A span of a trace: a root span is the transaction. `end()` queues it; `trace()` runs a block as the active span,
 * so spans, logs and errors made inside join its trace, and a block that throws ends its span with status `error`.
 */
export class Span {
  readonly traceId: string;
  readonly spanId = randomHex(8);
  readonly parentSpanId: string | undefined;
  readonly startedAt = Date.now();
  private status: 'ok' | 'error' = 'ok';
  private readonly attributes: Properties;
  private readonly events: { name: string; timestamp: number; attributes: Properties }[] = [];
  private ended = false;

  constructor(
    private readonly client: Client,
    readonly name: string,
    readonly op: string | undefined,
    attributes: Properties | undefined,
    parent: { traceId: string; parentSpanId: string } | undefined,
  ) {
    this.traceId = parent?.traceId ?? randomHex(16);
    this.parentSpanId = parent?.parentSpanId;
    this.attributes = { ...attributes };
  }

  setAttribute(key: string, value: unknown): this {
    this.attributes[key] = value;
    return this;
  }

  /** A named event at this moment (an OpenTelemetry span event). */
  addEvent(name: string, attributes: Properties = {}): this {
    this.events.push({ name, timestamp: Date.now(), attributes: { ...attributes } });
    return this;
  }

  setStatus(status: 'ok' | 'error'): this {
    this.status = status;
    return this;
  }

  /** A child span of this one. */
  startChild(options: Omit<SpanOptions, 'traceparent'>): Span {
    return new Span(this.client, options.name, options.op, options.attributes, { traceId: this.traceId, parentSpanId: this.spanId });
  }

  /** The `traceparent` header that makes a downstream service's spans children of this one. */
  traceparent(): string {
    return `00-${this.traceId}-${this.spanId}-01`;
  }

  /** Finishes the span and queues it; a second call does nothing. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    const endedAt = Date.now();
    this.client.queueSpan(() => ({
      trace_id: this.traceId,
      span_id: this.spanId,
      ...(this.parentSpanId ? { parent_span_id: this.parentSpanId } : {}),
      name: this.name,
      status: this.status,
      start_timestamp: this.startedAt / 1000,
      end_timestamp: endedAt / 1000,
      attributes: typedAttributes({ ...this.client.spanAttributes(), ...(this.op ? { 'sentry.op': this.op } : {}), ...this.attributes }),
      events: this.events.map((event) => ({ name: event.name, timestamp: event.timestamp / 1000, attributes: typedAttributes(event.attributes) })),
    }));
  }
}

/** Span v2 attributes: `{name: {type, value}}`. */
function typedAttributes(values: Properties): Properties {
  const typed: Properties = {};
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined) continue;
    const type = typeof value === 'boolean' ? 'boolean' : typeof value === 'number' ? (Number.isInteger(value) ? 'integer' : 'double') : 'string';
    typed[name] = { type, value: type === 'string' && typeof value !== 'string' ? JSON.stringify(value) : value };
  }
  return typed;
}

/** The active span, shared by the process's clients (one AsyncLocalStorage, however many clients). */
const activeSpan = new AsyncLocalStorage<Span>();

/** Clients with something queued when the process runs out of work: flushed then, so a short script loses nothing. */
const liveClients = new Set<Client>();
/** How often one client sends at exit: an onError that logs through the client must not keep the process alive. */
const MAX_EXIT_FLUSHES = 3;
let exitHookInstalled = false;
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // beforeExit comes when the event loop empties (not on process.exit() or a crash); the flush's requests keep the
  // process alive until they are done, and then it comes again with nothing left to send.
  process.on('beforeExit', () => {
    for (const client of liveClients) void client.flushAtExit();
  });
}
export class Client {
  readonly endpoint: string;
  readonly sessionId = uuid4();
  readonly distinctId: string;
  readonly alerts: Alerts;
  readonly slos: Slos;
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly active = activeSpan;
  private exitFlushes = 0;
  private readonly transport: Transport;
  private readonly options: Required<Pick<ClientOptions, 'batchSize' | 'flushInterval' | 'maxRetries' | 'retryBaseMs' | 'requestTimeoutMs'>> & ClientOptions;

  constructor(options: ClientOptions) {
    this.options = { batchSize: 50, flushInterval: 5.0, maxRetries: 5, retryBaseMs: 500, requestTimeoutMs: 30_000, ...options };
    this.endpoint = resolveEndpoint(options);
    this.distinctId = options.distinctId ?? uuid4();
    this.alerts = new Alerts(this);
    this.slos = new Slos(this);
    const { apiKey, batchSize, flushInterval, maxRetries, retryBaseMs, requestTimeoutMs, onError } = this.options;
    this.transport = new Transport({
      apiKey,
      endpoint: this.endpoint,
      batchSize,
      flushInterval,
      maxRetries,
      retryBaseMs,
      requestTimeoutMs,
      onError,
      useEnvelope: this.options.useEnvelope === true,
      disabled: this.options.disabled === true,
      sdk: { name: SDK_NAME, version: SDK_VERSION },
    });
    if (!options.disabled && (typeof options.apiKey !== 'string' || options.apiKey === '')) {
      this.transport.disabled = true;
      this.report(new TypeError('apiKey is required; the client sends nothing without one'));
    }
    if (!this.transport.disabled) {
      this.timer = setInterval(() => void this.flush(), this.options.flushInterval * 1000);
      this.timer.unref();
      liveClients.add(this);
      installExitHook();
    }
  }

  debug = (message: string, properties?: Properties) => this.log('debug', message, properties);
  info = (message: string, properties?: Properties) => this.log('info', message, properties);
  warn = (message: string, properties?: Properties) => this.log('warn', message, properties);
  error = (message: string, properties?: Properties) => this.log('error', message, properties);
  fatal = (message: string, properties?: Properties) => this.log('fatal', message, properties);

  /** Queues a log with the default context, the client's fields, where it was called from and the active span. */
  log(severity: Severity, message: string, properties: Properties = {}): void {
    if (this.transport.disabled) return;
    // Taken here, not in the queue's builder, so the stack holds no frame of the shared transport.
    const location = callerLocation();
    this.enqueue('log', () => {
      return {
        severity,
        message,
        timestamp: new Date().toISOString(),
        properties: { ...this.options.defaultContext, ...this.clientFields(), ...properties, ...(location ? { code_location: location } : {}) },
        ...this.traceFields(),
      };
    });
  }

  /** Queues a product-analytics event. */
  event(name: string, properties: Properties = {}, distinctId = this.distinctId): void {
    this.enqueue('event', () => ({
      event: name,
      distinct_id: distinctId,
      timestamp: new Date().toISOString(),
      properties: { ...this.clientFields(), $distinct_id: distinctId, ...properties },
    }));
  }

  /**
   * Queues an exception: a Sentry error event through the envelope when `useEnvelope` is on (an issue right away),
   * else an `error` log holding the stack, which the log scanner turns into an error within a minute. Either way it
   * carries the release, the environment and the active span's trace.
   */
  captureException(error: unknown, properties: Properties = {}): void {
    if (!this.options.useEnvelope) {
      this.enqueue('log', () => {
        const failure = asError(error);
        return {
          severity: 'error',
          message: failure.stack ?? `${failure.name}: ${failure.message}`,
          timestamp: new Date().toISOString(),
          properties: {
            ...this.options.defaultContext,
            ...this.clientFields(),
            ...properties,
            'exception.type': failure.name,
            ...(this.options.release ? { release: this.options.release } : {}),
            ...(this.options.environment ? { environment: this.options.environment } : {}),
          },
          ...this.traceFields(),
        };
      });
      return;
    }
    this.enqueue('error', () => {
      const failure = asError(error);
      const span = this.active.getStore();
      return {
        event_id: uuid4().replace(/-/g, ''),
        timestamp: Date.now() / 1000,
        platform: 'node',
        level: 'error',
        ...(this.options.release ? { release: this.options.release } : {}),
        ...(this.options.environment ? { environment: this.options.environment } : {}),
        exception: { values: [{ type: failure.name, value: failure.message, stacktrace: { frames: stackFrames(failure.stack) } }] },
        user: { id: this.distinctId },
        tags: { session_id: this.sessionId },
        extra: { ...this.options.defaultContext, ...properties },
        ...(span ? { contexts: { trace: { trace_id: span.traceId, span_id: span.spanId } } } : {}),
        sdk: { name: SDK_NAME, version: SDK_VERSION },
      };
    });
  }

  /** Queues a web vital (`lcp`, `inp`, `cls`, `fcp`, `ttfb`; milliseconds, CLS unitless); the server rates it. */
  vital(name: string, value: number, route: string, properties: Properties = {}): void {
    this.enqueue('vital', () => ({
      name,
      value,
      route,
      timestamp: new Date().toISOString(),
      ...(this.active.getStore() ? { trace_id: this.active.getStore()!.traceId } : {}),
      ...(this.options.release ? { release: this.options.release } : {}),
      ...(this.options.environment ? { environment: this.options.environment } : {}),
      properties: { ...this.clientFields(), ...properties },
    }));
  }

  /**
   * Starts a span: a child of the active span, else a root span (a transaction), continuing `traceparent` when given.
   * End it with `end()`; `trace()` does both around a block.
   */
  startSpan(options: SpanOptions): Span {
    const active = this.active.getStore();
    const parent = active ? { traceId: active.traceId, parentSpanId: active.spanId } : parseTraceparent(options.traceparent);
    return new Span(this, options.name, options.op, options.attributes, parent);
  }

  /**
   * Runs `block` as the active span: spans, logs and errors it makes join the trace. A block that throws (or whose
   * promise rejects) ends the span with status `error` and an `exception` event, and the error goes on to the caller.
   */
  trace<T>(options: SpanOptions, block: (span: Span) => T): T {
    const span = this.startSpan(options);
    const failed = (error: unknown) => {
      span.setStatus('error');
      const failure = asError(error);
      span.addEvent('exception', { 'exception.type': failure.name, 'exception.message': failure.message });
    };
    let result: T;
    try {
      result = this.active.run(span, () => block(span));
    } catch (error) {
      failed(error);
      span.end();
      throw error;
    }
    if (result instanceof Promise) {
      return result.then(
        (value: unknown) => {
          span.end();
          return value;
        },
        (error: unknown) => {
          failed(error);
          span.end();
          throw error;
        },
      ) as T;
    }
    span.end();
    return result;
  }

  /** The `traceparent` of the active span, for an outgoing request; undefined outside a span. */
  traceparent(): string | undefined {
    return this.active.getStore()?.traceparent();
  }

  /** Sends everything queued; resolves when sent or given up on (never rejects). */
  flush(): Promise<void> {
    return this.transport.flush();
  }

  /** @internal The exit hook's flush: one attempt per request, a short timeout, at most MAX_EXIT_FLUSHES times. */
  async flushAtExit(): Promise<void> {
    if (this.transport.queued === 0 || this.exitFlushes >= MAX_EXIT_FLUSHES) return;
    this.exitFlushes += 1;
    this.transport.exiting = true;
    try {
      await this.flush();
    } finally {
      this.transport.exiting = false;
    }
  }

  /** Flushes until nothing is queued (items logged meanwhile too) and stops the timer; the client sends nothing after. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    while (this.transport.queued > 0) await this.flush();
    await this.transport.settled();
    this.transport.disabled = true;
    liveClients.delete(this);
  }

  /** Runs a GQL query (scope `data:read`) and answers its `data`. */
  async query(q: string): Promise<{ mode: string; results: Properties[]; total_groups?: number }> {
    return ((await this.call('POST', '/v1/gql/query', { q })) as { data: { mode: string; results: Properties[] } }).data;
  }

  /** An explicit call: JSON in and out, a ClientError for any answer but 2xx. */
  async call(method: string, path: string, body?: unknown): Promise<unknown> {
    const response = await fetch(`${this.endpoint}${path}`, {
      method,
      headers: { authorization: `Bearer ${this.options.apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(this.options.requestTimeoutMs),
    });
    const text = await response.text();
    const parsed: unknown = text ? JSON.parse(text) : undefined;
    if (!response.ok) {
      const error = (parsed as { error?: { code?: string; message?: string } } | undefined)?.error;
      throw new ClientError(response.status, error?.code ?? 'UNKNOWN', error?.message ?? `${method} ${path} answered ${response.status}`);
    }
    return parsed;
  }

  /** @internal Queues a finished span (Span.end). */
  queueSpan(build: () => Properties): void {
    this.enqueue('span', build);
  }

  /** @internal The attributes every span carries: the release, the environment and the client's fields. */
  spanAttributes(): Properties {
    return {
      ...(this.options.release ? { 'sentry.release': this.options.release } : {}),
      ...(this.options.environment ? { 'sentry.environment': this.options.environment } : {}),
      $session_id: this.sessionId,
      $sdk_name: SDK_NAME,
      $sdk_version: SDK_VERSION,
    };
  }

  private clientFields(): Properties {
    return {
      $session_id: this.sessionId,
      $distinct_id: this.distinctId,
      $sdk_name: SDK_NAME,
      $sdk_version: SDK_VERSION,
      $os: platform(),
      $runtime_version: process.version,
    };
  }

  /** The active span's trace, for a log or an error log. */
  private traceFields(): Properties {
    const span = this.active.getStore();
    return span ? { trace_id: span.traceId, span_id: span.spanId } : {};
  }

  private enqueue(kind: 'log' | 'event' | 'error' | 'span' | 'vital', build: () => Properties): void {
    this.transport.enqueue(kind, build);
  }

  private report(error: Error): void {
    this.transport.report(error);
  }
}

export interface AlertRuleInput {
  name: string;
  /** A GQL aggregate with one value and no time range, e.g. `from:logs severity:error | count`. */
  metric: string;
  threshold: number;
  window_minutes: number;
  severity?: 'info' | 'warning' | 'critical';
  comparator?: 'gt' | 'gte' | 'lt' | 'lte';
  enabled?: boolean;
  channels?: { type: 'webhook'; url: string }[];
}

/** Alert rules (SPEC.md: create, update, mute; also list, get, delete). */
export class Alerts {
  constructor(private readonly client: Client) {}
  create = (rule: AlertRuleInput) => this.client.call('POST', '/v1/alerts', rule) as Promise<Properties>;
  update = (id: string, changes: Partial<AlertRuleInput>) => this.client.call('PUT', `/v1/alerts/${encodeURIComponent(id)}`, changes) as Promise<Properties>;
  /** Mutes for `minutes`; 0 unmutes. */
  mute = (id: string, minutes: number) => this.client.call('POST', `/v1/alerts/${encodeURIComponent(id)}/mute`, { minutes }) as Promise<Properties>;
  get = (id: string) => this.client.call('GET', `/v1/alerts/${encodeURIComponent(id)}`) as Promise<Properties>;
  list = async () => ((await this.client.call('GET', '/v1/alerts')) as { alerts: Properties[] }).alerts;
  delete = async (id: string) => void (await this.client.call('DELETE', `/v1/alerts/${encodeURIComponent(id)}`));
}

export interface SloInput {
  name: string;
  target_percent: number;
  /** GQL counts of the good and of all events, e.g. `from:spans status:ok | count` and `from:spans | count`. */
  good: string;
  total: string;
  window_days?: number;
}

/** SLOs (SPEC.md: create, list, update, delete with `name` and `target_percent`). */
export class Slos {
  constructor(private readonly client: Client) {}
  create = (slo: SloInput) => this.client.call('POST', '/v1/slos', slo) as Promise<Properties>;
  update = (id: string, changes: Partial<SloInput>) => this.client.call('PUT', `/v1/slos/${encodeURIComponent(id)}`, changes) as Promise<Properties>;
  get = (id: string) => this.client.call('GET', `/v1/slos/${encodeURIComponent(id)}`) as Promise<Properties>;
  list = async () => ((await this.client.call('GET', '/v1/slos')) as { slos: Properties[] }).slos;
  delete = async (id: string) => void (await this.client.call('DELETE', `/v1/slos/${encodeURIComponent(id)}`));
}
