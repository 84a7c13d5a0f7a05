import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { clickhouseSection } from './clickhouseSection';
import { errorsSection } from './errorsSection';
import { fleetSection } from './fleetSection';
import { ingestSection } from './ingestSection';
import { querySection } from './querySection';
import { replaySection } from './replaySection';
import { soakSection } from './soakSection';
import { spansSection } from './spansSection';
import { webSection } from './webSection';

/** BENCH_SCALE multiplies every size (0.1 for a smoke run); BENCH_ONLY picks sections, e.g. "ingest,spans,errors,query". */
const SCALE = Number(process.env['BENCH_SCALE'] ?? '1');
const CONCURRENCY = Number(process.env['BENCH_CONCURRENCY'] ?? '16');
const PORT = Number(process.env['BENCH_PORT'] ?? '18080');
const ONLY = new Set((process.env['BENCH_ONLY'] ?? 'ingest,spans,errors,replay,query,web').split(',').map((name) => name.trim()));
/** The fleet section (a broker, Postgres and six processes), the clickhouse section (chDB, installed by `make test`) and the soak section run only when BENCH_ONLY names them. The soak runs BENCH_SOAK_MINUTES long (fractions for a smoke run), at BENCH_SOAK_LOGS_PER_SECOND. */
const SOAK_MINUTES = positiveNumber('BENCH_SOAK_MINUTES', '10');
const SOAK_LOGS_PER_SECOND = positiveNumber('BENCH_SOAK_LOGS_PER_SECOND', '15000');

function positiveNumber(name: string, fallback: string): number {
  const value = Number(process.env[name] ?? fallback);
  if (!(value > 0)) throw new Error(`${name} must be a positive number, not ${process.env[name]}`);
  return value;
}

async function main(): Promise<void> {
  const results: Record<string, unknown> = {
    date: new Date().toISOString(),
    node: process.version,
    cores: availableParallelism(),
    scale: SCALE,
    concurrency: CONCURRENCY,
  };
  console.log(`tlm bench: node ${process.version}, ${availableParallelism()} cores, scale ${SCALE}`);
  if (ONLY.has('ingest')) {
    results['ingest'] = await ingestSection({ items: Math.round(200_000 * SCALE), concurrency: CONCURRENCY, port: PORT });
  }
  if (ONLY.has('spans')) {
    results['spans'] = await spansSection({ items: Math.round(100_000 * SCALE), concurrency: CONCURRENCY, port: PORT });
  }
  if (ONLY.has('errors')) {
    results['errors'] = await errorsSection({ items: Math.round(50_000 * SCALE), concurrency: CONCURRENCY, port: PORT });
  }
  if (ONLY.has('replay')) {
    results['replay'] = await replaySection({ chunks: Math.round(2_000 * SCALE), logs: Math.round(100_000 * SCALE), concurrency: CONCURRENCY, port: PORT });
  }
  if (ONLY.has('query')) {
    results['query'] = await querySection({ sizes: [1_000_000, 10_000_000].map((size) => Math.round(size * SCALE)), port: PORT });
  }
  if (ONLY.has('web')) {
    results['web'] = await webSection({ port: PORT });
  }
  if (ONLY.has('fleet')) {
    results['fleet'] = await fleetSection({ items: Math.round(200_000 * SCALE), concurrency: CONCURRENCY });
  }
  if (ONLY.has('clickhouse')) {
    results['clickhouse'] = await clickhouseSection({ rows: Math.round(10_000_000 * SCALE) });
  }
  if (ONLY.has('soak')) {
    results['soak'] = await soakSection({ minutes: SOAK_MINUTES, logsPerSecond: SOAK_LOGS_PER_SECOND, port: PORT });
  }
  const out = path.join(__dirname, '..', '..', '.bench');
  mkdirSync(out, { recursive: true });
  writeFileSync(path.join(out, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
  console.log('\nresults written to .bench/results.json');
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
