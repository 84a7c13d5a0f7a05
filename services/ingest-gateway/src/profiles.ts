import { requestKey } from '@tlm/auth';
import { profileChunkKey, type BlobStore } from '@tlm/blob-store';
import { Topics, type Bus } from '@tlm/bus';
import { metrics, validationError } from '@tlm/core';
import {
  MAX_PROFILE_CHUNK_BYTES,
  inspectProfile,
  profileChunkParams,
  toProfileChunkRecord,
  type ChunkQuery,
  type IngestContext,
  type ProfileChunkParams,
} from '@tlm/signals';
import { Router, type RequestHandler } from 'express';
import { bodyOf, chunkBody } from './chunkBody';
import { ingestCors } from './cors';
import { ingestContext } from './request';

/**
 * Profile chunk ingest (DECISIONS.md "Profiles"): a JSON body up to 10 MiB, kept byte for byte in the blob store, and
 * its metadata as a row. Body first, row second, 202 after both.
 */
export function profileRoutes(deps: { bus: Bus; blobs: BlobStore }, writer: RequestHandler[]): Router {
  const router = Router();
  router.options('/v1/profiles/chunks', ingestCors);

  const chunkParams: RequestHandler = (req, res, next) => {
    const context = ingestContext(req, requestKey(res));
    const params = profileChunkParams(req.query as ChunkQuery, context.receivedAt);
    if (!params.ok) throw validationError(params.reason);
    res.locals['profileChunk'] = { context, params: params.value };
    next();
  };

  router.post(
    '/v1/profiles/chunks',
    ...writer,
    chunkParams,
    // A gzip-encoded upload is inflated first: the 10 MiB limit and the stored bytes are the JSON itself.
    chunkBody('profile chunk body', MAX_PROFILE_CHUNK_BYTES, { keepEncoded: false }),
    async (req, res) => {
      const { context, params } = res.locals['profileChunk'] as { context: IngestContext; params: ProfileChunkParams };
      const body = bodyOf(req);
      const profile = inspectProfile(body);
      if (!profile.ok) throw validationError(profile.reason);
      const blobKey = profileChunkKey(context.projectId, context.receivedAt, params.chunkId);
      const chunk = toProfileChunkRecord(params, profile.value, body.length, blobKey, context);
      if (!chunk.ok) throw validationError(chunk.reason);
      await deps.blobs.put(blobKey, body);
      await deps.bus.publish(Topics.profiles, [{ key: chunk.value.projectId, value: chunk.value }]);
      metrics.ingestItems.inc({ signal: 'profile_chunks', outcome: 'accepted' });
      res.status(202).json({ chunk_id: chunk.value.chunkId });
    },
  );
  return router;
}
