import type { IncomingMessage } from 'node:http';
import { validationError } from './errors';

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
