import type { AnalyticsStore } from '@tlm/analytics-store';
import { AttachmentsQuery, DEFAULT_LISTED_CHUNKS, ProfileChunkPath, ProfileChunksQuery, ReplayChunkPath, ReplaySessionPath, ReplaySessionsQuery } from '@tlm/api-schemas';
import type { BlobStore } from '@tlm/blob-store';
import { isUuid, notFound, parsePath, parseQuery } from '@tlm/core';
import {
  ATTACHMENT_FIELDS,
  CHUNK_FIELDS,
  PROFILE_FIELDS,
  SESSION_FIELDS,
  aggregateBy,
  attachments,
  findRows,
  profileChunks,
  replayChunks,
  replaySessions,
  type Guard,
} from '@tlm/gql';
import { eventIdAsUuid } from '@tlm/signals';
import { Router, type RequestHandler, type Response } from 'express';

/** A session has one chunk every few seconds for at most an hour or so; this bounds one session's chunk list. */
const MAX_CHUNKS_PER_SESSION = 10_000;

/**
 * Sends stored bytes as they are: no Content-Encoding, so clients receive exactly what was stored. express adds a
 * charset to text and JSON types; an `exact` type (a client's own, as an attachment's) goes out as given.
 */
function sendBody(res: Response, body: Buffer, contentType: string, exact = false): void {
  res.status(200).set({ 'Content-Type': contentType, 'Content-Length': String(body.length), 'Cache-Control': 'private, max-age=3600' });
  if (exact) res.setHeader('Content-Type', contentType);
  res.end(body);
}

export interface ChunkReadDeps {
  analytics: AnalyticsStore;
  blobs: BlobStore;
}

/**
 * Reads of replays, profiles and attachments: metadata from the analytics store under the guard's project and plan
 * retention, bodies byte for byte from the blob store. Mounted twice: at `/v1` for `data:read` keys (DECISIONS.md)
 * and at `/api/orgs/:org/projects/:project` for members of the project's organization (the web app), so paths are
 * relative and the mount's parameters are merged.
 */
export function chunkReadRoutes(deps: ChunkReadDeps, reader: RequestHandler[], guardOf: (res: Response) => Guard): Router {
  const router = Router({ mergeParams: true });

  router.get('/replay/sessions', ...reader, async (req, res) => {
    const { distinct_id: distinctId, limit = DEFAULT_LISTED_CHUNKS } = parseQuery(ReplaySessionsQuery, req.query);
    const guard = guardOf(res);
    const sessions = await findRows(deps.analytics, replaySessions, guard, {
      equals: distinctId === undefined ? {} : { distinct_id: distinctId },
      fields: SESSION_FIELDS,
      sort: [['started_at', 'desc'], ['id', 'asc']],
      limit,
    });
    const ids = sessions.map((session) => String(session['session_id']));
    const [counts, ends] =
      ids.length === 0
        ? [new Map<string, unknown>(), new Map<string, unknown>()]
        : await Promise.all([
            aggregateBy(deps.analytics, replayChunks, guard, { equals: { session_id: ids }, groupBy: 'session_id', func: 'count', limit: ids.length }),
            aggregateBy(deps.analytics, replayChunks, guard, { equals: { session_id: ids }, groupBy: 'session_id', func: 'max', column: 'end_ts', limit: ids.length }),
          ]);
    res.json({
      sessions: sessions.map((session) => {
        const id = String(session['session_id']);
        return { ...session, chunk_count: Number(counts.get(id) ?? 0), ended_at: isoOrNull(ends.get(id)) };
      }),
    });
  });

  router.get('/replay/sessions/:id', ...reader, async (req, res) => {
    const guard = guardOf(res);
    const { id: sessionId } = parsePath(ReplaySessionPath, req.params);
    const [sessions, chunks] = await Promise.all([
      findRows(deps.analytics, replaySessions, guard, { equals: { id: sessionId }, fields: SESSION_FIELDS, sort: [['started_at', 'desc']], limit: 1 }),
      findRows(deps.analytics, replayChunks, guard, { equals: { session_id: sessionId }, fields: CHUNK_FIELDS, sort: [['seq', 'asc']], limit: MAX_CHUNKS_PER_SESSION }),
    ]);
    if (sessions.length === 0 && chunks.length === 0) throw notFound(`replay session ${sessionId} not found`);
    const session = sessions[0] ?? { ...Object.fromEntries(Object.keys(SESSION_FIELDS).map((key) => [key, null])), session_id: sessionId };
    res.json({ ...session, chunks });
  });

  router.get('/replay/sessions/:id/chunks/:seq', ...reader, async (req, res) => {
    const { id: sessionId, seq } = parsePath(ReplayChunkPath, req.params);
    const [chunk] = await findRows(deps.analytics, replayChunks, guardOf(res), {
      equals: { session_id: sessionId, seq },
      fields: { blob_key: 'blob_key' },
      sort: [['seq', 'asc']],
      limit: 1,
    });
    const body = chunk ? await deps.blobs.get(String(chunk['blob_key'])) : undefined;
    if (!body) throw notFound(`chunk ${seq} of replay session ${sessionId} not found`);
    sendBody(res, body, 'application/gzip');
  });

  router.get('/profiles/chunks', ...reader, async (req, res) => {
    const { profiler_id: profilerId, release, limit = DEFAULT_LISTED_CHUNKS } = parseQuery(ProfileChunksQuery, req.query);
    const chunks = await findRows(deps.analytics, profileChunks, guardOf(res), {
      equals: {
        ...(profilerId === undefined ? {} : { profiler_id: profilerId }),
        ...(release === undefined ? {} : { release }),
      },
      fields: PROFILE_FIELDS,
      sort: [['started_at', 'desc'], ['id', 'asc']],
      limit,
    });
    res.json({ chunks });
  });

  router.get('/profiles/chunks/:chunk_id', ...reader, async (req, res) => {
    const { chunk_id: chunkId } = parsePath(ProfileChunkPath, req.params);
    const [chunk] = await findRows(deps.analytics, profileChunks, guardOf(res), {
      equals: { id: chunkId },
      fields: { blob_key: 'blob_key' },
      sort: [['started_at', 'desc']],
      limit: 1,
    });
    const body = chunk ? await deps.blobs.get(String(chunk['blob_key'])) : undefined;
    if (!body) throw notFound(`profile chunk ${chunkId} not found`);
    sendBody(res, body, 'application/json');
  });

  router.get('/attachments', ...reader, async (req, res) => {
    const { event_id: eventId, limit = DEFAULT_LISTED_CHUNKS } = parseQuery(AttachmentsQuery, req.query);
    const found = await findRows(deps.analytics, attachments, guardOf(res), {
      equals: eventId === undefined ? {} : { event_id: eventIdAsUuid(eventId) },
      fields: ATTACHMENT_FIELDS,
      sort: [['updated_at', 'desc'], ['id', 'asc']],
      limit,
    });
    res.json({ attachments: found });
  });

  router.get('/attachments/:id', ...reader, async (req, res) => {
    const id = String(req.params['id']);
    const [attachment] = isUuid(id)
      ? await findRows(deps.analytics, attachments, guardOf(res), {
          equals: { id: id.toLowerCase() },
          fields: { blob_key: 'blob_key', filename: 'filename', content_type: 'content_type' },
          sort: [['updated_at', 'desc']],
          limit: 1,
        })
      : [];
    const body = attachment ? await deps.blobs.get(String(attachment['blob_key'])) : undefined;
    if (!attachment || !body) throw notFound(`attachment ${id} not found`);
    // express's attachment() quotes the name for any characters (the content-disposition package); nosniff keeps a
    // browser from running an uploaded text/html or script as the API's own page.
    res.attachment(String(attachment['filename'])).set('X-Content-Type-Options', 'nosniff');
    sendBody(res, body, String(attachment['content_type']), true);
  });

  return router;
}

/** `max(end_ts)` comes back as the engine's time text; responses carry ISO 8601 with milliseconds. */
function isoOrNull(value: unknown): string | null {
  if (value === null || value === undefined || value === '') return null;
  const text = String(value);
  const date = new Date(/[zZ]|[+-]\d{2}:?\d{2}$/.test(text) ? text : `${text.replace(' ', 'T')}Z`);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}
