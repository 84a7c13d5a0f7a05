import { randomUUID } from 'node:crypto';
import { platform } from 'node:os';

/**
 * The service's own client library (SPEC.md "Client-library conventions"): logs and events are queued and sent in
 * batches (50 items or every 5 seconds), errors, when `useEnvelope` is on, through the envelope endpoint; every
 * telemetry failure is swallowed (reported to `onError`) so the host application never crashes on it, and rate-limited
 * requests are retried with exponential backoff. Alert rules and SLOs are managed through `alerts` and `slos`.
 */

export const SDK_NAME = 'tlm.node';
export const SDK_VERSION = '0.1.0';

export type Severity = 'debug' | 'info' | 'warn' | 'error' | 'fatal';
type Properties = Record<string, unknown>;

export interface ClientOptions {
  /** A project key (`tlm_pk_…` or `tlm_sk_…`); required. */
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
  /** Sends through `POST /v1/envelope`, which also carries errors; default false (`/v1/logs`, `/v1/events`). */
  useEnvelope?: boolean;
  /** Attached to errors sent through the envelope. */
  release?: string;
  environment?: string;
  /** The person the telemetry is about (`$distinct_id`); default a random id per client. */
  distinctId?: string;
  /** Attempts after the first for a rate-limited, failed or unreachable request; default 4. */
  maxRetries?: number;
  /** First backoff in milliseconds, doubled per attempt unless the answer says `Retry-After`; default 500. */
  retryBaseMs?: number;
  /** Told about every swallowed failure. */
  onError?: (error: Error) => void;
}

/** An answer other than 2xx to an explicit call (alerts, SLOs, queries), with the service's error code. */
export class ClientError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ClientError';
  }
}

const KEY_REGION = /^tlm_(?:pk|sk)_([a-z]{2})_/;
/** The longest a `Retry-After` is honoured for; the queue behind the batch waits that long at most per attempt. */
const MAX_RETRY_WAIT_MS = 30_000;

/** The base URL for a key: an explicit endpoint, its region's URL, `TLM_ENDPOINT`, else the local standalone server. */
export function resolveEndpoint(options: Pick<ClientOptions, 'apiKey' | 'endpoint' | 'regionEndpoints'>): string {
  const region = KEY_REGION.exec(options.apiKey)?.[1];
  const url = options.endpoint ?? (region ? options.regionEndpoints?.[region] : undefined) ?? process.env['TLM_ENDPOINT'] ?? 'http://localhost:8080';
  return url.replace(/\/+$/, '');
}

/** One V8 stack line: function (absent for anonymous top-level code), file, line, column. */
const STACK_FRAME = /^\s*at (?:(.+?) \()?(.+?):(\d+):(\d+)\)?$/;

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

type Queued = { kind: 'log'; item: Properties } | { kind: 'event'; item: Properties } | { kind: 'error'; item: Properties };

export class Client {
  readonly endpoint: string;
  readonly sessionId = randomUUID();
  readonly distinctId: string;
  readonly alerts: Alerts;
  readonly slos: Slos;
  private queue: Queued[] = [];
  private readonly timer: NodeJS.Timeout | undefined;
  private sending: Promise<void> = Promise.resolve();
  private readonly options: Required<Pick<ClientOptions, 'batchSize' | 'flushInterval' | 'maxRetries' | 'retryBaseMs'>> & ClientOptions;

  constructor(options: ClientOptions) {
    this.options = { batchSize: 50, flushInterval: 5.0, maxRetries: 4, retryBaseMs: 500, ...options };
    this.endpoint = resolveEndpoint(options);
    this.distinctId = options.distinctId ?? randomUUID();
    this.alerts = new Alerts(this);
    this.slos = new Slos(this);
    if (!options.disabled) {
      this.timer = setInterval(() => void this.flush(), this.options.flushInterval * 1000);
      this.timer.unref();
    }
  }

  debug = (message: string, properties?: Properties) => this.log('debug', message, properties);
  info = (message: string, properties?: Properties) => this.log('info', message, properties);
  warn = (message: string, properties?: Properties) => this.log('warn', message, properties);
  error = (message: string, properties?: Properties) => this.log('error', message, properties);
  fatal = (message: string, properties?: Properties) => this.log('fatal', message, properties);

  /** Queues a log with the default context, the client's fields and where it was called from. */
  log(severity: Severity, message: string, properties: Properties = {}): void {
    if (this.options.disabled) return;
    const location = callerLocation();
    this.enqueue({
      kind: 'log',
      item: {
        severity,
        message,
        timestamp: new Date().toISOString(),
        properties: { ...this.options.defaultContext, ...this.clientFields(), ...properties, ...(location ? { code_location: location } : {}) },
      },
    });
  }

  /** Queues a product-analytics event. */
  event(name: string, properties: Properties = {}, distinctId = this.distinctId): void {
    if (this.options.disabled) return;
    this.enqueue({ kind: 'event', item: { event: name, distinct_id: distinctId, timestamp: new Date().toISOString(), properties: { ...this.clientFields(), ...properties } } });
  }

  /**
   * Queues an exception: a Sentry error event through the envelope when `useEnvelope` is on (an issue right away),
   * else an `error` log holding the stack, which the log scanner turns into an error within a minute.
   */
  captureException(error: unknown, properties: Properties = {}): void {
    if (this.options.disabled) return;
    const failure = error instanceof Error ? error : new Error(String(error));
    if (!this.options.useEnvelope) {
      this.log('error', failure.stack ?? `${failure.name}: ${failure.message}`, { ...properties, 'exception.type': failure.name });
      return;
    }
    this.enqueue({
      kind: 'error',
      item: {
        event_id: randomUUID().replace(/-/g, ''),
        timestamp: Date.now() / 1000,
        platform: 'node',
        level: 'error',
        ...(this.options.release ? { release: this.options.release } : {}),
        ...(this.options.environment ? { environment: this.options.environment } : {}),
        exception: { values: [{ type: failure.name, value: failure.message, stacktrace: { frames: stackFrames(failure.stack) } }] },
        user: { id: this.distinctId },
        tags: { session_id: this.sessionId },
        extra: { ...this.options.defaultContext, ...properties },
        sdk: { name: SDK_NAME, version: SDK_VERSION },
      },
    });
  }

  /** Sends everything queued; resolves when sent or given up on (never rejects). */
  flush(): Promise<void> {
    const taken = this.queue;
    this.queue = [];
    // A batch that cannot even be serialised (a circular property) is reported and dropped, never left to reject.
    if (taken.length > 0) this.sending = this.sending.then(() => this.send(taken)).catch((error: unknown) => this.report(asError(error)));
    return this.sending;
  }

  /** Flushes until nothing is queued (items logged meanwhile too) and stops the timer; the client sends nothing after. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    while (this.queue.length > 0) await this.flush();
    await this.sending;
    this.options.disabled = true;
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
    });
    const text = await response.text();
    const parsed: unknown = text ? JSON.parse(text) : undefined;
    if (!response.ok) {
      const error = (parsed as { error?: { code?: string; message?: string } } | undefined)?.error;
      throw new ClientError(response.status, error?.code ?? 'UNKNOWN', error?.message ?? `${method} ${path} answered ${response.status}`);
    }
    return parsed;
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

  private enqueue(entry: Queued): void {
    this.queue.push(entry);
    if (this.queue.length >= this.options.batchSize) void this.flush();
  }

  /** One request per signal (or one envelope); failures are swallowed. */
  private async send(entries: Queued[]): Promise<void> {
    const of = (kind: Queued['kind']) => entries.filter((entry) => entry.kind === kind).map((entry) => entry.item);
    const [logs, events, errors] = [of('log'), of('event'), of('error')];
    if (this.options.useEnvelope) {
      const lines = [JSON.stringify({ sent_at: new Date().toISOString(), sdk: { name: SDK_NAME, version: SDK_VERSION } })];
      const item = (type: string, payload: unknown) => lines.push(JSON.stringify({ type }), JSON.stringify(payload));
      if (logs.length > 0) item('log', { items: logs });
      if (events.length > 0) item('analytics_event', { items: events });
      for (const error of errors) item('event', error);
      await this.deliver('/v1/envelope', `${lines.join('\n')}\n`, 'application/x-sentry-envelope');
      return;
    }
    if (logs.length > 0) await this.deliver('/v1/logs', JSON.stringify({ batch: logs }), 'application/json');
    if (events.length > 0) await this.deliver('/v1/events', JSON.stringify({ batch: events }), 'application/json');
  }

  private async deliver(path: string, body: string, contentType: string): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      let wait: number | undefined;
      try {
        const response = await fetch(`${this.endpoint}${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${this.options.apiKey}`, 'content-type': contentType },
          body,
        });
        await response.arrayBuffer();
        if (response.ok) return;
        if (response.status !== 429 && response.status < 500) {
          this.report(new ClientError(response.status, 'REJECTED', `${path} refused the batch with ${response.status}`));
          return;
        }
        const retryAfter = Number(response.headers.get('retry-after'));
        if (response.status === 429 && Number.isFinite(retryAfter) && response.headers.has('retry-after')) wait = Math.min(retryAfter * 1000, MAX_RETRY_WAIT_MS);
        if (attempt >= this.options.maxRetries) {
          this.report(new ClientError(response.status, 'GAVE_UP', `${path} still answered ${response.status} after ${attempt + 1} attempts`));
          return;
        }
      } catch (error) {
        if (attempt >= this.options.maxRetries) {
          this.report(asError(error));
          return;
        }
      }
      await new Promise((resolve) => setTimeout(resolve, wait ?? this.options.retryBaseMs * 2 ** attempt));
    }
  }

  private report(error: Error): void {
    try {
      this.options.onError?.(error);
    } catch {
      // The host's own handler failing must not reach the host either.
    }
  }
}

const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));

/** Sentry frames from a V8 stack, innermost last. */
function stackFrames(stack: string | undefined): Properties[] {
  const frames: Properties[] = [];
  for (const line of (stack ?? '').split('\n').slice(1)) {
    const match = STACK_FRAME.exec(line);
    if (!match) continue;
    const filename = match[2]!;
    frames.push({
      function: match[1] ?? '<anonymous>',
      filename,
      lineno: Number(match[3]),
      colno: Number(match[4]),
      in_app: !filename.includes('node_modules') && !filename.startsWith('node:'),
    });
  }
  return frames.reverse();
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
