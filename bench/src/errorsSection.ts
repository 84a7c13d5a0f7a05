import { Topics } from '@tlm/bus';
import { logItem } from './data';
import { BenchClient, consumersCaughtUp } from './http';
import { ingestOverHttp } from './ingest';
import { call, provisionKey, removeDir, startServer } from './server';
import { bytesOf, median, megabytes, rate, repeat } from './stats';

/** Pairs of an errors run (envelopes of 100) and a logs run; runs of errors sent one per envelope. */
const PAIRS = 5;
/** Before the pairs, an untimed errors run and logs run of this fraction of a run's items each. */
const WARM_UP_SHARE = 5;
const SINGLE_RUNS = 3;
/** Events per envelope and logs per batch: the same request size for both signals. */
const BATCH = 100;
/** Distinct fingerprints in the mix: the processor groups every event into one of these issues. */
const FINGERPRINTS = 100;
const ROUTES = ['/', '/checkout', '/cart', '/search', '/api/orders', '/api/payments'];

const hex = (value: number, digits: number) => value.toString(16).padStart(digits, '0');

/** A Sentry Node SDK error event as it sends one: eight frames (vendor and in-app), breadcrumbs, user, tags, trace. */
function errorEvent(i: number, nowSeconds: number) {
  const group = i % FINGERPRINTS;
  const vendor = (n: number) => ({ function: `Layer.handle${n}`, filename: '/app/node_modules/express/lib/router/layer.js', lineno: 95 + n, colno: 5, in_app: false });
  return {
    event_id: hex(i, 32),
    timestamp: nowSeconds,
    platform: 'node',
    level: i % 20 === 0 ? 'fatal' : 'error',
    release: `shop@1.${i % 4}.0`,
    environment: 'production',
    server_name: `web-${i % 3}`,
    exception: {
      values: [
        {
          type: `BenchError${group}`,
          value: `order ${i} failed: upstream answered 502`,
          mechanism: { type: 'generic', handled: true },
          stacktrace: {
            frames: [
              vendor(1),
              vendor(2),
              vendor(3),
              { function: 'router', filename: '/app/src/server.js', lineno: 40, colno: 3, in_app: true },
              vendor(4),
              { function: 'loadOrder', filename: '/app/src/orders.js', lineno: 12 + group, colno: 9, in_app: true },
              { function: `handler${group}`, filename: `/app/src/routes/r${group}.js`, lineno: 27, colno: 11, in_app: true },
              { function: 'fetch', filename: '/app/node_modules/undici/lib/fetch.js', lineno: 310, colno: 15, in_app: false },
            ],
          },
        },
      ],
    },
    tags: { route: ROUTES[i % ROUTES.length], region: i % 2 === 0 ? 'eu' : 'us' },
    user: { id: `u${i % 5_000}`, email: `u${i % 5_000}@example.com` },
    contexts: { trace: { trace_id: hex(i, 32), span_id: hex(i + 1, 16) }, runtime: { name: 'node', version: 'v20.19.0' } },
    breadcrumbs: {
      values: [
        { timestamp: nowSeconds - 2, category: 'http', message: 'GET /api/cart', level: 'info' },
        { timestamp: nowSeconds - 1, category: 'console', message: `loading order ${i}`, level: 'log' },
      ],
    },
    sdk: { name: 'sentry.javascript.node', version: '10.0.0' },
  };
}

function envelopeOf(events: unknown[]): string {
  const lines = ['{}'];
  for (const event of events) {
    const payload = JSON.stringify(event);
    lines.push(JSON.stringify({ type: 'event', length: Buffer.byteLength(payload) }), payload);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Sends `total` events in envelopes of `perEnvelope` from concurrent clients; the clock stops once the server has
 * stored them all (an answer may come before its rows are written: consumersCaughtUp).
 * Returns events/s and the envelope bytes per event.
 */
async function sendErrors(options: {
  url: string;
  key: string;
  offset: number;
  total: number;
  perEnvelope: number;
  concurrency: number;
}): Promise<{ perSecond: number; bytesPerItem: number; retried: number }> {
  const nowSeconds = Date.now() / 1000;
  const bodies: Buffer[] = [];
  for (let start = 0; start < options.total; start += options.perEnvelope) {
    const events = [];
    for (let i = start; i < Math.min(start + options.perEnvelope, options.total); i++) events.push(errorEvent(options.offset + i, nowSeconds));
    bodies.push(Buffer.from(envelopeOf(events)));
  }
  const headers = { authorization: `Bearer ${options.key}`, 'content-type': 'application/x-sentry-envelope' };
  const http = new BenchClient(options.url, options.concurrency);
  let next = 0;
  let accepted = 0;
  let retried = 0;
  const client = async () => {
    while (next < bodies.length) {
      const response = await http.requestRetrying('POST', '/v1/envelope', bodies[next++]!, headers);
      retried += response.retried;
      if (response.status !== 200) throw new Error(`/v1/envelope answered ${response.status}: ${response.text}`);
      accepted += (JSON.parse(response.text) as { accepted: number }).accepted;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: options.concurrency }, client));
  await consumersCaughtUp(options.url, Topics.errors);
  const seconds = (performance.now() - started) / 1000;
  http.close();
  if (accepted !== options.total) throw new Error(`accepted ${accepted} of ${options.total} events`);
  return { perSecond: options.total / seconds, bytesPerItem: bytesOf(bodies) / options.total, retried };
}

/**
 * Errors into issues: errors/s through the envelope endpoint into grouped issues (a mix of 100 fingerprints), next to logs/s
 * over POST /v1/logs on the same server in the same run; both in requests of 100 items, and errors also one per
 * envelope as Sentry SDKs send them. Each run's clock stops once its error rows (and logs) are written; the issue
 * counts and their snapshots follow (docs/decisions.md). Target: errors/s at least a third of logs/s.
 *
 * Errors in envelopes of 100 and logs are measured in PAIRS runs, each pair an errors run and a logs run back to back
 * (in alternating order), so both sides of a pair see the machine in the same state; the ratio is the median of the
 * pairs' ratios, and the rates are the medians of their runs. An untimed run of each comes first. Logs go to a project
 * of their own, and the log scanner (which turns error-level logs into errors) makes no pass during the section.
 */
export async function errorsSection(options: { items: number; concurrency: number; port: number }): Promise<Record<string, number>> {
  console.log(
    `\nerrors: Sentry envelopes on the standalone server, ${options.concurrency} concurrent clients, ${options.items.toLocaleString('en-US')} events per run, ${FINGERPRINTS} fingerprints; ${PAIRS} pairs of an errors run and a logs run after an untimed one of each, medians`,
  );
  // The log scanner's first pass would come a minute in, in the middle of a timed run, and turn up to 10,000 of the
  // error-level logs sent so far into errors; it has its own tests, and its work is kept out of these rates.
  const server = await startServer(options.port, undefined, { LOG_SCAN_INTERVAL_MS: String(60 * 60 * 1000) });
  try {
    const { key } = await provisionKey(server.url);
    const { key: logKey } = await provisionKey(server.url);
    let offset = 0;
    let logOffset = 0;
    let errorCpu = 0;
    let logCpu = 0;
    let errorBytesPerItem = 0;
    let logBytesPerItem = 0;
    /** Requests the server asked to send again (503 with Retry-After: behind on storing). */
    let retried = 0;
    const errorsRun = async (perEnvelope: number, total: number) => {
      const cpuBefore = server.cpuMicros();
      const run = await sendErrors({ url: server.url, key, offset, total, perEnvelope, concurrency: options.concurrency });
      offset += total;
      retried += run.retried;
      return { ...run, cpu: server.cpuMicros() - cpuBefore };
    };
    const logsRun = async (total: number) => {
      const cpuBefore = server.cpuMicros();
      const run = await ingestOverHttp({ url: server.url, key: logKey, path: '/v1/logs', makeItem: logItem, offset: logOffset, total, batchSize: BATCH, concurrency: options.concurrency, topic: Topics.logs });
      logOffset += total;
      retried += run.retried;
      return { perSecond: run.itemsPerSecond, cpu: server.cpuMicros() - cpuBefore, bytesPerItem: run.bytesPerItem };
    };
    // A server takes errors and logs for hours. Untimed, both sides first warm a just-started process (V8 compiling
    // their paths, the heap growing, the issues being created), which otherwise fell on the first pair's errors run.
    const warmUp = Math.round(options.items / WARM_UP_SHARE);
    await errorsRun(BATCH, warmUp);
    await logsRun(warmUp);
    const pairs = await repeat(PAIRS, async (attempt) => {
      const errorsFirst = attempt % 2 === 0;
      const logsBefore = errorsFirst ? undefined : await logsRun(options.items);
      const errors = await errorsRun(BATCH, options.items);
      const logs = logsBefore ?? (await logsRun(options.items));
      errorCpu += errors.cpu;
      errorBytesPerItem = errors.bytesPerItem;
      logCpu += logs.cpu;
      logBytesPerItem = logs.bytesPerItem;
      return { errors: errors.perSecond, logs: logs.perSecond };
    });
    const batched = { perSecond: median(pairs.map((pair) => pair.errors)), cpu: errorCpu / (PAIRS * options.items), bytesPerItem: errorBytesPerItem };
    const logs = median(pairs.map((pair) => pair.logs));
    const ratio = median(pairs.map((pair) => pair.errors / pair.logs));
    const singleTotal = Math.round(options.items / 5);
    const singleRuns = await repeat(SINGLE_RUNS, () => errorsRun(1, singleTotal));
    const single = { perSecond: median(singleRuns.map((run) => run.perSecond)), cpu: singleRuns.reduce((sum, run) => sum + run.cpu, 0) / (SINGLE_RUNS * singleTotal) };

    const gql = async (q: string) => (await call(`${server.url}/v1/gql/query`, 'POST', { q }, key)).data.results[0].value as number;
    const rows = await gql('from:errors last:1d | count');
    // Issue snapshots follow the answers by at most a write interval (docs/decisions.md).
    let issues = 0;
    let counted = 0;
    for (const deadline = Date.now() + 10_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 100))) {
      issues = await gql('from:issues last:1d | count');
      counted = await gql('from:issues last:1d | sum(event_count)');
      if (issues === FINGERPRINTS && counted === offset) break;
    }
    if (issues !== FINGERPRINTS || counted !== offset || rows !== offset) {
      throw new Error(`expected ${FINGERPRINTS} issues counting ${offset} errors; GQL saw ${issues} issues counting ${counted}, ${rows} error rows`);
    }
    logCpu /= PAIRS * options.items;
    console.log(`  pairs (errors/s, logs/s): ${pairs.map((pair) => `${Math.round(pair.errors)} / ${Math.round(pair.logs)} = ${(pair.errors / pair.logs).toFixed(2)}`).join(', ')}`);

    const errorBytes = batched.perSecond * batched.bytesPerItem;
    const logBytes = logs * logBytesPerItem;
    console.log(`  errors (envelopes of ${BATCH})  ${rate(batched.perSecond).padStart(12)}   server CPU ${batched.cpu.toFixed(1)} us/error`);
    console.log(`  errors (one per envelope)   ${rate(single.perSecond).padStart(12)}   server CPU ${single.cpu.toFixed(1)} us/error`);
    console.log(`  logs   (/v1/logs, batch ${BATCH})  ${rate(logs).padStart(12)}   server CPU ${logCpu.toFixed(1)} us/log`);
    console.log(`  errors/logs ${ratio.toFixed(2)} (median of the pairs)   target >= 0.33; grouped into ${issues} issues counting ${counted.toLocaleString('en-US')} errors`);
    if (retried > 0) console.log(`  ${retried} requests sent again after a 503 (the server behind on storing)`);
    // Not the target: the request bytes behind each rate (an error event is about ten times a log item).
    console.log(
      `  request bytes: errors ${megabytes(errorBytes)} (${Math.round(batched.bytesPerItem)} B/event), logs ${megabytes(logBytes)} (${Math.round(logBytesPerItem)} B/log); errors/logs by bytes ${(errorBytes / logBytes).toFixed(2)}`,
    );
    return {
      errors_batch_100: batched.perSecond,
      errors_batch_100_server_cpu_us_per_item: batched.cpu,
      errors_single: single.perSecond,
      errors_single_server_cpu_us_per_item: single.cpu,
      logs_batch_100: logs,
      logs_batch_100_server_cpu_us_per_item: logCpu,
      errors_to_logs: ratio,
      errors_bytes_per_item: batched.bytesPerItem,
      logs_bytes_per_item: logBytesPerItem,
      errors_to_logs_by_bytes: errorBytes / logBytes,
    };
  } finally {
    await server.stop();
    removeDir(server.dataDir);
  }
}
