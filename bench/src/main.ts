import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { eventRow, eventsTable, logRow, logsTable } from '@tlm/analytics-store';
import { toEventRecord, toLogRecord } from '@tlm/signals';
import { appenderCeiling } from './ceiling';
import { eventItem, logItem } from './data';
import { ingestOverHttp } from './ingest';
import { call, provisionKey, removeDir, startServer } from './server';

/** BENCH_SCALE multiplies every size (0.1 for a smoke run). */
const SCALE = Number(process.env['BENCH_SCALE'] ?? '1');
const INGEST_ITEMS = Math.round(200_000 * SCALE);
const CONCURRENCY = Number(process.env['BENCH_CONCURRENCY'] ?? '8');
const PORT = Number(process.env['BENCH_PORT'] ?? '18080');

const rate = (value: number) => `${Math.round(value).toLocaleString('en-US')}/s`;

async function main(): Promise<void> {
  const results: Record<string, unknown> = {
    date: new Date().toISOString(),
    node: process.version,
    cores: availableParallelism(),
    scale: SCALE,
  };
  console.log(`tlm bench: node ${process.version}, ${availableParallelism()} cores, scale ${SCALE}`);

  console.log(`\ningest: standalone server over HTTP, ${CONCURRENCY} concurrent clients, ${INGEST_ITEMS.toLocaleString('en-US')} items per run`);
  const server = await startServer(PORT);
  const ingest: Record<string, number> = {};
  try {
    const { key } = await provisionKey(server.url);
    let offset = 0;
    for (const [signal, path, makeItem] of [
      ['logs', '/v1/logs', logItem],
      ['events', '/v1/events', eventItem],
    ] as const) {
      for (const batchSize of [100, 500]) {
        const run = await ingestOverHttp({ url: server.url, key, path, makeItem, offset, total: INGEST_ITEMS, batchSize, concurrency: CONCURRENCY });
        offset += INGEST_ITEMS;
        ingest[`${signal}_batch_${batchSize}`] = run.itemsPerSecond;
        console.log(`  ${signal.padEnd(6)} batch ${String(batchSize).padEnd(4)} ${rate(run.itemsPerSecond).padStart(12)}  (${run.seconds.toFixed(2)} s)`);
      }
    }
    // Usage counters follow the rows by up to STATS_FLUSH_MS.
    let stored = 0;
    for (let attempt = 0; attempt < 50 && stored !== 4 * INGEST_ITEMS; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 200));
      const info = await call(`${server.url}/v1/info`, 'GET', undefined, key);
      stored = info.usage.logs + info.usage.events;
    }
    if (stored !== 4 * INGEST_ITEMS) throw new Error(`the store counted ${stored} items, ${4 * INGEST_ITEMS} were accepted`);
    console.log(`  stored and counted: ${stored.toLocaleString('en-US')} items`);
  } finally {
    await server.stop();
    removeDir(server.dataDir);
  }

  const logCeiling = await appenderCeiling({ total: INGEST_ITEMS, makeItem: logItem, toRecord: toLogRecord, toRow: logRow, table: logsTable });
  const eventCeiling = await appenderCeiling({
    total: INGEST_ITEMS,
    makeItem: eventItem,
    toRecord: toEventRecord,
    toRow: eventRow,
    table: eventsTable,
  });
  console.log(`  DuckDB appender ceiling (same rows, batches of 5,000): logs ${rate(logCeiling.rowsPerSecond)}, events ${rate(eventCeiling.rowsPerSecond)}`);
  const logRatio = ingest['logs_batch_500']! / logCeiling.rowsPerSecond;
  const eventRatio = ingest['events_batch_500']! / eventCeiling.rowsPerSecond;
  console.log(`  end-to-end / ceiling (batch 500): logs ${logRatio.toFixed(2)}, events ${eventRatio.toFixed(2)}   target >= 0.50`);
  results['ingest'] = { ...ingest, logs_ceiling: logCeiling.rowsPerSecond, events_ceiling: eventCeiling.rowsPerSecond, logs_ratio: logRatio, events_ratio: eventRatio };

  const out = path.join(__dirname, '..', '..', '.bench');
  mkdirSync(out, { recursive: true });
  writeFileSync(path.join(out, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
  console.log(`\nresults written to .bench/results.json`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
