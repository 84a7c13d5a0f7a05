/**
 * What the Node and the browser clients share, with no Node built-ins: the queue, batching (50 items or every 5 s),
 * requests within the service's limits, retries with backoff, and the report of every swallowed failure.
 */

export type Properties = Record<string, unknown>;
export type Severity = 'debug' | 'info' | 'warn' | 'error' | 'fatal';

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
/** The longest one wait between attempts lasts, `Retry-After` included. */
const MAX_RETRY_WAIT_MS = 30_000;
/** SPEC.md Limits: at most 500 items and 2 MB per ingest request. */
const MAX_REQUEST_ITEMS = 500;
const MAX_REQUEST_BYTES = 2 * 1024 * 1024;
/** An envelope item may hold 1 MiB, an envelope 20 MiB (docs/api.md); a little is left for the framing. */
const MAX_ENVELOPE_ITEM_BYTES = 1024 * 1024 - 1024;
const MAX_ENVELOPE_BYTES = 20 * 1024 * 1024 - 64 * 1024;
/** At exit (Node's beforeExit) a request is tried once, for at most this long. */
const EXIT_REQUEST_TIMEOUT_MS = 2_000;

/** `TLM_ENDPOINT` where there is a process environment (Node); browsers have none. */
const envEndpoint = (): string | undefined => (typeof process === 'undefined' ? undefined : process.env?.['TLM_ENDPOINT']);

/** The base URL for a key: an explicit endpoint, its region's URL, `TLM_ENDPOINT`, else the local standalone server. */
export function resolveEndpoint(options: { apiKey: string; endpoint?: string; regionEndpoints?: Record<string, string> }): string {
  const region = KEY_REGION.exec(options.apiKey ?? '')?.[1];
  const url = options.endpoint ?? (region ? options.regionEndpoints?.[region] : undefined) ?? envEndpoint() ?? 'http://localhost:8080';
  return url.replace(/\/+$/, '');
}

/** Random bytes as hex, from Web Crypto (Node 20 and every browser, secure context or not). */
export function randomHex(bytes: number): string {
  return Array.from(globalThis.crypto.getRandomValues(new Uint8Array(bytes)), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** A v4 UUID; `crypto.randomUUID` exists only in secure contexts, so it is built from random bytes. */
export function uuid4(): string {
  const hex = randomHex(16).split('');
  hex[12] = '4';
  hex[16] = '89ab'[parseInt(hex[16]!, 16) & 3]!;
  const text = hex.join('');
  return `${text.slice(0, 8)}-${text.slice(8, 12)}-${text.slice(12, 16)}-${text.slice(16, 20)}-${text.slice(20)}`;
}

/** Any thrown value as an Error; a value that cannot even be turned into text (a null-prototype object) is named so. */
export function asError(error: unknown): Error {
  if (error instanceof Error) return error;
  try {
    const failure = new Error(String(error));
    // An error from another realm or a DOMException (fetch's TimeoutError) keeps its name.
    const name = (error as { name?: unknown } | null)?.name;
    if (typeof name === 'string') failure.name = name;
    return failure;
  } catch {
    return new Error('a value that cannot be shown as text was thrown');
  }
}

/** One V8 stack line: function (absent for anonymous top-level code), file, line, column. */
export const STACK_FRAME = /^\s*at (?:(.+?) \()?(.+?):(\d+):(\d+)\)?$/;

/** Sentry frames from a V8 stack, innermost last. */
export function stackFrames(stack: string | undefined): Properties[] {
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

export type Kind = 'log' | 'event' | 'error' | 'span' | 'vital';
/** A queued item, already serialised: an item that cannot be is reported and dropped alone when it is queued. */
export type Queued = { kind: Kind; text: string };

/** One request's path, body and content type. */
export interface Outgoing {
  path: string;
  /** Text, or bytes the caller compressed (a replay chunk). */
  body: string | Uint8Array<ArrayBuffer>;
  contentType: string;
}

export interface TransportOptions {
  apiKey: string;
  endpoint: string;
  batchSize: number;
  flushInterval: number;
  useEnvelope: boolean;
  maxRetries: number;
  retryBaseMs: number;
  requestTimeoutMs: number;
  disabled: boolean;
  sdk: { name: string; version: string };
  onError?: (error: Error) => void;
}

export const byteLength = (text: string): number => new TextEncoder().encode(text).length;

/** The queue of one client and the requests that empty it. */
export class Transport {
  private queue: Queued[] = [];
  private sending: Promise<void> = Promise.resolve();
  /** Set while flushing at exit: one attempt per request, a short timeout. */
  exiting = false;

  constructor(readonly options: TransportOptions) {}

  get disabled(): boolean {
    return this.options.disabled;
  }

  set disabled(disabled: boolean) {
    this.options.disabled = disabled;
  }

  get queued(): number {
    return this.queue.length;
  }

  /**
   * Builds and serialises an item now: whatever the host passed (a getter that throws, a BigInt, a cycle) fails this
   * item alone, reported and dropped, never the call and never its neighbours.
   */
  enqueue(kind: Kind, build: () => Properties): void {
    if (this.options.disabled) return;
    try {
      this.queue.push({ kind, text: JSON.stringify(build()) });
    } catch (error) {
      this.report(asError(error));
      return;
    }
    if (this.queue.length >= this.options.batchSize) void this.flush();
  }

  /** Sends everything queued; resolves when sent or given up on (never rejects). */
  flush(): Promise<void> {
    const taken = this.take();
    if (taken.length > 0) this.sending = this.sending.then(() => this.send(taken)).catch((error: unknown) => this.report(asError(error)));
    return this.sending;
  }

  /** Empties the queue and answers what it held (the browser's last flush sends it by beacon). */
  take(): Queued[] {
    const taken = this.queue;
    this.queue = [];
    return taken;
  }

  /** What has been handed to `flush` and is still being sent. */
  settled(): Promise<void> {
    return this.sending;
  }

  /** The envelopes that carry `entries` (`/v1/envelope` or a Sentry envelope route), within the envelope limits. */
  envelopes(entries: Queued[]): string[] {
    const of = (kind: Kind) => entries.filter((entry) => entry.kind === kind).map((entry) => entry.text);
    const items: string[] = [];
    const container = (type: string, texts: string[], wrap: (joined: string) => string) => {
      for (const group of this.groups(texts, MAX_ENVELOPE_ITEM_BYTES - 64)) items.push(`${JSON.stringify({ type })}\n${wrap(group.join(','))}`);
    };
    container('log', of('log'), (joined) => `{"items":[${joined}]}`);
    container('analytics_event', of('event'), (joined) => `{"items":[${joined}]}`);
    container('span', of('span'), (joined) => `{"version":2,"items":[${joined}]}`);
    container('web_vital', of('vital'), (joined) => `{"items":[${joined}]}`);
    for (const group of this.groups(of('error'), MAX_ENVELOPE_ITEM_BYTES, 1)) items.push(`${JSON.stringify({ type: 'event' })}\n${group[0]}`);
    const header = JSON.stringify({ sent_at: new Date().toISOString(), sdk: this.options.sdk });
    return this.groups(items, MAX_ENVELOPE_BYTES, Number.MAX_SAFE_INTEGER).map((envelope) => `${header}\n${envelope.join('\n')}\n`);
  }

  /** The requests that carry `entries`: envelopes with `useEnvelope`, else `/v1/logs` and `/v1/events` batches. */
  requests(entries: Queued[]): Outgoing[] {
    if (this.options.useEnvelope) return this.envelopes(entries).map((body) => ({ path: '/v1/envelope', body, contentType: 'application/x-sentry-envelope' }));
    const of = (kind: Kind) => entries.filter((entry) => entry.kind === kind).map((entry) => entry.text);
    const outgoing: Outgoing[] = [];
    for (const group of this.groups(of('log'), MAX_REQUEST_BYTES - 64)) outgoing.push({ path: '/v1/logs', body: `{"batch":[${group.join(',')}]}`, contentType: 'application/json' });
    for (const group of this.groups(of('event'), MAX_REQUEST_BYTES - 64)) outgoing.push({ path: '/v1/events', body: `{"batch":[${group.join(',')}]}`, contentType: 'application/json' });
    const untraced = entries.length - of('log').length - of('event').length;
    if (untraced > 0) this.report(new Error(`${untraced} spans or web vitals dropped: they are sent only with useEnvelope`));
    return outgoing;
  }

  /** Requests within the service's limits; failures are swallowed. */
  private async send(entries: Queued[]): Promise<void> {
    for (const request of this.requests(entries)) await this.deliver(request);
  }

  /** Texts in groups of at most `maxItems` and about `maxBytes`; one text larger than that alone is reported and dropped. */
  private groups(texts: string[], maxBytes: number, maxItems = MAX_REQUEST_ITEMS): string[][] {
    const groups: string[][] = [];
    let group: string[] = [];
    let bytes = 0;
    for (const text of texts) {
      const size = byteLength(text) + 1;
      if (size > maxBytes) {
        this.report(new Error(`an item of ${size} bytes is larger than a request may be (${maxBytes} bytes); dropped`));
        continue;
      }
      if (group.length > 0 && (bytes + size > maxBytes || group.length >= maxItems)) {
        groups.push(group);
        group = [];
        bytes = 0;
      }
      group.push(text);
      bytes += size;
    }
    if (group.length > 0) groups.push(group);
    return groups;
  }

  /** One request, retried on 429 and 5xx with backoff; failures are reported, never thrown. */
  async deliver({ path, body, contentType }: Outgoing): Promise<void> {
    const { endpoint, apiKey, requestTimeoutMs, maxRetries, retryBaseMs } = this.options;
    for (let attempt = 0; ; attempt++) {
      let retryAfterMs = 0;
      try {
        const response = await fetch(`${endpoint}${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${apiKey}`, 'content-type': contentType },
          body,
          signal: AbortSignal.timeout(this.exiting ? Math.min(EXIT_REQUEST_TIMEOUT_MS, requestTimeoutMs) : requestTimeoutMs),
        });
        const answer = await response.text();
        if (response.ok) {
          this.reportRejectedItems(path, response.status, answer);
          return;
        }
        if (response.status !== 429 && response.status < 500) {
          this.report(new ClientError(response.status, 'REJECTED', `${path} refused the batch with ${response.status}`));
          return;
        }
        const retryAfter = Number(response.headers.get('retry-after'));
        if (response.headers.has('retry-after') && Number.isFinite(retryAfter)) retryAfterMs = retryAfter * 1000;
        if (attempt >= maxRetries || this.exiting) {
          this.report(new ClientError(response.status, 'GAVE_UP', `${path} still answered ${response.status} after ${attempt + 1} attempts`));
          return;
        }
      } catch (error) {
        if (attempt >= maxRetries || this.exiting) {
          this.report(asError(error));
          return;
        }
      }
      // Exponential backoff, never shorter than the service's Retry-After: a limit that says "1 s" every time would
      // otherwise be retried every second in step with every other client.
      const wait = Math.min(Math.max(retryAfterMs, retryBaseMs * 2 ** attempt), MAX_RETRY_WAIT_MS);
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }

  /**
   * A 2xx answer may still reject items one by one (`{rejected, errors: [{index, message}]}`): the client drops them,
   * so it tells onError, as it does for every item it drops.
   */
  private reportRejectedItems(path: string, status: number, answer: string): void {
    let outcome: { rejected?: unknown; errors?: unknown };
    try {
      outcome = JSON.parse(answer) as { rejected?: unknown; errors?: unknown };
    } catch {
      return;
    }
    if (typeof outcome?.rejected !== 'number' || outcome.rejected === 0) return;
    // The first ten reasons are enough to find the bug; a batch of 500 bad items would make a very long message.
    const reasons = Array.isArray(outcome.errors)
      ? (outcome.errors as { index?: unknown; message?: unknown }[]).slice(0, 10).map((error) => `item ${String(error.index)}: ${String(error.message)}`)
      : [];
    this.report(new ClientError(status, 'ITEMS_REJECTED', `${path} rejected ${outcome.rejected} item(s)${reasons.length > 0 ? `: ${reasons.join('; ')}` : ''}`));
  }

  /** Tells onError; the host's own handler failing must not reach the host either. */
  report(error: Error): void {
    try {
      this.options.onError?.(error);
    } catch {
      // swallowed: see above
    }
  }
}
