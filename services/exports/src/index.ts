import { DownloadQuery, NewExport } from '@tlm/api-schemas';
import { keyGuards, requestKey, requestMembership, requestProject, requireMember, requireProject, requireUser, type KeyAccess, type TokenIssuer } from '@tlm/auth';
import type { BlobStore } from '@tlm/blob-store';
import { forbidden, isUuid, isoTime, jsonBody, newId, notFound, parseBody, parseQuery, unauthorized, validationError } from '@tlm/core';
import { compileQuery, findSource, gqlApiError } from '@tlm/gql';
import { findActiveExportJob, insertExportJob, listExportJobs, type ExportJobRow, type MetadataStore } from '@tlm/metadata-store';
import { Router, type Request, type RequestHandler, type Response } from 'express';
import { DOWNLOAD_TTL_MS, signDownload, verifyDownload } from './signing';

export { exportsConfig, runNextExport, startExportRunner, type RunnerDeps } from './runner';
export { signDownload, verifyDownload } from './signing';

export interface ExportsDeps extends KeyAccess {
  metadata: MetadataStore;
  blobs: BlobStore;
  /** Signs download links; the same value on every exports instance. */
  signingSecret: string;
  /** Checks the dashboard tokens of members using the export routes under /api. */
  tokens: TokenIssuer;
}

const CONTENT_TYPES = { csv: 'text/csv; charset=utf-8', json: 'application/json', gdpr_zip: 'application/zip' } as const;

/** What only an owner may do with a format: start it (`check` throws otherwise), and be given its download link. */
interface OwnerOnly {
  check: (res: Response, format: NewExport['format']) => void;
  mayDownload: (res: Response, format: NewExport['format']) => boolean;
}

function jobJson(job: ExportJobRow, req: Request, secret: string, mayDownload: boolean) {
  const download =
    job.status === 'done' && mayDownload
      ? `${req.protocol}://${req.get('host')}/v1/exports/${job.id}/download?token=${signDownload(secret, job.id, Date.now() + DOWNLOAD_TTL_MS)}`
      : undefined;
  return {
    id: job.id,
    format: job.format,
    query: job.query,
    source: job.source,
    status: job.status,
    rows: job.rows,
    size: job.size,
    ...(job.error ? { error: job.error } : {}),
    created_at: isoTime(job.created_at),
    finished_at: isoTime(job.finished_at),
    ...(download ? { download_url: download } : {}),
  };
}

/**
 * Starting and listing a project's exports. Mounted twice, as the query service's chunk reads are: at /v1 for API keys
 * (with the exports scopes) and under /api/orgs/:org/projects/:project for the project's members.
 */
function exportJobRoutes(
  deps: ExportsDeps,
  writer: RequestHandler[],
  reader: RequestHandler[],
  projectOf: (res: Response) => string,
  ownerOnly: OwnerOnly = { check: () => undefined, mayDownload: () => true },
): Router {
  const router = Router({ mergeParams: true });

  router.post('/exports', ...writer, jsonBody(), async (req, res) => {
    const input = parseBody(NewExport, req.body);
    ownerOnly.check(res, input.format);
    if (input.query !== undefined && input.source !== undefined) throw validationError('give either query or source, not both');
    if (input.format === 'gdpr_zip' && (input.query !== undefined || input.source !== undefined)) {
      throw validationError('a GDPR ZIP holds every source: give neither query nor source');
    }
    if (input.source !== undefined && !findSource(input.source)) throw validationError(`unknown source ${input.source}`);
    if (input.query !== undefined) {
      try {
        compileQuery(input.query);
      } catch (error) {
        throw gqlApiError(error) ?? error;
      }
    }
    const job = await insertExportJob(deps.metadata, {
      id: newId(),
      projectId: projectOf(res),
      format: input.format,
      query: input.query ?? null,
      source: input.source ?? null,
    });
    res.status(202).json({ id: job.id, status: job.status });
  });

  router.get('/exports', ...reader, async (req, res) => {
    const jobs = await listExportJobs(deps.metadata, projectOf(res));
    res.json({ exports: jobs.map((job) => jobJson(job, req, deps.signingSecret, ownerOnly.mayDownload(res, job.format))) });
  });

  return router;
}

export function exportRoutes(deps: ExportsDeps): Router {
  const router = Router();
  const member = [requireUser(deps.tokens, deps.metadata, deps.limiter), requireMember(deps.metadata, deps.limiter), requireProject(deps.metadata)];

  router.use('/v1', exportJobRoutes(deps, keyGuards(deps, 'exports:write'), keyGuards(deps, 'exports:read'), (res) => requestKey(res).projectId));
  // DECISIONS.md "GDPR": a person's data leaves in bulk by an owner's hand, started and downloaded; a key needs the
  // exports scopes instead.
  const owner = (res: Response) => requestMembership(res).role === 'owner';
  const ownersTakeGdprZips: OwnerOnly = {
    check: (res, format) => {
      if (format === 'gdpr_zip' && !owner(res)) throw forbidden('only an owner of this organization may start a GDPR export');
    },
    mayDownload: (res, format) => format !== 'gdpr_zip' || owner(res),
  };
  router.use('/api/orgs/:org/projects/:project', exportJobRoutes(deps, member, member, (res) => requestProject(res).id, ownersTakeGdprZips));

  // DECISIONS.md: a signed, expiring link that needs no key.
  router.get('/v1/exports/:id/download', async (req, res) => {
    const id = String(req.params['id']);
    const { token = '' } = parseQuery(DownloadQuery, req.query);
    if (!isUuid(id) || !verifyDownload(deps.signingSecret, id, token)) throw unauthorized('invalid or expired download link');
    const job = await findActiveExportJob(deps.metadata, id);
    const body = job?.blob_key ? await deps.blobs.get(job.blob_key) : undefined;
    if (!job || !body) throw notFound('export not found');
    res
      .type(CONTENT_TYPES[job.format])
      .set('content-disposition', `attachment; filename="export-${job.id}.${job.format === 'gdpr_zip' ? 'zip' : job.format}"`)
      .send(body);
  });

  return router;
}
