import type { IncomingMessage } from 'node:http';
import { validationError } from './errors';

/**
 * JSON objects and arrays an inflated body may open per byte received. Compressed telemetry stays far below it:
 * envelopes of Sentry error events open 0.46 per gzipped byte (1.55 when all 100 events are the same), /v1/logs
 * batches 0.15, rrweb recordings 0.48, OTLP JSON spans with very repetitive attributes 8 to 11. Compressed `{},`
 * opens 328 per byte, and `JSON.parse` takes about 100 ms per inflated MiB of it on the event loop: a 20 KB gzipped
 * envelope held the server for two to three seconds (docs/api.md "Limits").
 */
export const MAX_JSON_CONTAINERS_PER_RECEIVED_BYTE = 32;
/** Objects and arrays any body may open whatever its size received: about 3 ms of `JSON.parse` at worst. */
export const MIN_JSON_CONTAINER_BUDGET = 10_000;

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;

/**
 * Why inflated JSON text must not be parsed, or undefined: it opens more objects and arrays than the bytes it arrived
 * as allow. Counted before parsing, as `{` and `[` bytes (inside strings too, so an upper bound) found by
 * `Buffer.indexOf`, which skips the bytes between them at memory speed; a body of no more bytes than its budget is
 * not scanned at all.
 */
export function inflatedJsonProblem(json: Buffer, receivedBytes: number): string | undefined {
  const budget = Math.max(MIN_JSON_CONTAINER_BUDGET, MAX_JSON_CONTAINERS_PER_RECEIVED_BYTE * receivedBytes);
  if (json.length <= budget) return undefined;
  let containers = 0;
  for (const opener of [OPEN_BRACE, OPEN_BRACKET]) {
    for (let at = json.indexOf(opener); at !== -1; at = json.indexOf(opener, at + 1)) {
      if (++containers > budget) {
        return (
          `the body inflates to more than ${budget.toLocaleString('en-US')} JSON objects and arrays ` +
          `(at most ${MAX_JSON_CONTAINERS_PER_RECEIVED_BYTE} per byte received, or ${MIN_JSON_CONTAINER_BUDGET.toLocaleString('en-US')})`
        );
      }
    }
  }
  return undefined;
}

const receivedBytes = new WeakMap<object, { bytes: number }>();

/**
 * Counts the bytes of a body sent with a Content-Encoding as they arrive, for `refuseDenseInflatedJson`: body-parser
 * only hands on the inflated bytes. Call it right before the body parser, which starts reading in the same turn.
 */
export function countEncodedBytes(req: IncomingMessage): void {
  const encoding = req.headers['content-encoding']?.toLowerCase() ?? 'identity';
  if (encoding === 'identity' || receivedBytes.has(req)) return;
  const count = { bytes: 0 };
  receivedBytes.set(req, count);
  req.on('data', (chunk: Buffer) => {
    count.bytes += chunk.length;
  });
}

/**
 * body-parser's `verify` for bodies counted by `countEncodedBytes`: 400 VALIDATION_ERROR when the inflated body opens
 * more JSON objects and arrays than its received bytes allow (inflatedJsonProblem). Bodies sent as they are pass.
 */
export function refuseDenseInflatedJson(req: IncomingMessage, _res: unknown, inflated: Buffer): void {
  const count = receivedBytes.get(req);
  if (!count) return;
  const problem = inflatedJsonProblem(inflated, count.bytes);
  if (problem) throw validationError(problem);
}
