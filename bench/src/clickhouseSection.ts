import { ClickHouseStore, logsTable, type TableDefinition } from '@tlm/analytics-store';
import { compileQuery, decodeResults, emit } from '@tlm/gql';
import { clickhouseConnection, startChdb } from '@tlm/testkit';
import { median, millis } from './stats';

const RUNS = 11;
const WARM_UP_RUNS = 3;
const PROJECT = '01900000-0000-7000-8000-00000000000a';
const ROUTES = ['/', '/checkout', '/cart', '/search', '/api/orders', '/api/payments'];
/** The window every query reads, in hand-written SQL as GQL's `last:7d`. */
const SINCE = 'timestamp >= now64(3) - toIntervalDay(7)';

/**
 * The property queries of the query section, on ClickHouse: GQL reading the maps, GQL reading promoted columns, and
 * SQL by hand against typed columns of a copy of the same rows (the layout a person would choose).
 */
const QUERIES = [
  {
    name: 'count by a property',
    gql: 'from:logs | count by route | last:7d',
    sql: `SELECT route, count() AS n FROM logs_typed FINAL WHERE project_id = '${PROJECT}' AND ${SINCE} GROUP BY route ORDER BY n DESC, route`,
  },
  {
    name: 'p95 of a property by one',
    gql: 'from:logs | p95(duration_ms) by route | last:7d',
    sql: `SELECT route, quantileExactInclusive(0.95)(duration_ms) AS v FROM logs_typed FINAL WHERE project_id = '${PROJECT}' AND ${SINCE} GROUP BY route ORDER BY v DESC, route`,
  },
  {
    name: 'sum filtered on a property',
    gql: 'from:logs route:/checkout | sum(duration_ms) | last:7d',
    sql: `SELECT sum(duration_ms) FROM logs_typed FINAL WHERE project_id = '${PROJECT}' AND ${SINCE} AND route = '/checkout'`,
  },
];

/**
 * Promoted properties on ClickHouse, measured on chDB (ClickHouse 26.7 as a library, deploy/clickhouse; installed by
 * `make test`). `rows` logs are made by ClickHouse itself (a route and a duration in the property maps, six days of
 * times), copied into `logs_typed` with `route` and `duration_ms` as typed columns, and each query is timed through
 * GQL before and after `route` and `duration_ms` are promoted to MATERIALIZED columns (ClickHouseStore.promote: the
 * columns added, then written into the stored parts), against the typed copy; medians of RUNS interleaved runs.
 * chDB runs in this process, as no server would: the figures compare layouts, not a deployment.
 */
export async function clickhouseSection(options: { rows: number }): Promise<Record<string, unknown>> {
  console.log(`\nclickhouse: promoted properties on chDB (ClickHouse as a library), ${options.rows.toLocaleString('en-US')} logs, medians of ${RUNS} runs`);
  let engine: Awaited<ReturnType<typeof startChdb>>;
  try {
    engine = await startChdb();
  } catch (error) {
    console.log(`  skipped: ${(error as Error).message} (make deploy/clickhouse/node_modules/.package-lock.json installs it)`);
    return {};
  }
  let store: ClickHouseStore;
  try {
    store = await ClickHouseStore.connect(clickhouseConnection(engine.target, 'bench'));
  } catch (error) {
    await engine.stop();
    throw error;
  }
  try {
    await store.migrate([logsTable as unknown as TableDefinition<object>]);
    const loading = performance.now();
    await store.execute(
      `INSERT INTO logs (project_id, timestamp, id, severity, message, properties, properties_num, trace_id, span_id, received_at, retention_days)
SELECT {project:UUID}, now64(3) - toIntervalMillisecond(number * 6 * 86400 * 1000 / {rows:UInt64}), generateUUIDv4(number),
  ['info', 'warn', 'error'][number % 3 + 1], concat('GET ', route, ' answered in ', toString(duration), ' ms'),
  map('route', route, 'duration_ms', toString(duration), 'region', if(number % 2 = 0, 'eu', 'us')), map('duration_ms', duration),
  '', '', now64(3), 30
FROM (SELECT number, ${`[${ROUTES.map((route) => `'${route}'`).join(', ')}]`}[number % ${ROUTES.length} + 1] AS route, toFloat64((number * 7919) % 3000) AS duration
  FROM numbers({rows:UInt64}))`,
      { project: PROJECT, rows: options.rows },
    );
    await store.execute(`CREATE TABLE logs_typed ENGINE = ReplacingMergeTree PARTITION BY toDate(timestamp) ORDER BY (project_id, timestamp, id)
AS SELECT *, properties['route'] AS route, properties_num['duration_ms'] AS duration_ms FROM logs`);
    await store.execute('OPTIMIZE TABLE logs FINAL');
    await store.execute('OPTIMIZE TABLE logs_typed FINAL');
    console.log(`  loaded and merged in ${((performance.now() - loading) / 1000).toFixed(1)} s`);

    const guard = () => ({ projectId: PROJECT, retentionDays: 30, now: new Date() });
    const viaGql = async (text: string) => {
      const { plan } = compileQuery(text);
      const compiled = emit(plan, 'clickhouse', guard(), store.promotedColumns('logs'));
      return decodeResults(compiled, await store.query(compiled.sql, compiled.params)).results;
    };
    const timed = async (run: () => Promise<unknown>): Promise<number> => {
      const started = performance.now();
      await run();
      return performance.now() - started;
    };
    /** Median times of GQL and of the hand-written SQL, runs interleaved. */
    const measure = async () => {
      const times: Record<string, { gql: number[]; sql: number[] }> = {};
      for (const query of QUERIES) {
        times[query.name] = { gql: [], sql: [] };
        for (let run = 0; run < WARM_UP_RUNS; run++) {
          await viaGql(query.gql);
          await store.query(query.sql);
        }
      }
      for (let run = 0; run < RUNS; run++) {
        for (const query of QUERIES) {
          times[query.name]!.gql.push(await timed(() => viaGql(query.gql)));
          times[query.name]!.sql.push(await timed(() => store.query(query.sql)));
        }
      }
      return Object.fromEntries(QUERIES.map((query) => [query.name, { gql: median(times[query.name]!.gql), sql: median(times[query.name]!.sql) }]));
    };

    const answers = () => Promise.all(QUERIES.map((query) => viaGql(query.gql)));
    const before = JSON.stringify(await answers());
    const fromMaps = await measure();
    const promoting = performance.now();
    await store.promote(logsTable, 'properties', 'route', false);
    await store.promote(logsTable, 'properties', 'duration_ms', true);
    console.log(`  route and duration_ms promoted and written into the stored parts in ${((performance.now() - promoting) / 1000).toFixed(1)} s`);
    if (JSON.stringify(await answers()) !== before) throw new Error('GQL answered otherwise once the properties were promoted');
    const fromColumns = await measure();

    const results: Record<string, unknown> = {};
    for (const query of QUERIES) {
      const maps = fromMaps[query.name]!;
      const columns = fromColumns[query.name]!;
      const typed = (maps.sql + columns.sql) / 2;
      const ratio = columns.gql / typed;
      results[query.name] = { gql_maps_ms: maps.gql, gql_promoted_ms: columns.gql, sql_typed_ms: typed, ratio };
      console.log(
        `    ${query.name.padEnd(27)} GQL on maps ${millis(maps.gql).padStart(9)}   promoted ${millis(columns.gql).padStart(9)}   SQL on typed columns ${millis(typed).padStart(9)}   ratio ${ratio.toFixed(2)}`,
      );
    }
    return results;
  } finally {
    await store.close();
    await engine.stop();
  }
}
