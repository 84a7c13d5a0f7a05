import type { IncomingMessage } from 'node:http';
import { createGunzip, createInflate } from 'node:zlib';
import { rateLimited, validationError } from './errors';

/**
 * JSON objects and arrays a request may have parsed out of bytes a decoder made, per byte it sent. Compressed
 * telemetry stays far below it: envelopes of Sentry error events open 0.46 per gzipped byte, /v1/logs batches 0.15,
 * rrweb recordings 0.48, a thousand identical error events 9, OTLP spans that all carry the same attributes 8 to 13.
 * Compressed `{},` opens 328 per byte, and `JSON.parse` takes about 100 ms per inflated MiB of it on the event loop:
 * a 20 KB gzipped envelope held the server for two to three seconds (docs/decisions.md, Ingest).
 */
export const MAX_JSON_CONTAINERS_PER_RECEIVED_BYTE = 32;
/** What any request may open, however few bytes it sent: about 3 ms of `JSON.parse` at worst. */
export const MIN_JSON_CONTAINER_BUDGET = 10_000;

const OPENERS = [0x7b, 0x5b];

/**
 * The objects and arrays one request may have parsed out of decompressed bytes, shared by every decoder the request
 * goes through (its Content-Encoding, then gzip or zlib inside it: PostHog's `gzip-js`, a store body's base64 of zlib,
 * a replay recording), so a second layer buys no budget of its own. Bytes sent as they are need no charge: each opens
 * at most one, and their sender paid for it.
 */
export class JsonBudget {
  private spent = 0;

  constructor(
    readonly limit: number,
    /** Whether the body arrived with a Content-Encoding, so that what express read of it was inflated. */
    readonly encoded: boolean,
  ) {}

  /**
   * Counts `json`'s `{` and `[` bytes (inside strings too: an upper bound, found by `Buffer.indexOf` at memory
   * speed) against what is left; the refusal once the request has gone over its limit, before anything parses them.
   */
  charge(json: Buffer): string | undefined {
    for (const opener of OPENERS) {
      for (let at = json.indexOf(opener); at !== -1; at = json.indexOf(opener, at + 1)) {
        if (++this.spent > this.limit) {
          return (
            `the body inflates to more than ${this.limit.toLocaleString('en-US')} JSON objects and arrays ` +
            `(at most ${MAX_JSON_CONTAINERS_PER_RECEIVED_BYTE} per byte received, or ${MIN_JSON_CONTAINER_BUDGET.toLocaleString('en-US')})`
          );
        }
      }
    }
    return undefined;
  }
}

/** Whether the request names a Content-Encoding to undo; empty and `identity` name none, as for body-parser. */
export function hasContentEncoding(req: IncomingMessage): boolean {
  const encoding = (req.headers['content-encoding'] || 'identity').toLowerCase();
  return encoding !== 'identity';
}

const receivedBytes = new WeakMap<object, { bytes: number }>();
const budgets = new WeakMap<object, JsonBudget>();

/**
 * Counts the bytes of a body sent with a Content-Encoding as they arrive: body-parser only hands on the inflated
 * bytes. Called right before the body parser, which starts reading in the same turn.
 */
export function countEncodedBytes(req: IncomingMessage): void {
  if (!hasContentEncoding(req)) return;
  const count = { bytes: 0 };
  receivedBytes.set(req, count);
  req.on('data', (chunk: Buffer) => {
    count.bytes += chunk.length;
  });
}

/**
 * The request's budget, made on first use: MIN_JSON_CONTAINER_BUDGET, or 32 per byte received. `body` is the body as
 * express read it, the bytes received unless countEncodedBytes counted them before they were inflated.
 */
export function jsonBudget(req: IncomingMessage, body: Buffer): JsonBudget {
  let budget = budgets.get(req);
  if (!budget) {
    const counted = receivedBytes.get(req);
    const received = counted ? counted.bytes : body.length;
    budget = new JsonBudget(Math.max(MIN_JSON_CONTAINER_BUDGET, MAX_JSON_CONTAINERS_PER_RECEIVED_BYTE * received), counted !== undefined);
    budgets.set(req, budget);
  }
  return budget;
}

/**
 * body-parser's `verify` for bodies parsed whole as JSON: an inflated body is charged to the request's budget. A body
 * sent as it is returns at once, with no budget made for it (every uncompressed /v1/logs batch passes here).
 */
export function chargeInflatedBody(req: IncomingMessage, _res: unknown, body: Buffer): void {
  if (!receivedBytes.has(req)) return;
  const problem = jsonBudget(req, body).charge(body);
  if (problem) throw validationError(problem);
}

/**
 * Bytes the requests of one process may hold inflated at once through `readInflated`. Each replay recording may
 * inflate to 100 MiB, and 16 chunks of a 1 MB gzip that inflates to 1 GiB, sent at once, took a server from 1.5 to
 * 2.4 GB before all were refused; this leaves room for two such recordings and many ordinary ones (docs/decisions.md,
 * Ingest).
 */
export const MAX_INFLATING_BYTES = 256 * 1024 * 1024;

/** A process's count of bytes its requests hold inflated; each takes its bytes as its decoder makes them. */
export class InflatingBytes {
  private held = 0;

  constructor(readonly limit: number) {}

  get inUse(): number {
    return this.held;
  }

  /** Takes `bytes` when they fit under the limit; takes nothing and answers false when they do not. */
  take(bytes: number): boolean {
    if (this.held + bytes > this.limit) return false;
    this.held += bytes;
    return true;
  }

  give(bytes: number): void {
    this.held -= bytes;
  }
}

/** This process's bytes held inflated. */
export const inflatingBytes = new InflatingBytes(MAX_INFLATING_BYTES);

export interface InflateLimits {
  /** The most bytes the output may have: the decoder stops at the first chunk past them. */
  maxBytes: number;
  /** The request's budget, charged each chunk as it is made. */
  json: JsonBudget;
  /** The process's count; `inflatingBytes` unless a test brings its own. */
  inflating?: InflatingBytes;
}

/** What `readInflated` made of a body: `read`'s value and the bytes inflated, or why it stopped. */
export type Inflated<T> =
  | { ok: true; value: T; bytes: number }
  | { ok: false; refusal: 'corrupt' | 'too large' }
  | { ok: false; refusal: 'too dense'; reason: string };

/** Output chunks of 64 KiB: the most a decoder makes past a limit before it stops. */
const OUTPUT_CHUNK_BYTES = 64 * 1024;

type Stop = Exclude<Inflated<never>, { ok: true }> | 'busy';

/**
 * Inflates gzip or zlib `compressed` on zlib's thread pool, chunk by chunk, and gives the whole output to `read`,
 * holding its bytes on the process's count until `read` has finished with them. Stops at the first chunk past
 * `maxBytes`, past the request's JSON budget, or past what the process may hold, so no request ever has more than its
 * limit inflated, nor the process more than MAX_INFLATING_BYTES. The process's count spent is no fault of the body: 429
 * RATE_LIMITED with `Retry-After: 1`.
 */
export async function readInflated<T>(
  compressed: Buffer,
  format: 'gzip' | 'zlib',
  limits: InflateLimits,
  read: (inflated: Buffer) => T | Promise<T>,
): Promise<Inflated<T>> {
  const inflating = limits.inflating ?? inflatingBytes;
  const decoder = format === 'gzip' ? createGunzip({ chunkSize: OUTPUT_CHUNK_BYTES }) : createInflate({ chunkSize: OUTPUT_CHUNK_BYTES });
  const chunks: Buffer[] = [];
  let held = 0;
  try {
    const stopped = await new Promise<Stop | undefined>((resolve) => {
      const stop = (why: Stop) => {
        decoder.removeAllListeners('data');
        decoder.destroy();
        resolve(why);
      };
      decoder.on('data', (chunk: Buffer) => {
        if (held + chunk.length > limits.maxBytes) return stop({ ok: false, refusal: 'too large' });
        if (!inflating.take(chunk.length)) return stop('busy');
        held += chunk.length;
        chunks.push(chunk);
        const dense = limits.json.charge(chunk);
        if (dense) stop({ ok: false, refusal: 'too dense', reason: dense });
      });
      decoder.on('error', () => resolve({ ok: false, refusal: 'corrupt' }));
      decoder.on('end', () => resolve(undefined));
      decoder.end(compressed);
    });
    if (stopped === 'busy') {
      throw rateLimited(1, {}, 'the server is inflating as many compressed bytes as it may at once; retry in a second');
    }
    if (stopped) return stopped;
    const inflated = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, held);
    chunks.length = 0;
    return { ok: true, value: await read(inflated), bytes: held };
  } finally {
    inflating.give(held);
  }
}
