import { gzipSync } from 'node:zlib';
import { logItem } from './data';
import { BenchClient } from './http';
import { ingestOverHttp } from './ingest';
import { call, provisionKey, removeDir, startServer } from './server';
import { median, rate, repeat } from './stats';

const RUNS = 3;
/** rrweb events per chunk: a few seconds of a busy page, what Sentry's replay SDK sends per segment. */
const EVENTS_PER_CHUNK = 1_000;
const LOGS_PER_BATCH = 500;
const TAGS = ['div', 'span', 'button', 'input', 'li', 'a', 'img', 'p'];
const WORDS = ['checkout', 'cart', 'total', 'shipping', 'address', 'payment', 'order', 'item', 'price', 'quantity', 'coupon', 'account'];

/** Deterministic pseudo-random numbers, so every run sends the same bytes. */
function generator(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 4_294_967_296;
  };
}

/** Text that compresses like user content does (order numbers, names, ids), not like a repeated word. */
const token = (random: () => number): string => Math.floor(random() * 36 ** 10).toString(36).padStart(10, '0');

/** One chunk of rrweb incremental snapshots: DOM mutations with text, mouse moves and inputs, gzipped as SDKs send it. */
function rrwebChunk(seed: number, start: number): Buffer {
  const random = generator(seed);
  const pick = <T>(values: readonly T[]) => values[Math.floor(random() * values.length)]!;
  const events = [];
  for (let i = 0; i < EVENTS_PER_CHUNK; i++) {
    const timestamp = start + i * 20;
    const kind = random();
    if (kind < 0.4) {
      const id = Math.floor(random() * 5_000);
      events.push({
        type: 3,
        timestamp,
        data: {
          source: 0,
          adds: [{ parentId: id, nextId: null, node: { type: 2, tagName: pick(TAGS), attributes: { class: `${pick(WORDS)}-${Math.floor(random() * 100)}` }, childNodes: [], id: id + 1 } }],
          texts: [{ id: id + 2, value: `${pick(WORDS)} ${pick(WORDS)} ${(random() * 1_000).toFixed(2)} ${token(random)}` }],
          removes: [],
          attributes: [],
        },
      });
    } else if (kind < 0.8) {
      events.push({ type: 3, timestamp, data: { source: 1, positions: [{ x: Math.floor(random() * 1_440), y: Math.floor(random() * 900), id: Math.floor(random() * 5_000), timeOffset: -10 }] } });
    } else {
      events.push({ type: 3, timestamp, data: { source: 5, text: `${pick(WORDS)}${Math.floor(random() * 10_000)}`, isChecked: false, id: Math.floor(random() * 5_000) } });
    }
  }
  return gzipSync(JSON.stringify(events));
}

/**
 * Replay: chunk MB/s accepted over POST /v1/replay/chunks (gzipped rrweb, concurrent clients, each client one
 * session) until stored (blob fsynced, row committed), next to logs/s over POST /v1/logs (batches of 500) on the same
 * server in the same run. Medians of three runs each.
 */
export async function replaySection(options: { chunks: number; logs: number; concurrency: number; port: number }): Promise<Record<string, number>> {
  const bodies = Array.from({ length: options.chunks }, (_, i) => rrwebChunk(i + 1, Date.now() - 3_600_000 + i * 5_000));
  const compressedBytes = bodies.reduce((sum, body) => sum + body.length, 0);
  console.log(
    `\nreplay: gzipped rrweb chunks on the standalone server, ${options.concurrency} concurrent clients, ${options.chunks.toLocaleString('en-US')} chunks ` +
      `of ${EVENTS_PER_CHUNK} events (${(compressedBytes / options.chunks / 1024).toFixed(1)} KiB each on average) per run, median of ${RUNS} runs`,
  );
  const server = await startServer(options.port);
  try {
    const { key } = await provisionKey(server.url);
    let sessionCount = 0;
    const chunkCpuBefore = server.cpuMicros();
    const chunkRuns = await repeat(RUNS, async (run) => {
      const sessions = Array.from({ length: options.concurrency }, (_, client) => `bench-${run}-${client}`);
      for (const session of sessions) await call(`${server.url}/v1/replay/sessions`, 'POST', { session_id: session, started_at: Date.now() - 3_600_000 }, key);
      sessionCount += sessions.length;
      return uploadChunks({ url: server.url, key, bodies, sessions });
    });
    const chunkCpu = (server.cpuMicros() - chunkCpuBefore) / (RUNS * options.chunks);

    let logOffset = 0;
    const logRuns = await repeat(RUNS, async () => {
      const run = await ingestOverHttp({ url: server.url, key, path: '/v1/logs', makeItem: logItem, offset: logOffset, total: options.logs, batchSize: LOGS_PER_BATCH, concurrency: options.concurrency });
      logOffset += options.logs;
      return run.itemsPerSecond;
    });

    const listed = (await call(`${server.url}/v1/replay/sessions?limit=1000`, 'GET', undefined, key)) as { sessions: { chunk_count: number }[] };
    const stored = listed.sessions.reduce((sum, session) => sum + session.chunk_count, 0);
    if (listed.sessions.length !== sessionCount || stored !== RUNS * options.chunks) {
      throw new Error(`the store lists ${stored} chunks in ${listed.sessions.length} sessions; ${RUNS * options.chunks} chunks were accepted`);
    }
    const megabytes = median(chunkRuns.map((run) => run.megabytesPerSecond));
    const chunksPerSecond = median(chunkRuns.map((run) => run.chunksPerSecond));
    const logs = median(logRuns);
    console.log(`  replay chunks  ${megabytes.toFixed(1).padStart(8)} MB/s gzipped   ${rate(chunksPerSecond).padStart(10)} chunks   server CPU ${(chunkCpu / 1000).toFixed(2)} ms/chunk`);
    console.log(`  logs (/v1/logs, batch 500)  ${rate(logs).padStart(12)}`);
    console.log(`  rrweb events in chunks per log: ${((chunksPerSecond * EVENTS_PER_CHUNK) / logs).toFixed(2)}`);
    console.log(`  stored and listed through GET /v1/replay/sessions: ${stored.toLocaleString('en-US')} chunks`);
    return {
      replay_chunk_mb_per_second: megabytes,
      replay_chunks_per_second: chunksPerSecond,
      replay_chunk_kib: compressedBytes / options.chunks / 1024,
      replay_server_cpu_ms_per_chunk: chunkCpu / 1000,
      logs_batch_500_per_second: logs,
      replay_events_per_log: (chunksPerSecond * EVENTS_PER_CHUNK) / logs,
    };
  } finally {
    await server.stop();
    removeDir(server.dataDir);
  }
}

/** Each client sends its session's chunks in order (seq 0, 1, …), as a browser does; the clock stops at the last 202. */
async function uploadChunks(options: { url: string; key: string; bodies: Buffer[]; sessions: string[] }): Promise<{ megabytesPerSecond: number; chunksPerSecond: number }> {
  const http = new BenchClient(options.url, options.sessions.length);
  const headers = { authorization: `Bearer ${options.key}`, 'content-type': 'application/octet-stream' };
  const seqs = new Map(options.sessions.map((session) => [session, 0]));
  let next = 0;
  let bytes = 0;
  const client = async (session: string) => {
    while (next < options.bodies.length) {
      const body = options.bodies[next++]!;
      const seq = seqs.get(session)!;
      seqs.set(session, seq + 1);
      const response = await http.request('POST', `/v1/replay/chunks?session_id=${session}&seq=${seq}`, body, headers);
      if (response.status !== 202) throw new Error(`/v1/replay/chunks answered ${response.status}: ${response.text}`);
      bytes += body.length;
    }
  };
  const started = performance.now();
  await Promise.all(options.sessions.map(client));
  const seconds = (performance.now() - started) / 1000;
  http.close();
  return { megabytesPerSecond: bytes / 1e6 / seconds, chunksPerSecond: options.bodies.length / seconds };
}
