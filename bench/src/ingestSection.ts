import { eventRow, eventsTable, logRow, logsTable } from '@tlm/analytics-store';
import { toEventRecord, toLogRecord } from '@tlm/signals';
import { appenderCeiling } from './ceiling';
import { eventItem, logItem } from './data';
import { Topics } from '@tlm/bus';
import { ingestOverHttp } from './ingest';
import { call, provisionKey, removeDir, startServer } from './server';
import { median, rate, repeat } from './stats';

const RUNS = 3;

/**
 * Ingest: logs/s and events/s accepted end to end over HTTP (batches of 100 and 500, concurrent clients) until
 * queryable, next to the same rows appended straight into DuckDB. Medians of three runs each. The ceiling runs after
 * the server has stopped, so its rows in memory do not burden the HTTP clients of this process.
 */
export async function ingestSection(options: { items: number; concurrency: number; port: number }): Promise<Record<string, number>> {
  console.log(`\ningest: standalone server over HTTP, ${options.concurrency} concurrent clients, ${options.items.toLocaleString('en-US')} items per run, median of ${RUNS} runs`);
  const results: Record<string, number> = {};
  const server = await startServer(options.port);
  try {
    const { key } = await provisionKey(server.url);
    let offset = 0;
    for (const [signal, path, makeItem, topic] of [
      ['logs', '/v1/logs', logItem, Topics.logs],
      ['events', '/v1/events', eventItem, Topics.events],
    ] as const) {
      for (const batchSize of [100, 500]) {
        const cpuBefore = server.cpuMicros();
        let drainMs = 0;
        let retried = 0;
        const runs = await repeat(RUNS, async () => {
          const run = await ingestOverHttp({ url: server.url, key, path, makeItem, offset, total: options.items, batchSize, concurrency: options.concurrency, topic });
          offset += options.items;
          drainMs = Math.max(drainMs, run.drainMs);
          retried += run.retried;
          return run.itemsPerSecond;
        });
        const cpuPerItem = (server.cpuMicros() - cpuBefore) / (RUNS * options.items);
        results[`${signal}_batch_${batchSize}`] = median(runs);
        results[`${signal}_batch_${batchSize}_server_cpu_us_per_item`] = cpuPerItem;
        console.log(
          `  ${signal.padEnd(6)} batch ${String(batchSize).padEnd(4)} ${rate(median(runs)).padStart(12)}   server CPU ${cpuPerItem.toFixed(1)} us/item   runs ${runs.map(rate).join(', ')}; last row stored up to ${Math.round(drainMs)} ms after the last answer${retried > 0 ? `; ${retried} batches sent again after a 503` : ''}`,
        );
      }
    }
    // Usage counters follow the rows by up to STATS_FLUSH_MS; they must account for every accepted item.
    let stored = 0;
    for (let attempt = 0; attempt < 50 && stored !== offset; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 200));
      const info = await call(`${server.url}/v1/info`, 'GET', undefined, key);
      stored = info.usage.logs + info.usage.events;
    }
    if (stored !== offset) throw new Error(`the store counted ${stored} items, ${offset} were accepted`);
    console.log(`  stored and counted: ${stored.toLocaleString('en-US')} items`);
  } finally {
    await server.stop();
    removeDir(server.dataDir);
  }

  const ceilings = {
    logs: median(
      (await repeat(RUNS, () => appenderCeiling({ total: options.items, makeItem: logItem, toRecord: toLogRecord, toRow: (record, offset) => logRow(record, { partition: 0, offset }), table: logsTable }))).map(
        (run) => run.rowsPerSecond,
      ),
    ),
    events: median(
      (
        await repeat(RUNS, () =>
          appenderCeiling({ total: options.items, makeItem: eventItem, toRecord: toEventRecord, toRow: (record, offset) => eventRow(record, { partition: 0, offset }), table: eventsTable }),
        )
      ).map((run) => run.rowsPerSecond),
    ),
  };

  console.log(`  DuckDB appender ceiling (same rows, batches of 5,000): logs ${rate(ceilings.logs)}, events ${rate(ceilings.events)}`);
  const logsRatio = results['logs_batch_500']! / ceilings.logs;
  const eventsRatio = results['events_batch_500']! / ceilings.events;
  console.log(`  end-to-end / ceiling (batch 500): logs ${logsRatio.toFixed(2)}, events ${eventsRatio.toFixed(2)}   target >= 0.50`);
  return { ...results, logs_ceiling: ceilings.logs, events_ceiling: ceilings.events, logs_ratio: logsRatio, events_ratio: eventsRatio };
}
