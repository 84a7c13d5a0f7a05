import { payloadTooLarge, rawBody } from '@tlm/core';
import type { Request, RequestHandler } from 'express';

/**
 * Reads a chunk body as bytes, up to `limitBytes`; over that, 413 PAYLOAD_TOO_LARGE naming this limit (not the
 * 2 MB of JSON bodies). With `keepEncoded`, a `Content-Encoding: gzip` label is ignored: a replay chunk is gzip by
 * contract and is stored exactly as sent, never inflated by the parser.
 */
export function chunkBody(what: string, limitBytes: number, options: { keepEncoded: boolean }): RequestHandler {
  const parse = rawBody(limitBytes);
  return (req, res, next) => {
    if (options.keepEncoded) delete req.headers['content-encoding'];
    parse(req, res, (error?: unknown) => {
      if ((error as { type?: string } | undefined)?.type === 'entity.too.large') {
        next(payloadTooLarge(`${what} exceeds ${limitBytes} bytes (${limitBytes / 1024 / 1024} MiB)`));
        return;
      }
      next(error);
    });
  };
}

/** The bytes a raw body parser read (`chunkBody`, core's `rawBody`, `envelopeBody`); empty without a body. */
export const bodyOf = (req: Request): Buffer => (Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0));
