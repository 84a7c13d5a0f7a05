import type { AnalyticsStore, QueryParams, ResultRow } from '@tlm/analytics-store';
import { Topics, type Bus } from '@tlm/bus';
import type { Logger } from '@tlm/core';
import type { MetadataStore } from '@tlm/metadata-store';
import type { Properties } from '@tlm/signals';
import { logErrorRecord, type ScannedLog } from './records';

export interface LogScannerDeps {
  metadata: MetadataStore;
  analytics: AnalyticsStore;
  bus: Bus;
  logger: Logger;
}

export interface ScanOptions {
  /** How far back a pass looks (SPEC.md: the last hour). */
  lookbackMs: number;
  /** Most log rows one pass turns into errors; the rest are found by the next pass. */
  maxRowsPerPass: number;
}

export interface ScanReport {
  /** False when another process held the scanner lock, so this one did nothing. */
  ran: boolean;
  /** Log rows read and published as errors. */
  published: number;
}

/** Rows read and published per round trip. */
const PAGE_ROWS = 500;

/**
 * The error and fatal logs of the window that have no error yet, across every project, oldest first, after the
 * (timestamp, id) cursor. There is no project guard on purpose: the scanner serves every project, and each log row
 * only ever becomes an error of its own project (the record carries the row's project_id), so nothing crosses
 * tenants. A log has its error once the issues processor stored one with `extra.log_id` = the row's id; values are
 * bound parameters.
 */
const CANDIDATES = {
  duckdb: `SELECT project_id, id, epoch_ms(timestamp) AS timestamp_ms, severity, message, properties, trace_id, span_id, retention_days
FROM logs
WHERE severity IN ('error', 'fatal')
  AND timestamp >= make_timestamp($since * 1000) AND timestamp <= make_timestamp($until * 1000)
  AND (timestamp > make_timestamp($after_time * 1000) OR (timestamp = make_timestamp($after_time * 1000) AND id > $after_id))
  AND NOT EXISTS (
    SELECT 1 FROM errors
    WHERE errors.project_id = logs.project_id
      AND errors.timestamp >= make_timestamp($since * 1000)
      AND json_extract_string(errors.extra, '$.log_id') = logs.id
  )
ORDER BY timestamp, id
LIMIT $limit`,
  clickhouse: `SELECT toString(project_id) AS project_id, toString(id) AS id, toUnixTimestamp64Milli(timestamp) AS timestamp_ms, severity,
  message, properties, trace_id, span_id, retention_days
FROM logs FINAL
WHERE severity IN ('error', 'fatal')
  AND timestamp >= fromUnixTimestamp64Milli({since:Int64}) AND timestamp <= fromUnixTimestamp64Milli({until:Int64})
  AND (timestamp > fromUnixTimestamp64Milli({after_time:Int64})
    OR (timestamp = fromUnixTimestamp64Milli({after_time:Int64}) AND toString(id) > {after_id:String}))
  AND (project_id, toString(id)) NOT IN (
    SELECT project_id, extra['log_id'] FROM errors
    WHERE timestamp >= fromUnixTimestamp64Milli({since:Int64}) AND extra['synthetic'] = 'logs'
  )
ORDER BY timestamp, toString(id)
LIMIT {limit:UInt32}`,
} as const;

/** DuckDB keeps property bags as JSON text, ClickHouse as a map of strings. */
function propertiesOf(value: unknown): Properties {
  if (typeof value === 'string') return JSON.parse(value) as Properties;
  return (value ?? {}) as Properties;
}

function scannedLog(row: ResultRow): ScannedLog {
  return {
    projectId: String(row['project_id']),
    id: String(row['id']),
    timestamp: Number(row['timestamp_ms']),
    severity: row['severity'] === 'fatal' ? 'fatal' : 'error',
    message: String(row['message']),
    properties: propertiesOf(row['properties']),
    // ClickHouse stores an absent id as ''.
    traceId: (row['trace_id'] as string | null) || null,
    spanId: (row['span_id'] as string | null) || null,
    retentionDays: Number(row['retention_days']),
  };
}

/** One pass without the lock: reads the window page by page and publishes each page's errors. */
async function scan(deps: LogScannerDeps, options: ScanOptions, now: number): Promise<number> {
  const sql = CANDIDATES[deps.analytics.dialect];
  // The cursor moves past published rows, so a fleet whose processor has not stored them yet never reads them twice
  // in one pass; the next pass's anti-join finds them stored (and the processor skips an id it has seen anyway).
  let after = { time: 0, id: '' };
  let published = 0;
  while (published < options.maxRowsPerPass) {
    const limit = Math.min(PAGE_ROWS, options.maxRowsPerPass - published);
    const params: QueryParams = { since: now - options.lookbackMs, until: now, after_time: after.time, after_id: after.id, limit };
    const logs = (await deps.analytics.query(sql, params)).map(scannedLog);
    if (logs.length === 0) break;
    const receivedAt = Date.now();
    await deps.bus.publish(
      Topics.errors,
      logs.map((log) => ({ key: log.projectId, value: logErrorRecord(log, receivedAt) })),
    );
    published += logs.length;
    const last = logs[logs.length - 1]!;
    after = { time: last.timestamp, id: last.id };
    if (logs.length < limit) break;
  }
  return published;
}

const LOCK_KEY = 'tlm.log-scanner';

/**
 * Runs `work` when no other process is scanning: on Postgres under a transaction-scoped advisory lock (released by
 * commit, or by the server when this process dies); PGlite lives in one process, whose passes the scanner already
 * queues, and a transaction there would block the issues processor that the pass's publish waits for.
 */
async function exclusively(metadata: MetadataStore, work: () => Promise<number>): Promise<ScanReport> {
  if (metadata.kind === 'pglite') return { ran: true, published: await work() };
  return metadata.transaction(async (tx) => {
    const [lock] = await tx.query<{ taken: boolean }>('select pg_try_advisory_xact_lock(hashtext($1)) as taken', [LOCK_KEY]);
    if (!lock?.taken) return { ran: false, published: 0 };
    return { ran: true, published: await work() };
  });
}

/** One scanner pass (SPEC.md "States and transitions"): error and fatal logs of the window become errors, once each. */
export function runScanPass(deps: LogScannerDeps, options: ScanOptions, now = Date.now()): Promise<ScanReport> {
  return exclusively(deps.metadata, () => scan(deps, options, now));
}
