import { ReplayRecorder, type ReplayOptions } from './replay';
import { Transport, asError, resolveEndpoint, stackFrames, uuid4, type Properties, type Queued, type Severity } from './transport';

export { ClientError, resolveEndpoint, type Severity } from './transport';
export type { ReplayOptions } from './replay';

/**
 * The client in browsers (SPEC.md "Client-library conventions"), with no Node built-ins: uncaught errors and unhandled
 * rejections are captured with their `source` (`window.onerror`, `unhandledRejection`) and the last 50 breadcrumbs
 * (clicks, navigation, console, fetch and XHR); web vitals come from the `web-vitals` package; every item carries
 * `$session_id`. Items go in batches of 50 or every 5 s, and what is queued when the page goes away is sent with
 * `navigator.sendBeacon`. Give it the project's public key: it sends events, errors and vitals, and logs only with
 * `browserLogs` (the project's 'Allow browser logs'). With `replay` it records the session with rrweb (./replay.ts)
 * and links every captured exception to that replay.
 */

export const SDK_NAME = 'tlm.browser';
export const SDK_VERSION = '0.1.0';

/** SPEC.md "Error and issue": the trail attached to the next captured exception. */
export const MAX_BREADCRUMBS = 50;

export interface BrowserClientOptions {
  /** The project's public key (`tlm_pk_…`); required unless `dsn` names it. */
  apiKey?: string;
  /**
   * The project's DSN, `http(s)://<public key>@<host>/<dsn_id>` (shown with the project's keys): the key, the endpoint
   * and the route of the last flush come from it. Without it the last flush is a `keepalive` fetch.
   */
  dsn?: string;
  /** The service's base URL. Default: the DSN's, else the key's region in `regionEndpoints`, else localhost. */
  endpoint?: string;
  regionEndpoints?: Record<string, string>;
  /** Items queued before a flush; default 50. */
  batchSize?: number;
  /** Seconds between flushes; default 5.0. */
  flushInterval?: number;
  /** Merged into the properties of every log. */
  defaultContext?: Properties;
  disabled?: boolean;
  /** Sends through `POST /v1/envelope`; errors and web vitals need it (else they are dropped and reported). */
  useEnvelope?: boolean;
  release?: string;
  environment?: string;
  /** The person (`$distinct_id`); default an anonymous id kept in localStorage. */
  distinctId?: string;
  /** Sends logs; only for projects with 'Allow browser logs' on (a public key's logs are refused otherwise). */
  browserLogs?: boolean;
  /** Captures uncaught errors, unhandled rejections, breadcrumbs and web vitals; default true. */
  autoCapture?: boolean;
  /** Records the session for replay (rrweb), sent with every flush; `true` takes the defaults. Default off. */
  replay?: boolean | ReplayOptions;
  maxRetries?: number;
  retryBaseMs?: number;
  requestTimeoutMs?: number;
  onError?: (error: Error) => void;
}

interface Breadcrumb {
  category: string;
  message: string;
  timestamp: number;
  level?: string;
  type?: string;
  data?: Properties;
}

const DSN = /^(https?):\/\/([^@/]+)@([^/]+)\/(\d+)\/?$/;

/** The key, base URL and project number of a DSN; undefined when it is not one. */
export function parseDsn(dsn: string | undefined): { key: string; endpoint: string; dsnId: string } | undefined {
  const match = DSN.exec(dsn ?? '');
  return match ? { key: match[2]!, endpoint: `${match[1]}://${match[3]}`, dsnId: match[4]! } : undefined;
}

/** A value kept in web storage when the page may use it; otherwise made anew each time. */
function stored(storage: () => Storage, name: string, make: () => string): string {
  try {
    const existing = storage().getItem(name);
    if (existing) return existing;
    const value = make();
    storage().setItem(name, value);
    return value;
  } catch {
    return make();
  }
}

/** What a clicked element is, as a breadcrumb says it: `button#pay "Pay"`. */
function describeElement(target: EventTarget | null): string {
  if (!(target instanceof Element)) return String(target);
  const id = target.id ? `#${target.id}` : '';
  const classes = typeof target.className === 'string' && target.className ? `.${target.className.trim().split(/\s+/).join('.')}` : '';
  const text = (target.textContent ?? '').trim().slice(0, 40);
  return `${target.tagName.toLowerCase()}${id}${classes}${text ? ` "${text}"` : ''}`;
}

const text = (value: unknown): string => {
  if (typeof value === 'string') return value;
  if (value instanceof Error) return `${value.name}: ${value.message}`;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
};

export class BrowserClient {
  readonly endpoint: string;
  readonly sessionId: string;
  readonly distinctId: string;
  private readonly apiKey: string;
  private readonly dsnId: string | undefined;
  private readonly transport: Transport;
  private readonly breadcrumbs: Breadcrumb[] = [];
  private readonly options: BrowserClientOptions;
  private readonly timer: ReturnType<typeof setInterval> | undefined;
  private readonly uninstall: (() => void)[] = [];
  private readonly replay: ReplayRecorder | undefined;
  private toldLogsOff = false;

  constructor(options: BrowserClientOptions) {
    this.options = options;
    const dsn = parseDsn(options.dsn);
    this.apiKey = options.apiKey ?? dsn?.key ?? '';
    this.dsnId = dsn?.dsnId;
    this.endpoint = resolveEndpoint({ apiKey: this.apiKey, endpoint: options.endpoint ?? dsn?.endpoint, regionEndpoints: options.regionEndpoints });
    this.sessionId = stored(() => sessionStorage, 'tlm_session_id', uuid4);
    this.distinctId = options.distinctId ?? stored(() => localStorage, 'tlm_distinct_id', uuid4);
    this.transport = new Transport({
      apiKey: this.apiKey,
      endpoint: this.endpoint,
      batchSize: options.batchSize ?? 50,
      flushInterval: options.flushInterval ?? 5.0,
      maxRetries: options.maxRetries ?? 5,
      retryBaseMs: options.retryBaseMs ?? 500,
      requestTimeoutMs: options.requestTimeoutMs ?? 30_000,
      useEnvelope: options.useEnvelope === true,
      disabled: options.disabled === true,
      sdk: { name: SDK_NAME, version: SDK_VERSION },
      ...(options.onError ? { onError: options.onError } : {}),
    });
    if (!options.disabled && this.apiKey === '') {
      this.transport.disabled = true;
      this.transport.report(new TypeError('apiKey (or dsn) is required; the client sends nothing without one'));
    }
    if (this.transport.disabled) return;
    this.timer = setInterval(() => void this.flush(), this.transport.options.flushInterval * 1000);
    // The last flush: pagehide is the one event a leaving page is sure to get; hidden tabs may never come back.
    this.listen(window, 'pagehide', () => this.flushByBeacon());
    this.listen(document, 'visibilitychange', () => {
      if (document.visibilityState === 'hidden') this.flushByBeacon();
    });
    if (options.autoCapture !== false) this.installAutoCapture();
    if (options.replay) {
      this.replay = new ReplayRecorder(
        { transport: this.transport, replayId: this.sessionId, distinctId: this.distinctId, release: options.release, environment: options.environment, sdkName: SDK_NAME },
        options.replay === true ? {} : options.replay,
      );
    }
  }

  /** The id of the replay being recorded (the session's), or undefined without `replay`. */
  get replayId(): string | undefined {
    return this.replay?.replayId;
  }

  debug = (message: string, properties?: Properties) => this.log('debug', message, properties);
  info = (message: string, properties?: Properties) => this.log('info', message, properties);
  warn = (message: string, properties?: Properties) => this.log('warn', message, properties);
  error = (message: string, properties?: Properties) => this.log('error', message, properties);
  fatal = (message: string, properties?: Properties) => this.log('fatal', message, properties);

  /** Queues a log when `browserLogs` is on; otherwise drops it and says so to onError once. */
  log(severity: Severity, message: string, properties: Properties = {}): void {
    if (!this.options.browserLogs) {
      if (!this.toldLogsOff && !this.transport.disabled) this.transport.report(new Error("logs are not sent from browsers unless browserLogs is on (the project's 'Allow browser logs')"));
      this.toldLogsOff = true;
      return;
    }
    this.transport.enqueue('log', () => ({
      severity,
      message,
      timestamp: new Date().toISOString(),
      properties: { ...this.options.defaultContext, ...this.clientFields(), ...properties },
    }));
  }

  /** Queues a product-analytics event. */
  event(name: string, properties: Properties = {}, distinctId = this.distinctId): void {
    this.transport.enqueue('event', () => ({
      event: name,
      distinct_id: distinctId,
      timestamp: new Date().toISOString(),
      properties: { ...this.clientFields(), $distinct_id: distinctId, ...properties },
    }));
  }

  /** A breadcrumb of the host's own; the last 50 go with the next captured exception. */
  addBreadcrumb(crumb: { category: string; message: string; level?: string; data?: Properties }): void {
    this.breadcrumbs.push({ ...crumb, timestamp: Date.now() / 1000 });
    if (this.breadcrumbs.length > MAX_BREADCRUMBS) this.breadcrumbs.splice(0, this.breadcrumbs.length - MAX_BREADCRUMBS);
  }

  /**
   * Queues an exception as a Sentry error event with the breadcrumbs so far; `mechanism` is how it was caught
   * (`onerror` and `onunhandledrejection` are stored as the sources `window.onerror` and `unhandledRejection`).
   */
  captureException(error: unknown, properties: Properties = {}, mechanism = 'generic'): void {
    const failure = asError(error);
    const breadcrumbs = this.breadcrumbs.slice();
    this.transport.enqueue('error', () => ({
      event_id: uuid4().replace(/-/g, ''),
      timestamp: Date.now() / 1000,
      platform: 'javascript',
      level: 'error',
      ...(this.options.release ? { release: this.options.release } : {}),
      ...(this.options.environment ? { environment: this.options.environment } : {}),
      exception: {
        values: [{ type: failure.name, value: failure.message, mechanism: { type: mechanism, handled: mechanism === 'generic' }, stacktrace: { frames: stackFrames(failure.stack) } }],
      },
      breadcrumbs: { values: breadcrumbs },
      request: { url: location.href, headers: { 'User-Agent': navigator.userAgent } },
      user: { id: this.distinctId },
      tags: { session_id: this.sessionId, ...(this.replay ? { replayId: this.replay.replayId } : {}) },
      ...(this.replay ? { contexts: { replay: { replay_id: this.replay.replayId } } } : {}),
      extra: { ...this.options.defaultContext, $session_id: this.sessionId, ...properties },
      sdk: { name: SDK_NAME, version: SDK_VERSION },
    }));
  }

  /** Queues a web vital (milliseconds, CLS unitless) for `route`, by default the page's path; the server rates it. */
  vital(name: string, value: number, route = location.pathname, properties: Properties = {}): void {
    this.transport.enqueue('vital', () => ({
      name,
      value,
      route,
      timestamp: new Date().toISOString(),
      ...(this.options.release ? { release: this.options.release } : {}),
      ...(this.options.environment ? { environment: this.options.environment } : {}),
      properties: { ...this.clientFields(), ...properties },
    }));
  }

  /** Sends everything queued and recorded; resolves when sent or given up on (never rejects). */
  async flush(): Promise<void> {
    await Promise.all([this.transport.flush(), this.replay?.flush()]);
  }

  /** Sends what is queued, stops capturing and sends nothing after. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    for (const undo of this.uninstall.splice(0)) undo();
    this.replay?.stop();
    await this.flush();
    this.transport.disabled = true;
  }

  /**
   * The last flush of a leaving page: `navigator.sendBeacon`, which outlives the page but cannot set headers, so it
   * goes to the Sentry envelope route with the key as `?sentry_key=` (that route authenticates so, and needs the DSN's
   * project number); without a DSN, or when the beacon is refused (over 64 KB), a `keepalive` fetch with the key.
   */
  private flushByBeacon(): void {
    const entries: Queued[] = this.transport.take();
    const recording = this.replay?.takeEnvelope();
    const beaconable = this.dsnId !== undefined && typeof navigator.sendBeacon === 'function';
    const route = `${this.endpoint}/api/${this.dsnId}/envelope/?sentry_key=${encodeURIComponent(this.apiKey)}`;
    const requests = [
      ...(entries.length === 0
        ? []
        : beaconable
          ? this.transport.envelopes(entries).map((body) => ({ path: '/v1/envelope', body, contentType: 'application/x-sentry-envelope' }))
          : this.transport.requests(entries)),
      ...(recording === undefined ? [] : [{ path: '/v1/envelope', body: recording, contentType: 'application/x-sentry-envelope' }]),
    ];
    for (const request of requests) {
      // A string body goes as text/plain, which needs no CORS preflight.
      if (beaconable && navigator.sendBeacon(route, request.body)) continue;
      fetch(`${this.endpoint}${request.path}`, {
        method: 'POST',
        keepalive: true,
        headers: { authorization: `Bearer ${this.apiKey}`, 'content-type': request.contentType },
        body: request.body,
      }).catch((error: unknown) => this.transport.report(asError(error)));
    }
  }

  private clientFields(): Properties {
    return {
      $session_id: this.sessionId,
      $distinct_id: this.distinctId,
      $sdk_name: SDK_NAME,
      $sdk_version: SDK_VERSION,
      $current_url: location.href,
      $pathname: location.pathname,
    };
  }

  private listen(target: EventTarget, type: string, listener: (event: Event) => void): void {
    target.addEventListener(type, listener, { capture: true });
    this.uninstall.push(() => target.removeEventListener(type, listener, { capture: true }));
  }

  /** Replaces `owner[name]` with `wrap(original)` until the client closes. */
  private patch<T extends object, K extends keyof T>(owner: T, name: K, wrap: (original: T[K]) => T[K]): void {
    const original = owner[name];
    owner[name] = wrap(original);
    this.uninstall.push(() => {
      owner[name] = original;
    });
  }

  private installAutoCapture(): void {
    this.listen(window, 'error', (event) => {
      // Failed resources (an <img> that 404s) reach window too, as plain Events without an error.
      if (!(event instanceof ErrorEvent)) return;
      this.captureException(event.error ?? new Error(event.message), {}, 'onerror');
    });
    this.listen(window, 'unhandledrejection', (event) => {
      this.captureException((event as PromiseRejectionEvent).reason, {}, 'onunhandledrejection');
    });
    this.listen(document, 'click', (event) => this.addBreadcrumb({ category: 'ui.click', message: describeElement(event.target) }));

    let lastUrl = location.href;
    const navigated = () => {
      const to = location.href;
      if (to === lastUrl) return;
      this.addBreadcrumb({ category: 'navigation', message: `${lastUrl} -> ${to}`, data: { from: lastUrl, to } });
      lastUrl = to;
    };
    this.listen(window, 'popstate', navigated);
    for (const method of ['pushState', 'replaceState'] as const) {
      this.patch(history, method, (original) =>
        function (this: History, ...args: Parameters<History['pushState']>) {
          const result = original.apply(this, args);
          navigated();
          return result;
        },
      );
    }

    for (const level of ['debug', 'log', 'info', 'warn', 'error'] as const) {
      this.patch(console, level, (original) => (...args: unknown[]) => {
        this.addBreadcrumb({ category: 'console', level: level === 'log' ? 'info' : level, message: args.map(text).join(' ') });
        original.apply(console, args);
      });
    }

    const own = (url: string) => url.startsWith(this.endpoint);
    const client = this;
    this.patch(window, 'fetch', (original) => async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = input instanceof Request ? input.url : String(input);
      const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
      try {
        const response = await original(input, init);
        if (!own(url)) client.addBreadcrumb({ category: 'fetch', message: `${method} ${url} [${response.status}]`, data: { method, url, status_code: response.status } });
        return response;
      } catch (error) {
        if (!own(url)) client.addBreadcrumb({ category: 'fetch', level: 'error', message: `${method} ${url} failed`, data: { method, url } });
        throw error;
      }
    });
    const requests = new WeakMap<XMLHttpRequest, { method: string; url: string }>();
    this.patch(XMLHttpRequest.prototype, 'open', (original) =>
      function (this: XMLHttpRequest, ...args: Parameters<XMLHttpRequest['open']>) {
        requests.set(this, { method: String(args[0]).toUpperCase(), url: String(args[1]) });
        return original.apply(this, args);
      } as XMLHttpRequest['open'],
    );
    this.patch(XMLHttpRequest.prototype, 'send', (original) =>
      function (this: XMLHttpRequest, ...args: Parameters<XMLHttpRequest['send']>) {
        const request = requests.get(this);
        if (request && !own(request.url)) {
          this.addEventListener('loadend', () =>
            client.addBreadcrumb({ category: 'xhr', message: `${request.method} ${request.url} [${this.status}]`, data: { ...request, status_code: this.status } }),
          );
        }
        return original.apply(this, args);
      },
    );

    // web-vitals is an ES module and this package CommonJS: a dynamic import, which bundlers inline.
    void import('web-vitals').then(({ onCLS, onFCP, onINP, onLCP, onTTFB }) => {
      for (const observe of [onCLS, onFCP, onINP, onLCP, onTTFB]) {
        observe((metric) => this.vital(metric.name.toLowerCase(), metric.value, location.pathname, { rating_by_client: metric.rating }));
      }
    });
  }
}
