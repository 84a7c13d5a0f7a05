import { hasContentEncoding, rawBody, validationError } from '@tlm/core';
import type { RequestHandler } from 'express';

/** Bodies up to this size are read into a kept slab: an envelope of a hundred error events is about 175 KB. */
export const SLAB_BYTES = 256 * 1024;
/** Smaller bodies go to rawBody: they come from memory the allocator already holds, not new pages. */
export const SLAB_MIN_BYTES = 64 * 1024;
/** Slabs kept between requests: at most 8 MiB. */
const MAX_KEPT_SLABS = 32;

/**
 * Memory for request bodies, kept between requests. A large body read into new memory costs the event loop a page
 * fault per 4 KiB as it is copied in: in the errors benchmark, copying envelopes of 175 KB into fresh buffers took 3 to
 * 4% of the event loop, and 0.3% into slabs used before (docs/performance.md, "Errors into issues").
 */
export class SlabPool {
  private readonly free: Buffer[] = [];

  constructor(
    readonly slabBytes = SLAB_BYTES,
    private readonly maxKept = MAX_KEPT_SLABS,
  ) {}

  /** Slabs waiting to be taken. */
  get kept(): number {
    return this.free.length;
  }

  take(): Buffer {
    return this.free.pop() ?? Buffer.allocUnsafeSlow(this.slabBytes);
  }

  give(slab: Buffer): void {
    if (this.free.length < this.maxKept) this.free.push(slab);
  }
}

/**
 * Reads an envelope's bytes into `req.body` as a Buffer, as `express.raw` does. A plain body with a Content-Length
 * from SLAB_MIN_BYTES to a slab's size is read into a slab of `pool`, taken when its first bytes arrive and given back
 * once the response is sent: the handlers have then finished with the bytes (records hold copies; blob stores have
 * written theirs). A request whose response is never sent (the client went away) keeps its slab, since a handler may
 * still be reading it. Smaller, compressed, chunked and larger bodies go to core's `rawBody`, with its limit and its
 * errors, and `charge` (whether an inflated body is charged whole to the request's JSON budget, or the route charges
 * the parts it parses); a body cut short answers 400 VALIDATION_ERROR, as there.
 */
export function envelopeBody(limitBytes: number, charge: 'body' | 'parts', pool = new SlabPool()): RequestHandler {
  const raw = rawBody(limitBytes, charge);
  return (req, res, next) => {
    const declared = Number(req.headers['content-length']);
    if (
      hasContentEncoding(req) ||
      req.headers['transfer-encoding'] !== undefined ||
      !Number.isSafeInteger(declared) ||
      declared < SLAB_MIN_BYTES ||
      declared > Math.min(limitBytes, pool.slabBytes) ||
      !req.readable
    ) {
      raw(req, res, next);
      return;
    }
    let body: Buffer | undefined;
    let received = 0;
    const onData = (chunk: Buffer) => {
      if (!body) {
        const slab = pool.take();
        res.once('finish', () => pool.give(slab));
        body = slab.subarray(0, declared);
      }
      if (received + chunk.length <= declared) chunk.copy(body, received);
      received += chunk.length;
    };
    const finish = (error?: unknown) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      next(error);
    };
    const onEnd = () => {
      // Node's HTTP parser ends a body at its Content-Length; anything else is a broken request, never stale bytes.
      if (!body || received !== declared) {
        finish(validationError('request size did not match content length'));
        return;
      }
      req.body = body;
      finish();
    };
    // A client that goes away mid-body (Node reports it as an error on the request).
    const onError = () => finish(validationError('request aborted by the client'));
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', onError);
  };
}
