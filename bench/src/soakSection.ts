import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { BenchClient, counterSum } from './http';
import { ERROR_LOG_EVERY, LOG_BATCH, startSoakLoad, type IngestAnswer, type SignalName } from './soakLoad';
import { call, provisionKey, removeDir, startServer, type BenchServer } from './server';
import { rate } from './stats';

/** Per second, beside the logs: Sentry error envelopes of one event each, and analytics events of one per request. */
const ERRORS_PER_SECOND = 20;
const EVENTS_PER_SECOND = 10;
const QUERY_EVERY_MS = 500;
/** Resident memory is sampled this often for the slope. */
const SAMPLE_EVERY_MS = 10_000;
const QUIET_RUNS = 10;
/** Targets of the soak issue: reported, never asserted. */
const TARGET_RSS_SLOPE_MIB_PER_MINUTE = 2;
const TARGET_STALL_MS = 200;
const TARGET_QUERY_RATIO = 1.5;
const MIB = 1024 * 1024;

/** Dashboard-like queries over what the load sends (data.ts: route and duration_ms on every log). */
const QUERIES = [
  { name: 'by route', gql: 'from:logs | count by route | last:1h' },
  { name: 'p95 route', gql: 'from:logs | p95(duration_ms) by route | last:1h' },
  { name: 'err/min', gql: 'from:logs severity:error | count by time(1m) | last:1h' },
  { name: 'search', gql: 'from:logs route:/checkout duration_ms > 1000 | last:1h | limit 50' },
  { name: 'err type', gql: 'from:errors | count by type | last:1h' },
  { name: 'ev name', gql: 'from:events | count by event_name | last:1h' },
] as const;

/** Alert rules the evaluator computes every ALERT_EVALUATION_INTERVAL_MS during the run (docs/api.md, Alerts). */
const ALERT_RULES = [
  { name: 'error logs', metric: 'from:logs severity:error | count', threshold: 1_000, window_minutes: 5 },
  { name: 'slow checkout', metric: 'from:logs route:/checkout | p95(duration_ms)', threshold: 1_400, window_minutes: 5 },
  { name: 'error events', metric: 'from:errors | count', threshold: 500, window_minutes: 1 },
];

/** What one minute of the run saw; the last one may be shorter. */
interface Minute {
  accepted: Record<SignalName, number>;
  requests: number;
  slowestRequestMs: number;
  longestGapMs: number;
  queryMs: number[][];
}

const emptyMinute = (): Minute => ({ accepted: { logs: 0, errors: 0, events: 0 }, requests: 0, slowestRequestMs: 0, longestGapMs: 0, queryMs: QUERIES.map(() => []) });

/** Interpolated between the two nearest values, as DuckDB's quantile_cont. */
function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const position = (sorted.length - 1) * p;
  const below = Math.floor(position);
  const above = Math.min(below + 1, sorted.length - 1);
  return sorted[below]! + (sorted[above]! - sorted[below]!) * (position - below);
}

/** Least-squares slope of y over x. */
function slope(points: readonly { x: number; y: number }[]): number {
  const n = points.length;
  if (n < 2) return Number.NaN;
  const meanX = points.reduce((sum, point) => sum + point.x, 0) / n;
  const meanY = points.reduce((sum, point) => sum + point.y, 0) / n;
  let covariance = 0;
  let variance = 0;
  for (const point of points) {
    covariance += (point.x - meanX) * (point.y - meanY);
    variance += (point.x - meanX) ** 2;
  }
  return covariance / variance;
}

/** VmRSS and VmHWM (peak) of /proc/<pid>/status, in bytes. */
function residentMemory(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kilobytes = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
  return { rss: kilobytes('VmRSS') * 1024, peak: kilobytes('VmHWM') * 1024 };
}

/** A sample's value in Prometheus text (prom-client writes no timestamps): the one of `series` (name and labels as written), undefined when absent. */
function metricValue(text: string, series: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/**
 * One of the ingest journal's histograms (`sync` or `write`) summed over topics: each bucket's upper bound in seconds
 * ('+Inf' as Infinity) and its count.
 */
function journalBuckets(text: string, kind: 'sync' | 'write'): Map<number, number> {
  const buckets = new Map<number, number>();
  const pattern = new RegExp(`^tlm_ingest_journal_${kind}_seconds_bucket\\{le="([^"]+)"[^}]*\\} (\\d+)`);
  for (const line of text.split('\n')) {
    const match = pattern.exec(line);
    if (!match) continue;
    const bound = match[1] === '+Inf' ? Infinity : Number(match[1]);
    buckets.set(bound, (buckets.get(bound) ?? 0) + Number(match[2]));
  }
  return buckets;
}

/**
 * The longest journal sync or write between two scrapes, as the upper bound of the smallest bucket that holds every
 * one made in between, in ms; undefined when there was none.
 */
function longestMs(before: Map<number, number>, after: Map<number, number>): number | undefined {
  const delta = (bound: number) => (after.get(bound) ?? 0) - (before.get(bound) ?? 0);
  const all = delta(Infinity);
  if (all <= 0) return undefined;
  const bound = [...after.keys()].sort((a, b) => a - b).find((candidate) => delta(candidate) === all);
  return bound === undefined ? undefined : bound * 1000;
}

/**
 * The server's V8 heap used (prom-client's default metric, under the `tlm_` prefix of collectProcessMetrics) and the
 * analytics store's own memory by its kinds (DuckDB's buffers and operators in memory, its spill files, its limit), and
 * the ingest answers given before their rows were readable (the commit wait passed first).
 */
async function serverGauges(url: string): Promise<{ heapUsed?: number; storeInMemory?: number; storeSpilled?: number; storeLimit?: number; answeredBeforeCommit?: number; loopMaxMs?: number; syncBuckets?: Map<number, number>; writeBuckets?: Map<number, number> }> {
  try {
    const text = await (await fetch(`${url}/metrics`)).text();
    const loopMax = metricValue(text, 'tlm_nodejs_eventloop_lag_max_seconds');
    return {
      // prom-client starts its event-loop delay histogram again at every scrape, and only the soak scrapes: the minute's longest.
      loopMaxMs: loopMax === undefined ? undefined : loopMax * 1000,
      heapUsed: metricValue(text, 'tlm_nodejs_heap_size_used_bytes'),
      storeInMemory: metricValue(text, 'tlm_analytics_store_memory_bytes{kind="in_memory"}'),
      storeSpilled: metricValue(text, 'tlm_analytics_store_memory_bytes{kind="spilled"}'),
      storeLimit: metricValue(text, 'tlm_analytics_store_memory_bytes{kind="limit"}'),
      answeredBeforeCommit: counterSum(text, 'tlm_ingest_answered_early_total', 'pending="commit"'),
      syncBuckets: journalBuckets(text, 'sync'),
      writeBuckets: journalBuckets(text, 'write'),
    };
  } catch {
    return {};
  }
}

/** Disk used under DATA_DIR, as `du` counts it (allocated blocks), in bytes. */
async function diskUsage(dir: string): Promise<number> {
  const { stdout } = await promisify(execFile)('du', ['-sk', dir]);
  return Number(stdout.split('\t')[0]) * 1024;
}

const mib = (bytes: number | undefined) => (bytes === undefined || Number.isNaN(bytes) ? '–' : Math.round(bytes / MIB).toLocaleString('en-US'));
const ms = (value: number) => (Number.isNaN(value) ? '–' : value < 10 ? value.toFixed(1) : Math.round(value).toLocaleString('en-US'));
const verdict = (pass: boolean) => (pass ? 'PASS' : 'FAIL');
const sleep = (millis: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, millis)));

/** GQL over one keep-alive connection; a failed query is counted, not thrown, while the load runs. */
function gqlClient(url: string, key: string) {
  const client = new BenchClient(url, 1);
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  return {
    ask: async (q: string): Promise<boolean> => (await client.request('POST', '/v1/gql/query', Buffer.from(JSON.stringify({ q })), headers)).status === 200,
    close: () => client.close(),
  };
}

async function gqlValue(server: BenchServer, key: string, q: string): Promise<number> {
  const answer = await call(`${server.url}/v1/gql/query`, 'POST', { q }, key);
  return Number(answer.data.results[0]?.value ?? 0);
}

/**
 * Issue "Soak": an operator's steady mixed load on one standalone server for BENCH_SOAK_MINUTES: logs in batches
 * (one in ERROR_LOG_EVERY an error with a V8 stack, which the log scanner makes an error of), Sentry error envelopes,
 * analytics events, a dashboard GQL query every QUERY_EVERY_MS and three alert rules being evaluated. Prints a line a
 * minute (memory, data size, accepted rates, stalls, query latency), then the memory slope, that every accepted item
 * was counted once, and each query's latency under load against a quiet pass on the same data. Targets are printed
 * with PASS or FAIL and never throw; only broken infrastructure (the server gone) does.
 */
export async function soakSection(options: { minutes: number; logsPerSecond: number; port: number }): Promise<Record<string, unknown>> {
  const durationMs = options.minutes * 60_000;
  console.log(
    `\nsoak: ${options.minutes} min of mixed load on one standalone server: ${rate(options.logsPerSecond)} logs (batches of ${LOG_BATCH}, 1 in ${ERROR_LOG_EVERY} an error with a stack trace), ` +
      `${ERRORS_PER_SECOND} error envelopes/s, ${EVENTS_PER_SECOND} events/s, a GQL query every ${QUERY_EVERY_MS} ms, ${ALERT_RULES.length} alert rules`,
  );
  const server = await startServer(options.port);
  try {
    const { key } = await provisionKey(server.url);
    for (const rule of ALERT_RULES) await call(`${server.url}/v1/alerts`, 'POST', rule, key);
    let exitCode: number | null = null;
    server.process.once('exit', (code) => (exitCode = code ?? -1));

    const minutes: Minute[] = [];
    const minuteAt = (at: number) => (minutes[Math.min(Math.floor((at - started) / 60_000), Math.ceil(durationMs / 60_000) - 1)] ??= emptyMinute());
    const totals = { accepted: { logs: 0, errors: 0, events: 0 }, requests: 0, errorLogs: 0, rejected: 0, failed: 0, firstFailure: '' };
    const queryTimes = QUERIES.map((): { at: number; ms: number }[] => []);
    let queryFailures = 0;
    let lastAnswerAt = 0;
    const onAnswer = (answer: IngestAnswer) => {
      const minute = minuteAt(answer.answeredAt);
      minute.accepted[answer.signal] += answer.accepted;
      minute.requests++;
      minute.slowestRequestMs = Math.max(minute.slowestRequestMs, answer.answeredAt - answer.sentAt);
      minute.longestGapMs = Math.max(minute.longestGapMs, answer.answeredAt - lastAnswerAt);
      lastAnswerAt = answer.answeredAt;
      totals.accepted[answer.signal] += answer.accepted;
      totals.requests++;
      totals.errorLogs += answer.errorLogs;
      totals.rejected += answer.rejected;
      if (answer.failure !== undefined) {
        totals.failed++;
        totals.firstFailure ||= answer.failure;
      }
    };

    const startGauges = await serverGauges(server.url);
    const samples: { minutes: number; rss: number }[] = [];
    const clientLag = monitorEventLoopDelay({ resolution: 10 });
    clientLag.enable();
    const started = performance.now();
    lastAnswerAt = started;
    samples.push({ minutes: 0, rss: residentMemory(server.process.pid!).rss });
    const sampler = setInterval(() => {
      if (exitCode === null) samples.push({ minutes: (performance.now() - started) / 60_000, rss: residentMemory(server.process.pid!).rss });
    }, SAMPLE_EVERY_MS);
    const load = startSoakLoad({ url: server.url, key, logsPerSecond: options.logsPerSecond, errorsPerSecond: ERRORS_PER_SECOND, eventsPerSecond: EVENTS_PER_SECOND, onAnswer });

    let loadRunning = true;
    const gql = gqlClient(server.url, key);
    const queries = (async () => {
      let next = performance.now();
      for (let n = 0; loadRunning; n++) {
        const index = n % QUERIES.length;
        const at = performance.now();
        const ok = await gql.ask(QUERIES[index]!.gql).catch(() => false);
        const took = performance.now() - at;
        if (ok) {
          queryTimes[index]!.push({ at, ms: took });
          minuteAt(at).queryMs[index]!.push(took);
        } else {
          queryFailures++;
        }
        next = Math.max(next + QUERY_EVERY_MS, performance.now());
        await sleep(next - performance.now());
      }
    })();

    console.log(
      `  per minute, at its end in MiB: RSS, heap (V8 used), store and spill (tlm_analytics_store_memory_bytes in_memory and spilled; limit ${mib(startGauges.storeLimit)}), data (du DATA_DIR); accepted/s; ` +
        'slowest ingest request, longest time without an ingest answer, answers given before their rows were readable (INGEST_COMMIT_WAIT_MS passed first) as a share of the requests, the server\'s and the bench client\'s own longest event-loop delay, the ingest journal\'s longest write and longest fdatasync (each as the bound of its histogram bucket), in ms; queries p50/p95 in ms',
    );
    console.log(
      `  ${'minute'.padStart(6)} ${'RSS'.padStart(6)} ${'heap'.padStart(5)} ${'store'.padStart(6)} ${'spill'.padStart(5)} ${'data'.padStart(6)} ${'logs/s'.padStart(7)} ${'err/s'.padStart(6)} ${'ev/s'.padStart(5)} ` +
        `${'slowest'.padStart(7)} ${'gap'.padStart(6)} ${'early'.padStart(6)} ${'server'.padStart(6)} ${'client'.padStart(6)} ${'write'.padStart(6)} ${'sync'.padStart(6)}  ${QUERIES.map((query) => query.name.padStart(11)).join(' ')}`,
    );
    const rows: Record<string, unknown>[] = [];
    let syncBuckets = startGauges.syncBuckets ?? new Map<number, number>();
    let writeBuckets = startGauges.writeBuckets ?? new Map<number, number>();
    let answeredBeforeCommit = startGauges.answeredBeforeCommit ?? 0;
    const printMinute = async (index: number, endMs: number) => {
      const minute = minutes[index] ?? emptyMinute();
      const seconds = (endMs - index * 60_000) / 1000;
      const memory = residentMemory(server.process.pid!);
      const gauges = await serverGauges(server.url);
      const data = await diskUsage(server.dataDir);
      const lag = clientLag.max / 1e6;
      const syncMs = gauges.syncBuckets ? longestMs(syncBuckets, gauges.syncBuckets) : undefined;
      if (gauges.syncBuckets) syncBuckets = gauges.syncBuckets;
      const writeMs = gauges.writeBuckets ? longestMs(writeBuckets, gauges.writeBuckets) : undefined;
      if (gauges.writeBuckets) writeBuckets = gauges.writeBuckets;
      const early = gauges.answeredBeforeCommit === undefined ? undefined : gauges.answeredBeforeCommit - answeredBeforeCommit;
      answeredBeforeCommit = gauges.answeredBeforeCommit ?? answeredBeforeCommit;
      const earlyShare = early === undefined || minute.requests === 0 ? '–' : `${((early / minute.requests) * 100).toFixed(1)}%`;
      const bound = (value: number | undefined) => (value === undefined ? '–' : `≤${ms(value)}`).padStart(6);
      clientLag.reset();
      const perSecond = (signal: SignalName) => minute.accepted[signal] / seconds;
      const queryCells = minute.queryMs.map((times) => `${ms(percentile(times, 0.5))}/${ms(percentile(times, 0.95))}`);
      const label = Number.isInteger(endMs / 60_000) ? String(endMs / 60_000) : (endMs / 60_000).toFixed(1);
      console.log(
        `  ${label.padStart(6)} ${mib(memory.rss).padStart(6)} ${mib(gauges.heapUsed).padStart(5)} ${mib(gauges.storeInMemory).padStart(6)} ${mib(gauges.storeSpilled).padStart(5)} ${mib(data).padStart(6)} ` +
          `${Math.round(perSecond('logs')).toLocaleString('en-US').padStart(7)} ${perSecond('errors').toFixed(1).padStart(6)} ${perSecond('events').toFixed(1).padStart(5)} ` +
          `${ms(minute.slowestRequestMs).padStart(7)} ${ms(minute.longestGapMs).padStart(6)} ${earlyShare.padStart(6)} ${ms(gauges.loopMaxMs ?? NaN).padStart(6)} ${ms(lag).padStart(6)} ${bound(writeMs)} ${bound(syncMs)}  ${queryCells.map((cell) => cell.padStart(11)).join(' ')}`,
      );
      rows.push({
        minute: endMs / 60_000,
        rss_bytes: memory.rss,
        heap_used_bytes: gauges.heapUsed ?? null,
        store_in_memory_bytes: gauges.storeInMemory ?? null,
        store_spilled_bytes: gauges.storeSpilled ?? null,
        data_bytes: data,
        logs_per_second: perSecond('logs'),
        errors_per_second: perSecond('errors'),
        events_per_second: perSecond('events'),
        slowest_request_ms: minute.slowestRequestMs,
        longest_gap_ms: minute.longestGapMs,
        requests: minute.requests,
        answered_before_commit: early ?? null,
        server_event_loop_max_ms: gauges.loopMaxMs ?? null,
        client_event_loop_max_ms: lag,
        journal_write_max_ms_bound: writeMs ?? null,
        journal_sync_max_ms_bound: syncMs ?? null,
        queries: Object.fromEntries(QUERIES.map((query, i) => [query.name, { p50_ms: percentile(minute.queryMs[i]!, 0.5), p95_ms: percentile(minute.queryMs[i]!, 0.95) }])),
      });
    };

    const lastIndex = Math.ceil(durationMs / 60_000) - 1;
    for (let index = 0; index < lastIndex && exitCode === null; index++) {
      await sleep(started + (index + 1) * 60_000 - performance.now());
      if (exitCode === null) await printMinute(index, (index + 1) * 60_000);
    }
    while (exitCode === null && performance.now() < started + durationMs) await sleep(Math.min(1_000, started + durationMs - performance.now()));
    loadRunning = false;
    const loadMs = performance.now() - started;
    await load.stop();
    await queries;
    gql.close();
    clearInterval(sampler);
    if (exitCode !== null) throw new Error(`the standalone server exited with code ${exitCode} ${(loadMs / 60_000).toFixed(1)} minutes into the soak`);
    await printMinute(lastIndex, durationMs);
    samples.push({ minutes: loadMs / 60_000, rss: residentMemory(server.process.pid!).rss });
    clientLag.disable();

    // Memory and stalls over the run.
    const secondHalf = samples.filter((sample) => sample.minutes >= loadMs / 120_000).map((sample) => ({ x: sample.minutes, y: sample.rss / MIB }));
    const rssSlope = slope(secondHalf);
    const peakRss = Math.max(...samples.map((sample) => sample.rss));
    const highWater = residentMemory(server.process.pid!).peak;
    // Array.from reads a minute without any answer (a hole) as undefined, where map would keep the hole.
    const slowestRequestMs = Math.max(...Array.from(minutes, (minute) => minute?.slowestRequestMs ?? 0));
    const longestGapMs = Math.max(...Array.from(minutes, (minute) => minute?.longestGapMs ?? 0));
    const reached = (signal: SignalName) => totals.accepted[signal] / (loadMs / 1000);
    console.log(
      `  reached: logs ${rate(reached('logs'))} of ${rate(options.logsPerSecond)}, errors ${reached('errors').toFixed(1)}/s of ${ERRORS_PER_SECOND}/s, events ${reached('events').toFixed(1)}/s of ${EVENTS_PER_SECOND}/s; ` +
        `items rejected ${totals.rejected}, requests failed ${totals.failed}${totals.firstFailure ? ` (first: ${totals.firstFailure})` : ''}, queries failed ${queryFailures}`,
    );
    console.log(
      `  RSS: peak ${mib(peakRss)} MiB during the load (VmHWM ${mib(highWater)} MiB, start-up included); slope over the second half ${rssSlope >= 0 ? '+' : ''}${rssSlope.toFixed(2)} MiB/min (least squares, ${secondHalf.length} samples ${SAMPLE_EVERY_MS / 1000} s apart)   ` +
        `target < ${TARGET_RSS_SLOPE_MIB_PER_MINUTE} MiB/min ${verdict(rssSlope < TARGET_RSS_SLOPE_MIB_PER_MINUTE)}`,
    );
    const answeredEarly = answeredBeforeCommit - (startGauges.answeredBeforeCommit ?? 0);
    console.log(
      `  stalls: slowest ingest request ${ms(slowestRequestMs)} ms, longest time without an ingest answer ${ms(longestGapMs)} ms   ` +
        `target <= ${TARGET_STALL_MS} ms ${verdict(slowestRequestMs <= TARGET_STALL_MS && longestGapMs <= TARGET_STALL_MS)}; ` +
        `answered before their rows were readable: ${answeredEarly.toLocaleString('en-US')} of ${totals.requests.toLocaleString('en-US')} requests (${((answeredEarly / totals.requests) * 100).toFixed(2)}%)`,
    );

    // Nothing lost or counted twice: the rows against the answers, once the log scanner has made its last pass.
    const checks = await countChecks(server, key, totals);

    // Each query's p95 over the end of the load against a quiet pass on the same data.
    const windowMs = options.minutes >= 10 ? 5 * 60_000 : loadMs / 2;
    const windowLabel = options.minutes >= 10 ? 'last 5 min' : 'last half';
    const quietClient = gqlClient(server.url, key);
    const quietTimes = QUERIES.map((): number[] => []);
    for (let run = 0; run < QUIET_RUNS; run++) {
      for (const [index, query] of QUERIES.entries()) {
        const at = performance.now();
        if (await quietClient.ask(query.gql)) quietTimes[index]!.push(performance.now() - at);
      }
    }
    quietClient.close();
    console.log(`  queries, p95 under load (${windowLabel}) against a quiet pass after the load (${QUIET_RUNS} runs each):`);
    const queryResults: Record<string, Record<string, number>> = {};
    for (const [index, query] of QUERIES.entries()) {
      const underLoad = percentile(queryTimes[index]!.filter((time) => time.at >= started + loadMs - windowMs).map((time) => time.ms), 0.95);
      const quiet = percentile(quietTimes[index]!, 0.95);
      const ratio = underLoad / quiet;
      queryResults[query.name] = { load_p95_ms: underLoad, quiet_p95_ms: quiet, quiet_p50_ms: percentile(quietTimes[index]!, 0.5), ratio };
      console.log(
        `    ${query.gql.padEnd(66)} ${ms(underLoad).padStart(6)} ms / ${ms(quiet).padStart(6)} ms = ${ratio.toFixed(2).padStart(5)}   target <= ${TARGET_QUERY_RATIO} ${verdict(ratio <= TARGET_QUERY_RATIO)}` +
          `   (quiet p50 ${ms(percentile(quietTimes[index]!, 0.5))} ms)`,
      );
    }
    const alerts = (await call(`${server.url}/v1/alerts`, 'GET', undefined, key)).alerts as { last_evaluated_at: string | null }[];
    const evaluated = alerts.filter((rule) => rule.last_evaluated_at !== null).length;
    console.log(`  alert rules evaluated during the run: ${evaluated} of ${alerts.length}; data size ${mib(await diskUsage(server.dataDir))} MiB`);

    return {
      minutes: options.minutes,
      logs_per_second_asked: options.logsPerSecond,
      logs_per_second: reached('logs'),
      errors_per_second: reached('errors'),
      events_per_second: reached('events'),
      rejected: totals.rejected,
      failed_requests: totals.failed,
      failed_queries: queryFailures,
      rss_slope_mib_per_minute: rssSlope,
      peak_rss_bytes: peakRss,
      rss_high_water_bytes: highWater,
      slowest_request_ms: slowestRequestMs,
      longest_gap_ms: longestGapMs,
      requests: totals.requests,
      answered_before_commit: answeredEarly,
      checks,
      queries: queryResults,
      per_minute: rows,
    };
  } finally {
    await server.stop();
    removeDir(server.dataDir);
  }
}

/**
 * Logs and events must be counted as soon as they were answered (in standalone mode a 2xx means the rows are
 * committed); errors once the log scanner has made its pass over the last error logs (every LOG_SCAN_INTERVAL_MS,
 * which the bench's environment may set) and the issue counts have followed the rows.
 */
async function countChecks(
  server: BenchServer,
  key: string,
  totals: { accepted: Record<SignalName, number>; errorLogs: number },
): Promise<Record<string, boolean>> {
  const scanIntervalMs = Number(process.env['LOG_SCAN_INTERVAL_MS'] ?? 60_000);
  const expectedErrors = totals.accepted.errors + totals.errorLogs;
  const drainStarted = performance.now();
  const deadline = drainStarted + 2 * scanIntervalMs + 30_000;
  let counted = { logs: 0, events: 0, errors: 0, fromLogs: 0, issueEvents: 0 };
  for (;;) {
    counted = {
      logs: await gqlValue(server, key, 'from:logs | count'),
      events: await gqlValue(server, key, 'from:events | count'),
      errors: await gqlValue(server, key, 'from:errors | count'),
      fromLogs: await gqlValue(server, key, 'from:errors extra.synthetic:logs | count'),
      issueEvents: await gqlValue(server, key, 'from:issues | sum(event_count)'),
    };
    const settled = counted.logs === totals.accepted.logs && counted.events === totals.accepted.events && counted.errors === expectedErrors && counted.issueEvents === expectedErrors;
    if (settled || performance.now() > deadline) break;
    await sleep(2_000);
  }
  const waited = ((performance.now() - drainStarted) / 1000).toFixed(0);
  const checks = {
    logs: counted.logs === totals.accepted.logs,
    events: counted.events === totals.accepted.events,
    errors: counted.errors === expectedErrors,
    issues: counted.issueEvents === expectedErrors,
  };
  const n = (value: number) => value.toLocaleString('en-US');
  console.log(`  counted (${waited} s after the load, the log scanner passing every ${scanIntervalMs / 1000} s):`);
  console.log(`    logs: from:logs | count ${n(counted.logs)}, accepted ${n(totals.accepted.logs)}   ${verdict(checks.logs)}`);
  console.log(`    events: from:events | count ${n(counted.events)}, accepted ${n(totals.accepted.events)}   ${verdict(checks.events)}`);
  console.log(
    `    errors: from:errors | count ${n(counted.errors)} (${n(counted.fromLogs)} made from logs), expected ${n(expectedErrors)} = ${n(totals.accepted.errors)} envelopes accepted + ${n(totals.errorLogs)} error logs accepted   ${verdict(checks.errors)}`,
  );
  console.log(`    issues: from:issues | sum(event_count) ${n(counted.issueEvents)}, expected ${n(expectedErrors)}   ${verdict(checks.issues)}`);
  return checks;
}
