import { Type } from '@sinclair/typebox';
import type { AnalyticsStore } from '@tlm/analytics-store';
import { exportFileKey, type BlobStore } from '@tlm/blob-store';
import { PLANS, type Logger, type PlanName } from '@tlm/core';
import { LIMITS, compileQuery, readsNewestFirst, runPlan, type Guard, type Plan, type QueryAnswer } from '@tlm/gql';
import {
  claimExportJob,
  findOrganization,
  findProjectById,
  finishExportJob,
  requeueStaleExportJobs,
  type ExportJobRow,
  type MetadataStore,
} from '@tlm/metadata-store';
import { chunkFiles } from './chunks';
import { jsonLines, toCsv, toJson, toZip, type Row } from './render';

export const exportsConfig = {
  EXPORT_POLL_MS: Type.Integer({ minimum: 50, default: 1_000, description: 'How often the export runner looks for queued jobs.' }),
  EXPORT_MAX_ROWS: Type.Integer({ minimum: 1, default: 100_000, description: 'Rows one export (or one source of a GDPR ZIP) holds at most.' }),
  EXPORT_MAX_BODY_BYTES: Type.Integer({
    minimum: 0,
    // The ZIP is built in memory and written without ZIP64, whose limit is 4 GiB.
    maximum: 1024 * 1024 * 1024,
    default: 256 * 1024 * 1024,
    description: 'Bytes of replay, profile and attachment bodies one GDPR ZIP holds at most (256 MiB); those past it are listed in missing_bodies.jsonl.',
  }),
};

export interface RunnerDeps {
  metadata: MetadataStore;
  analytics: AnalyticsStore;
  blobs: BlobStore;
  logger: Logger;
  maxRows: number;
  /** EXPORT_MAX_BODY_BYTES: bytes of stored bodies one GDPR ZIP holds at most. */
  maxBodyBytes: number;
}

/** GQL sources a GDPR ZIP holds, one JSON-lines file each; replays, profiles and attachments are added by `chunkFiles`. */
const GDPR_SOURCES = ['logs', 'events', 'errors', 'issues', 'alerts', 'alert_events', 'spans', 'vitals', 'sessions'];
const EXTENSIONS = { csv: 'csv', json: 'json', gdpr_zip: 'zip' } as const;

/**
 * Every row a query answers, up to its own limit or `maxRows`: aggregates in one run; searches newest first in pages
 * of the GQL row limit, each page ending 1 ms after the last row's time, skipping rows already taken at that instant.
 */
async function collect(deps: RunnerDeps, text: string, guard: Guard): Promise<Row[]> {
  const { query, plan } = compileQuery(text);
  const run = (page: Plan): Promise<QueryAnswer> => runPlan(deps.analytics, query, page, guard);
  // Paged by time: keys after the time (the id, which every search ends with) only order the rows of one instant,
  // which the boundary set below takes care of.
  if (!readsNewestFirst(plan)) return (await run({ ...plan, limit: Math.min(plan.limit, deps.maxRows) })).data.results;
  // A search's own `limit` caps the export too; without one, the pages run to EXPORT_MAX_ROWS.
  const maxRows = query.limit !== null ? Math.min(plan.limit, deps.maxRows) : deps.maxRows;
  const { paged, time, id, own } = withPageKeys(plan);
  const rows: Row[] = [];
  let until = plan.until;
  let boundary = new Set<unknown>();
  for (;;) {
    const limit = Math.min(LIMITS.maxRows, maxRows - rows.length + boundary.size);
    const page = (await run({ ...paged, limit, until })).data.results;
    const fresh = page.filter((row) => !boundary.has(row[id]));
    rows.push(...fresh.slice(0, maxRows - rows.length).map(own));
    if (page.length < limit || rows.length >= maxRows || fresh.length === 0) return rows;
    const last = Date.parse(String(page.at(-1)![time]));
    boundary = new Set(page.filter((row) => Date.parse(String(row[time])) === last).map((row) => row[id]));
    until = { at: new Date(last + 1) };
  }
}

/** Keys of the time and id a page is cut by, when the search's own `fields` leave them out. */
const PAGE_TIME = '\u0000page_time';
const PAGE_ID = '\u0000page_id';

/**
 * A search read newest first as its pages need it: with its time and id in every row, under keys of their own when
 * the search's `fields` leave them out (`own` then takes them off each row it keeps).
 */
function withPageKeys(plan: Plan): { paged: Plan; time: string; id: string; own: (row: Row) => Row } {
  const timeColumn = plan.source.timeColumn!;
  if (plan.projection.length === 0) return { paged: plan, time: timeColumn, id: 'id', own: (row) => row };
  const column = (name: string) => ({ type: 'column' as const, column: plan.source.columns.get(name)! });
  const paged = { ...plan, projection: [...plan.projection, { key: PAGE_TIME, field: column(timeColumn) }, { key: PAGE_ID, field: column('id') }] };
  const own = (row: Row): Row => {
    const { [PAGE_TIME]: _time, [PAGE_ID]: _id, ...kept } = row;
    return kept;
  };
  return { paged, time: PAGE_TIME, id: PAGE_ID, own };
}

async function render(deps: RunnerDeps, job: ExportJobRow, guard: Guard): Promise<{ body: Buffer; rows: number }> {
  if (job.format === 'gdpr_zip') {
    const project = (await findProjectById(deps.metadata, job.project_id))!;
    const organization = (await findOrganization(deps.metadata, project.org_id))!;
    const files: Record<string, string | Uint8Array> = {
      'project.json': JSON.stringify(
        { project: { id: project.id, name: project.name, dsn_id: project.dsn_id, created_at: project.created_at }, organization: { id: organization.id, name: organization.name, plan: organization.plan, region: organization.region } },
        null,
        2,
      ),
    };
    let rows = 0;
    for (const source of GDPR_SOURCES) {
      const taken = await collect(deps, `from:${source}`, guard);
      files[`${source}.jsonl`] = jsonLines(taken);
      rows += taken.length;
    }
    const chunks = await chunkFiles(deps, guard);
    return { body: await toZip({ ...files, ...chunks.files }), rows: rows + chunks.rows };
  }
  const rows = await collect(deps, job.query ?? `from:${job.source ?? 'logs'}`, guard);
  return { body: Buffer.from(job.format === 'csv' ? toCsv(rows) : toJson(rows)), rows: rows.length };
}

/** Runs one queued job, if there is one: renders it, stores the file in the blob store and records the outcome. */
export async function runNextExport(deps: RunnerDeps): Promise<ExportJobRow | undefined> {
  const job = await claimExportJob(deps.metadata);
  if (!job) return undefined;
  try {
    const project = (await findProjectById(deps.metadata, job.project_id))!;
    const organization = (await findOrganization(deps.metadata, project.org_id))!;
    const guard: Guard = { projectId: job.project_id, retentionDays: PLANS[organization.plan as PlanName].retentionDays, now: new Date() };
    const { body, rows } = await render(deps, job, guard);
    const blobKey = exportFileKey(job.project_id, job.created_at.getTime(), job.id, EXTENSIONS[job.format]);
    await deps.blobs.put(blobKey, body);
    await finishExportJob(deps.metadata, job.id, { status: 'done', rows, size: body.length, blobKey });
  } catch (error) {
    deps.logger.error({ err: error, export_id: job.id }, 'export failed');
    await finishExportJob(deps.metadata, job.id, { status: 'failed', error: error instanceof Error ? error.message : String(error) });
  }
  return job;
}

/** Polls the queue; jobs left running by a crashed runner for over 10 minutes are queued again at start. */
export async function startExportRunner(deps: RunnerDeps, pollMs: number): Promise<{ stop(): Promise<void> }> {
  await requeueStaleExportJobs(deps.metadata, new Date(Date.now() - 10 * 60_000));
  let running: Promise<unknown> = Promise.resolve();
  let stopped = false;
  const drain = async () => {
    while (!stopped && (await runNextExport(deps)));
  };
  const timer = setInterval(() => {
    running = running.then(drain).catch((error: unknown) => deps.logger.error({ err: error }, 'export runner failed'));
  }, pollMs);
  timer.unref();
  return {
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
