import { ArtifactUpload, ArtifactsQuery, SymbolicateRequest } from '@tlm/api-schemas';
import { keyGuards, requestKey, type KeyAccess } from '@tlm/auth';
import { isoTime, jsonBody, newId, parseBody, parseQuery, payloadTooLarge, validationError } from '@tlm/core';
import { listArtifacts, upsertArtifact, type ArtifactRow, type SqlClient } from '@tlm/metadata-store';
import busboy from 'busboy';
import { Router, type Request, type RequestHandler } from 'express';
import { MAX_SOURCE_MAP_BYTES, checkSourceMap } from './sourceMap';
import type { Symbolicator } from './symbolicator';

export interface ArtifactDeps extends KeyAccess {
  metadata: SqlClient;
  /** Shared with the issues processor's enricher in one process, so an upload is used at once. */
  symbolicator: Symbolicator;
}

/** A map travels in a JSON string, where its quotes are escaped: room for that on top of the map limit. */
const MAX_JSON_UPLOAD_BYTES = 2 * MAX_SOURCE_MAP_BYTES;
const MAX_LISTED = 1_000;
const tooLarge = () => payloadTooLarge(`the upload is larger than a source map may be (${MAX_SOURCE_MAP_BYTES} bytes, 10 MiB)`);

function artifactJson(row: ArtifactRow) {
  return { id: row.id, release: row.release, dist: row.dist || null, name: row.name, size: row.size, created_at: isoTime(row.created_at) };
}

/** JSON upload body, with the artifact limit instead of the 2 MB ingest limit. */
const parseJsonUpload: RequestHandler = (() => {
  const parse = jsonBody(MAX_JSON_UPLOAD_BYTES);
  return (req, res, next) =>
    parse(req, res, (error?: unknown) => next((error as { type?: string } | undefined)?.type === 'entity.too.large' ? tooLarge() : error));
})();

/**
 * A multipart upload as sentry-cli and curl send it: fields `release`, `dist`, `name`, and one file part (the map),
 * whose file name is the default `name`. Resolves once the whole body has been read.
 */
function readMultipart(req: Request): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: req.headers, limits: { files: 1, fields: 20, fieldSize: 64 * 1024, fileSize: MAX_SOURCE_MAP_BYTES } });
    } catch (error) {
      reject(validationError(`malformed multipart body: ${(error as Error).message}`));
      return;
    }
    const fields: Record<string, unknown> = {};
    let failure: Error | undefined;
    let fileName: string | undefined;
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) failure ??= validationError(`multipart field ${name} is longer than 64 KiB`);
      fields[name] = value;
    });
    parser.on('file', (_field, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => {
        if (!stream.truncated) chunks.push(chunk);
      });
      stream.on('limit', () => {
        failure ??= tooLarge();
      });
      // A body cut off inside the file part errors the file's stream too; unheard, that error would end the process.
      stream.on('error', (error: Error) => {
        failure ??= validationError(`malformed multipart body: ${error.message}`);
      });
      stream.on('end', () => {
        fileName = info.filename;
        fields['content'] = Buffer.concat(chunks).toString('utf8');
      });
    });
    parser.on('filesLimit', () => {
      failure ??= validationError('a multipart upload carries one source map');
    });
    parser.on('error', (error: Error) => reject(validationError(`malformed multipart body: ${error.message}`)));
    parser.on('close', () => {
      if (failure) return reject(failure);
      if (fields['content'] === undefined) return reject(validationError('multipart body: the source map file part is required'));
      if (fields['name'] === undefined && fileName) fields['name'] = fileName;
      resolve(fields);
    });
    req.pipe(parser);
  });
}

/** `PUT /v1/artifacts` (ingest:write), `GET /v1/artifacts` and `POST /v1/symbolicate` (data:read): DECISIONS.md. */
export function artifactRoutes(deps: ArtifactDeps): Router {
  const router = Router();

  // Multipart bodies are read in the handler, after the guards; anything else is parsed as JSON.
  const uploadBody: RequestHandler = (req, res, next) => (req.is('multipart/form-data') ? next() : parseJsonUpload(req, res, next));

  router.put('/v1/artifacts', ...keyGuards(deps, 'ingest:write'), uploadBody, async (req, res) => {
    const upload: ArtifactUpload = req.is('multipart/form-data')
      ? parseBody(ArtifactUpload, await readMultipart(req), 'multipart body')
      : parseBody(ArtifactUpload, req.body);
    const content = await checkSourceMap(upload.content);
    const projectId = requestKey(res).projectId;
    const stored = await upsertArtifact(deps.metadata, {
      id: newId(),
      projectId,
      release: upload.release,
      dist: upload.dist ?? '',
      name: upload.name,
      content,
    });
    deps.symbolicator.forgetRelease(projectId, upload.release);
    res.status(stored.replaced ? 200 : 201).json(artifactJson(stored));
  });

  router.get('/v1/artifacts', ...keyGuards(deps, 'data:read'), async (req, res) => {
    const { release } = parseQuery(ArtifactsQuery, req.query);
    const rows = await listArtifacts(deps.metadata, requestKey(res).projectId, {
      ...(release ? { release } : {}),
      limit: MAX_LISTED,
    });
    res.json({ artifacts: rows.map(artifactJson) });
  });

  router.post('/v1/symbolicate', ...keyGuards(deps, 'data:read'), jsonBody(), async (req, res) => {
    const request = parseBody(SymbolicateRequest, req.body);
    const frames = await deps.symbolicator.symbolicate(requestKey(res).projectId, request.release, request.dist ?? null, request.frames);
    res.json({ frames });
  });

  return router;
}
