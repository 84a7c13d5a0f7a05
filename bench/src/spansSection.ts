import { encodeOtlpTraceRequest } from '@tlm/signals';
import { logItem } from './data';
import { BenchClient } from './http';
import { ingestOverHttp } from './ingest';
import { call, provisionKey, removeDir, startServer } from './server';
import { median, rate, repeat } from './stats';

const RUNS = 3;
/** Spans per OTLP request, as a BatchSpanProcessor sends them (its default is 512). */
const SPANS_PER_REQUEST = 500;
const ROUTES = ['/', '/checkout', '/cart', '/search', '/api/orders', '/api/payments'];
const SERVICE = [{ key: 'service.name', value: { stringValue: 'bench-api' } }, { key: 'service.version', value: { stringValue: '1.0.0' } }];

const hex = (value: number, digits: number) => value.toString(16).padStart(digits, '0');

/** One OTLP span: a server span per trace, with the attributes an HTTP instrumentation records. */
function otlpSpan(i: number, nowNanos: bigint) {
  const start = nowNanos - BigInt(60_000_000_000 - (i % 1_000) * 1_000_000);
  return {
    traceId: `${hex(0xbe, 2)}${hex(Math.floor(i / 4), 30)}`,
    spanId: hex(i + 1, 16),
    ...(i % 4 === 0 ? {} : { parentSpanId: hex(i - (i % 4) + 1, 16) }),
    name: i % 4 === 0 ? `GET ${ROUTES[i % ROUTES.length]}` : 'SELECT orders',
    kind: i % 4 === 0 ? 2 : 3,
    startTimeUnixNano: String(start),
    endTimeUnixNano: String(start + BigInt(((i * 7) % 1_500) * 1_000_000 + 250_000)),
    attributes: [
      { key: 'http.request.method', value: { stringValue: 'GET' } },
      { key: 'http.route', value: { stringValue: ROUTES[i % ROUTES.length] } },
      { key: 'http.response.status_code', value: { intValue: i % 50 === 0 ? 500 : 200 } },
      { key: 'user.id', value: { stringValue: `u${i % 5_000}` } },
    ],
    status: { code: i % 50 === 0 ? 2 : 0 },
  };
}

/**
 * Spans: spans/s accepted over OTLP/HTTP, JSON and protobuf (requests of 500 spans, concurrent clients) until queryable, next to
 * logs/s over POST /v1/logs (batches of 500) measured on the same server in the same run. Medians of three runs each.
 */
export async function spansSection(options: { items: number; concurrency: number; port: number }): Promise<Record<string, number>> {
  console.log(
    `\nspans: OTLP/HTTP (JSON, then protobuf) on the standalone server, ${options.concurrency} concurrent clients, ${options.items.toLocaleString('en-US')} spans per run, median of ${RUNS} runs`,
  );
  const server = await startServer(options.port);
  try {
    const { key } = await provisionKey(server.url);
    let offset = 0;
    const spanCpuBefore = server.cpuMicros();
    const spanRuns = await repeat(RUNS, async () => {
      const perSecond = await exportOverOtlp({ url: server.url, key, offset, total: options.items, concurrency: options.concurrency });
      offset += options.items;
      return perSecond;
    });
    const spanCpu = (server.cpuMicros() - spanCpuBefore) / (RUNS * options.items);

    const protobufCpuBefore = server.cpuMicros();
    const protobufRuns = await repeat(RUNS, async () => {
      const perSecond = await exportOverOtlp({ url: server.url, key, offset, total: options.items, concurrency: options.concurrency, encoding: 'protobuf' });
      offset += options.items;
      return perSecond;
    });
    const protobufCpu = (server.cpuMicros() - protobufCpuBefore) / (RUNS * options.items);

    let logOffset = 0;
    const logCpuBefore = server.cpuMicros();
    const logRuns = await repeat(RUNS, async () => {
      const run = await ingestOverHttp({
        url: server.url,
        key,
        path: '/v1/logs',
        makeItem: logItem,
        offset: logOffset,
        total: options.items,
        batchSize: SPANS_PER_REQUEST,
        concurrency: options.concurrency,
      });
      logOffset += options.items;
      return run.itemsPerSecond;
    });
    const logCpu = (server.cpuMicros() - logCpuBefore) / (RUNS * options.items);

    const [stored] = (await call(`${server.url}/v1/gql/query`, 'POST', { q: 'from:spans last:1d | count' }, key)).data.results;
    if (stored.value !== offset) throw new Error(`GQL counted ${stored.value} spans, ${offset} were accepted`);
    const spans = median(spanRuns);
    const protobufSpans = median(protobufRuns);
    const logs = median(logRuns);
    console.log(`  spans (OTLP JSON, 500/request) ${rate(spans).padStart(12)}   server CPU ${spanCpu.toFixed(1)} us/span`);
    console.log(`  spans (OTLP protobuf, 500/req) ${rate(protobufSpans).padStart(12)}   server CPU ${protobufCpu.toFixed(1)} us/span`);
    console.log(`  logs  (/v1/logs, batch 500)    ${rate(logs).padStart(12)}   server CPU ${logCpu.toFixed(1)} us/log`);
    console.log(`  spans/logs ${(spans / logs).toFixed(2)}; stored and counted through GQL: ${offset.toLocaleString('en-US')} spans`);
    return {
      spans_otlp_per_second: spans,
      spans_otlp_server_cpu_us_per_item: spanCpu,
      spans_otlp_protobuf_per_second: protobufSpans,
      spans_otlp_protobuf_server_cpu_us_per_item: protobufCpu,
      logs_batch_500_per_second: logs,
      logs_batch_500_server_cpu_us_per_item: logCpu,
      spans_to_logs_ratio: spans / logs,
    };
  } finally {
    await server.stop();
    removeDir(server.dataDir);
  }
}

/** Sends `total` spans as OTLP requests from concurrent clients; the clock stops at the last 200. */
async function exportOverOtlp(options: {
  url: string;
  key: string;
  offset: number;
  total: number;
  concurrency: number;
  encoding?: 'json' | 'protobuf';
}): Promise<number> {
  const protobuf = options.encoding === 'protobuf';
  const now = BigInt(Date.now()) * 1_000_000n;
  const bodies: Buffer[] = [];
  for (let start = 0; start < options.total; start += SPANS_PER_REQUEST) {
    const spans = [];
    for (let i = start; i < Math.min(start + SPANS_PER_REQUEST, options.total); i++) spans.push(otlpSpan(options.offset + i, now));
    const request = { resourceSpans: [{ resource: { attributes: SERVICE }, scopeSpans: [{ scope: { name: 'bench' }, spans }] }] };
    bodies.push(protobuf ? encodeOtlpTraceRequest(request) : Buffer.from(JSON.stringify(request)));
  }
  // A request whose every span was stored is answered with an empty message: `{}` in JSON, no bytes in protobuf.
  const complete = protobuf ? '' : '{}';
  const headers = { authorization: `Bearer ${options.key}`, 'content-type': protobuf ? 'application/x-protobuf' : 'application/json' };
  const http = new BenchClient(options.url, options.concurrency);
  let next = 0;
  const client = async () => {
    while (next < bodies.length) {
      const response = await http.request('POST', '/v1/otlp/v1/traces', bodies[next++]!, headers);
      if (response.status !== 200 || response.text !== complete) throw new Error(`OTLP answered ${response.status}: ${response.text}`);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: options.concurrency }, client));
  const seconds = (performance.now() - started) / 1000;
  http.close();
  return options.total / seconds;
}
