import { requestKey } from '@tlm/auth';
import { replayChunkKey, type BlobStore } from '@tlm/blob-store';
import { Topics, type Bus } from '@tlm/bus';
import { jsonBody, jsonBudget, metrics, validationError } from '@tlm/core';
import {
  MAX_BODY_BYTES,
  MAX_REPLAY_CHUNK_BYTES,
  RecordingBudget,
  inspectRecording,
  replayChunkParams,
  toReplayChunkRecord,
  toReplaySessionRecord,
  type ChunkQuery,
  type IngestContext,
  type ReplayChunkParams,
} from '@tlm/signals';
import { Router, type RequestHandler } from 'express';
import { bodyOf, chunkBody } from './chunkBody';
import { ingestCors } from './cors';
import { ingestContext } from './request';

/**
 * Session replay ingest (DECISIONS.md "Replay"): session metadata upserts and gzipped rrweb chunks. A chunk's body
 * goes to the blob store first and its row to the bus second, and the 202 waits for both: a 202 is durable, and no
 * row ever names a body that is not stored.
 */
export function replayRoutes(deps: { bus: Bus; blobs: BlobStore }, writer: RequestHandler[]): Router {
  const router = Router();
  router.options(['/v1/replay/sessions', '/v1/replay/chunks'], ingestCors);

  router.post('/v1/replay/sessions', ...writer, jsonBody(MAX_BODY_BYTES), async (req, res) => {
    if (typeof req.body !== 'object' || req.body === null || Array.isArray(req.body)) {
      throw validationError('request body must be a JSON object with session_id and started_at');
    }
    const session = toReplaySessionRecord(req.body, ingestContext(req, requestKey(res)), req.get('user-agent'));
    if (!session.ok) throw validationError(session.reason);
    await deps.bus.publish(Topics.replays, [{ key: session.value.projectId, value: session.value }]);
    metrics.ingestItems.inc({ signal: 'replay_sessions', outcome: 'accepted' });
    res.json({ session_id: session.value.sessionId });
  });

  // The parameters are checked before the body is read, so a bad seq costs no upload.
  const chunkParams: RequestHandler = (req, res, next) => {
    const context = ingestContext(req, requestKey(res));
    const params = replayChunkParams(req.query as ChunkQuery, context.receivedAt);
    if (!params.ok) throw validationError(params.reason);
    res.locals['replayChunk'] = { context, params: params.value };
    next();
  };

  router.post(
    '/v1/replay/chunks',
    ...writer,
    chunkParams,
    chunkBody('replay chunk body', MAX_REPLAY_CHUNK_BYTES, { keepEncoded: true }),
    async (req, res) => {
      const { context, params } = res.locals['replayChunk'] as { context: IngestContext; params: ReplayChunkParams };
      const body = bodyOf(req);
      const recording = await inspectRecording(body, 'gzip', new RecordingBudget(jsonBudget(req, body)), context);
      if (!recording.ok) throw validationError(recording.reason);
      const blobKey = replayChunkKey(context.projectId, context.receivedAt, params.sessionId, params.seq);
      const chunk = toReplayChunkRecord(params, recording.value, blobKey, context);
      if (!chunk.ok) throw validationError(chunk.reason);
      await deps.blobs.put(blobKey, recording.value.gzipped);
      await deps.bus.publish(Topics.replays, [{ key: chunk.value.projectId, value: chunk.value }]);
      metrics.ingestItems.inc({ signal: 'replay_chunks', outcome: 'accepted' });
      res.status(202).json({ session_id: chunk.value.sessionId, seq: chunk.value.seq });
    },
  );
  return router;
}
