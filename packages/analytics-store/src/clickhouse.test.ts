import { randomBytes, randomUUID } from 'node:crypto';
import { clickhouseConnection, liveSuite } from '@tlm/testkit';
import {
  CLICKHOUSE_SETTINGS,
  ClickHouseStore,
  MAX_PARTITIONS_PER_INSERT,
  PROMOTIONS_DDL,
  clickhousePromotion,
  clickhouseRow,
  clickhouseString,
  insertBlocks,
  promotionColumnsDdl,
  promotionFillDdl,
} from './clickhouse';
import { erasePerson } from './purge';
import {
  ANALYTICS_TABLES,
  alertEventsTable,
  alertsTable,
  errorsTable,
  eventsTable,
  issuesTable,
  logsTable,
  stacksTable,
  countedErrorIds,
  lastErrorOffset,
  newestIssueSnapshot,
  uncountedErrors,
  type AlertRuleSnapshotRow,
  type ErrorRow,
  type IssueRow,
  type LogRow,
} from './tables';

const T0 = Date.parse('2026-03-04T05:06:07.089Z');

const logRow = (projectId: string, overrides: Partial<LogRow> = {}): LogRow => ({
  project_id: projectId,
  timestamp: T0,
  id: randomUUID(),
  severity: 'error',
  message: 'Payment FAILED for order 42',
  properties: { route: '/checkout', amount: 12.5, retried: true, tags: ['a', 'b'], attempt: 3 },
  trace_id: null,
  span_id: null,
  received_at: T0 + 1,
  retention_days: 14,
  ...overrides,
});

describe('ClickHouse DDL', () => {
  it('gives every table one CREATE TABLE IF NOT EXISTS statement, then only columns added where missing', () => {
    for (const table of ANALYTICS_TABLES) {
      expect(table.ddl.clickhouse[0]!.startsWith(`CREATE TABLE IF NOT EXISTS ${table.name}\n(`)).toBe(true);
      for (const statement of table.ddl.clickhouse.slice(1)) expect(statement.startsWith(`ALTER TABLE ${table.name} ADD COLUMN IF NOT EXISTS `)).toBe(true);
    }
  });

  it('declares logs: project-first sort key, daily partitions, property maps, message token index, retention TTL', () => {
    expect(logsTable.ddl.clickhouse).toEqual([
      `CREATE TABLE IF NOT EXISTS logs
(
    project_id UUID,
    timestamp DateTime64(3, 'UTC'),
    id UUID,
    severity LowCardinality(String),
    message String,
    properties Map(LowCardinality(String), String),
    properties_num Map(LowCardinality(String), Float64),
    trace_id String,
    span_id String,
    received_at DateTime64(3, 'UTC'),
    retention_days UInt16,
    stream_partition UInt16,
    stream_offset UInt64,
    INDEX idx_message lower(message) TYPE tokenbf_v1(32768, 3, 0) GRANULARITY 1,
    INDEX idx_trace_id trace_id TYPE bloom_filter(0.001) GRANULARITY 1,
    INDEX idx_property_keys mapKeys(properties) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_property_values mapValues(properties) TYPE bloom_filter(0.01) GRANULARITY 1
)
ENGINE = ReplacingMergeTree
PARTITION BY toDate(timestamp)
ORDER BY (project_id, timestamp, id)
TTL toDateTime(timestamp) + toIntervalDay(retention_days)
SETTINGS index_granularity = 8192`,
      'ALTER TABLE logs ADD COLUMN IF NOT EXISTS stream_partition UInt16 AFTER retention_days',
      'ALTER TABLE logs ADD COLUMN IF NOT EXISTS stream_offset UInt64 AFTER stream_partition',
    ]);
  });

  it('declares events: project-first sort key, daily partitions, property maps, distinct_id index, retention TTL', () => {
    expect(eventsTable.ddl.clickhouse).toEqual([
      `CREATE TABLE IF NOT EXISTS events
(
    project_id UUID,
    timestamp DateTime64(3, 'UTC'),
    id UUID,
    event_name LowCardinality(String),
    distinct_id String,
    properties Map(LowCardinality(String), String),
    properties_num Map(LowCardinality(String), Float64),
    received_at DateTime64(3, 'UTC'),
    retention_days UInt16,
    stream_partition UInt16,
    stream_offset UInt64,
    INDEX idx_distinct_id distinct_id TYPE bloom_filter(0.01) GRANULARITY 4,
    INDEX idx_property_keys mapKeys(properties) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_property_values mapValues(properties) TYPE bloom_filter(0.01) GRANULARITY 1
)
ENGINE = ReplacingMergeTree
PARTITION BY toDate(timestamp)
ORDER BY (project_id, timestamp, id)
TTL toDateTime(timestamp) + toIntervalDay(retention_days)
SETTINGS index_granularity = 8192`,
      'ALTER TABLE events ADD COLUMN IF NOT EXISTS stream_partition UInt16 AFTER retention_days',
      'ALTER TABLE events ADD COLUMN IF NOT EXISTS stream_offset UInt64 AFTER stream_partition',
    ]);
  });

  it('declares errors: three property-map pairs, fingerprint/issue/trace indexes, value token index, retention TTL', () => {
    expect(errorsTable.ddl.clickhouse).toEqual([
      `CREATE TABLE IF NOT EXISTS errors
(
    project_id UUID,
    timestamp DateTime64(3, 'UTC'),
    id UUID,
    issue_id UUID,
    fingerprint_hash String,
    type String,
    value String,
    level LowCardinality(String),
    release LowCardinality(String),
    environment LowCardinality(String),
    platform LowCardinality(String),
    source LowCardinality(String),
    trace_id String,
    span_id String,
    user Map(LowCardinality(String), String),
    user_num Map(LowCardinality(String), Float64),
    tags Map(LowCardinality(String), String),
    tags_num Map(LowCardinality(String), Float64),
    extra Map(LowCardinality(String), String),
    extra_num Map(LowCardinality(String), Float64),
    frames String,
    breadcrumbs String,
    received_at DateTime64(3, 'UTC'),
    retention_days UInt16,
    stream_partition UInt16,
    stream_offset UInt64,
    stack_id String,
    INDEX idx_fingerprint fingerprint_hash TYPE bloom_filter(0.001) GRANULARITY 1,
    INDEX idx_issue issue_id TYPE bloom_filter(0.001) GRANULARITY 1,
    INDEX idx_trace_id trace_id TYPE bloom_filter(0.001) GRANULARITY 1,
    INDEX idx_value lower(value) TYPE tokenbf_v1(32768, 3, 0) GRANULARITY 1
)
ENGINE = ReplacingMergeTree
PARTITION BY toDate(timestamp)
ORDER BY (project_id, timestamp, id)
TTL toDateTime(timestamp) + toIntervalDay(retention_days)
SETTINGS index_granularity = 8192`,
      'ALTER TABLE errors ADD COLUMN IF NOT EXISTS stream_partition UInt16 AFTER retention_days',
      'ALTER TABLE errors ADD COLUMN IF NOT EXISTS stream_offset UInt64 AFTER stream_partition',
      'ALTER TABLE errors ADD COLUMN IF NOT EXISTS stack_id String AFTER stream_offset',
    ]);
  });

  it('declares stacks: ReplacingMergeTree versioned by updated_at, keyed (project_id, id), expired by updated_at', () => {
    expect(stacksTable.ddl.clickhouse).toEqual([
      `CREATE TABLE IF NOT EXISTS stacks
(
    project_id UUID,
    id String,
    frames String,
    updated_at DateTime64(3, 'UTC'),
    retention_days UInt16
)
ENGINE = ReplacingMergeTree(updated_at)
ORDER BY (project_id, id)
TTL toDateTime(updated_at) + toIntervalDay(retention_days)`,
    ]);
  });

  it('declares issues as snapshots: ReplacingMergeTree versioned by updated_at, keyed (project_id, id)', () => {
    expect(issuesTable.ddl.clickhouse).toEqual([
      `CREATE TABLE IF NOT EXISTS issues
(
    project_id UUID,
    id UUID,
    short_id UInt64,
    title String,
    culprit String,
    fingerprint String,
    status LowCardinality(String),
    level LowCardinality(String),
    event_count UInt64,
    user_count UInt64,
    first_seen DateTime64(3, 'UTC'),
    last_seen DateTime64(3, 'UTC'),
    release_first String,
    release_last String,
    resolved_in_release String,
    updated_at DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(updated_at)
ORDER BY (project_id, id)`,
    ]);
  });

  it('declares alerts as snapshots: ReplacingMergeTree versioned by updated_at, keyed (project_id, id)', () => {
    expect(alertsTable.ddl.clickhouse).toEqual([
      `CREATE TABLE IF NOT EXISTS alerts
(
    project_id UUID,
    id UUID,
    name String,
    metric String,
    threshold Float64,
    comparator LowCardinality(String),
    window_minutes UInt32,
    severity LowCardinality(String),
    enabled Bool,
    muted_until Nullable(DateTime64(3, 'UTC')),
    created_at DateTime64(3, 'UTC'),
    deleted Bool,
    updated_at DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(updated_at)
ORDER BY (project_id, id)`,
    ]);
  });

  it('declares alert_events: project-first sort key, monthly partitions and a fixed 400-day TTL', () => {
    expect(alertEventsTable.ddl.clickhouse).toEqual([
      `CREATE TABLE IF NOT EXISTS alert_events
(
    project_id UUID,
    triggered_at DateTime64(3, 'UTC'),
    id UUID,
    rule_id UUID,
    rule_name String,
    value Float64,
    threshold Float64,
    severity LowCardinality(String)
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(triggered_at)
ORDER BY (project_id, triggered_at, id)
TTL toDateTime(triggered_at) + toIntervalDay(400)`,
    ]);
  });

  it('declares every column of the column list, and a _num twin for each properties column, in order', () => {
    for (const table of ANALYTICS_TABLES) {
      const declared = table.ddl.clickhouse[0]!
        .split('\n')
        .map((line) => /^ {4}(\w+) /.exec(line)?.[1])
        .filter((name): name is string => name !== undefined && name !== 'INDEX');
      const expected = table.columns
        .filter((column) => column.only !== 'duckdb')
        .flatMap((column) => (column.type === 'properties' ? [column.name, `${column.name}_num`] : [column.name]));
      expect([table.name, declared]).toEqual([table.name, expected]);
    }
  });
});

describe('clickhouseRow', () => {
  it('splits log properties into a text map and a numeric map, writes ISO times and null ids as empty strings', () => {
    const row = logRow('8d0f9c4e-4a51-4c3f-9d0e-0c1f7e1b2a3c', { id: '01890a5d-ac96-774b-bcce-b302099a8057' });
    const encoded = clickhouseRow(logsTable, row);
    expect(encoded).toEqual({
      project_id: '8d0f9c4e-4a51-4c3f-9d0e-0c1f7e1b2a3c',
      timestamp: '2026-03-04T05:06:07.089Z',
      id: '01890a5d-ac96-774b-bcce-b302099a8057',
      severity: 'error',
      message: 'Payment FAILED for order 42',
      properties: { route: '/checkout', amount: '12.5', retried: 'true', tags: '["a","b"]', attempt: '3' },
      properties_num: { amount: 12.5, attempt: 3 },
      trace_id: '',
      span_id: '',
      received_at: '2026-03-04T05:06:07.090Z',
      retention_days: 14,
    });
    expect(Object.keys(encoded)).toEqual([
      'project_id',
      'timestamp',
      'id',
      'severity',
      'message',
      'properties',
      'properties_num',
      'trace_id',
      'span_id',
      'received_at',
      'retention_days',
      'stream_partition',
      'stream_offset',
    ]);
  });

  it('keeps a trace id that is set', () => {
    const encoded = clickhouseRow(logsTable, logRow(randomUUID(), { trace_id: '0af7651916cd43dd8448eb211c80319c', span_id: 'b7ad6b7169203331' }));
    expect(encoded['trace_id']).toBe('0af7651916cd43dd8448eb211c80319c');
    expect(encoded['span_id']).toBe('b7ad6b7169203331');
  });

  it('encodes an error row: every property bag split, JSON columns as text, null strings as empty', () => {
    const row: ErrorRow = {
      project_id: 'p',
      timestamp: T0,
      id: 'e',
      issue_id: 'i',
      fingerprint_hash: 'abc',
      type: 'TypeError',
      value: 'x is undefined',
      level: 'fatal',
      release: 'web@1.2.3',
      environment: null,
      platform: null,
      source: 'unhandledRejection',
      trace_id: null,
      span_id: null,
      user: { id: 'user-1', age: 41 },
      tags: {},
      extra: { synthetic: 'logs' },
      frames: [{ function: 'charge', in_app: true }],
      breadcrumbs: [],
      received_at: T0,
      retention_days: 90,
      stream_partition: 3,
      stream_offset: 1234,
      stack_id: null,
    };
    expect(clickhouseRow(errorsTable, row)).toEqual({
      project_id: 'p',
      timestamp: '2026-03-04T05:06:07.089Z',
      id: 'e',
      issue_id: 'i',
      fingerprint_hash: 'abc',
      type: 'TypeError',
      value: 'x is undefined',
      level: 'fatal',
      release: 'web@1.2.3',
      environment: '',
      platform: '',
      source: 'unhandledRejection',
      trace_id: '',
      span_id: '',
      user: { id: 'user-1', age: '41' },
      user_num: { age: 41 },
      tags: {},
      tags_num: {},
      extra: { synthetic: 'logs' },
      extra_num: {},
      frames: '[{"function":"charge","in_app":true}]',
      breadcrumbs: '[]',
      received_at: '2026-03-04T05:06:07.089Z',
      retention_days: 90,
      stream_partition: 3,
      stream_offset: 1234,
      stack_id: '',
    });
  });

  it('encodes an alert rule row: a null muted_until stays null for the Nullable column, booleans stay booleans', () => {
    const row: AlertRuleSnapshotRow = {
      project_id: 'p',
      id: 'r',
      name: 'spike',
      metric: 'from:logs | count',
      threshold: 10,
      comparator: 'gt',
      window_minutes: 5,
      severity: 'critical',
      enabled: true,
      muted_until: null,
      created_at: T0,
      deleted: false,
      updated_at: T0 + 1,
    };
    expect(clickhouseRow(alertsTable, row)).toEqual({ ...row, created_at: '2026-03-04T05:06:07.089Z', updated_at: '2026-03-04T05:06:07.090Z' });
    expect(clickhouseRow(alertsTable, { ...row, muted_until: T0 })['muted_until']).toBe('2026-03-04T05:06:07.089Z');
  });
});

describe('insertBlocks', () => {
  const DAY = 86_400_000;
  const T0 = Date.UTC(2026, 0, 1);
  const projectId = '8d0f9c4e-4a51-4c3f-9d0e-0c1f7e1b2a3c';

  it('keeps rows of up to 100 days in one insert, in their order', () => {
    const rows = Array.from({ length: 300 }, (_, n) => logRow(projectId, { timestamp: T0 + (n % 100) * DAY + n }));
    expect(insertBlocks(logsTable, rows)).toEqual([rows]);
  });

  it('cuts rows spanning more days into inserts of at most 100 days, every row once', () => {
    // A backfill over 250 days, two rows a day, sent newest first.
    const rows = Array.from({ length: 500 }, (_, n) => logRow(projectId, { timestamp: T0 - Math.floor(n / 2) * DAY + (n % 2) }));
    const blocks = insertBlocks(logsTable, rows);
    expect(blocks.map((block) => block.length)).toEqual([200, 200, 100]);
    for (const block of blocks) {
      expect(new Set(block.map((row) => Math.floor(row.timestamp / DAY))).size).toBeLessThanOrEqual(MAX_PARTITIONS_PER_INSERT);
    }
    expect(blocks.flat()).toEqual(rows);
  });

  it('groups a day\'s rows together even when other days come between them', () => {
    const rows = Array.from({ length: 202 }, (_, n) => logRow(projectId, { timestamp: T0 + (n % 101) * DAY }));
    const blocks = insertBlocks(logsTable, rows);
    expect(blocks.map((block) => block.length)).toEqual([200, 2]);
    expect(blocks[1]!.map((row) => row.timestamp)).toEqual([T0 + 100 * DAY, T0 + 100 * DAY]);
  });
});

describe('ClickHouse promoted properties', () => {
  const ODD_KEY = `it's \\ "odd"`;

  it('names a promotion\'s columns after a hash of its key, the same in every process', () => {
    expect(clickhousePromotion('logs', 'properties', 'route', true)).toEqual({
      table: 'logs',
      bag: 'properties',
      key: 'route',
      column: 'properties__h8a84e406c08ac959',
      numberColumn: 'properties__h8a84e406c08ac959_number',
      ready: false,
    });
    expect(clickhousePromotion('events', 'properties', 'route', false)).toMatchObject({ column: 'properties__h8a84e406c08ac959', numberColumn: null });
    expect(clickhousePromotion('logs', 'properties', ODD_KEY, false).column).toBe('properties__h3a8833a29972ccc2');
  });

  it('adds MATERIALIZED columns computed as GQL reads the maps, the key as an escaped literal', () => {
    expect(promotionColumnsDdl(clickhousePromotion('logs', 'properties', ODD_KEY, true))).toEqual([
      "ALTER TABLE logs ADD COLUMN IF NOT EXISTS properties__h3a8833a29972ccc2 Nullable(String) MATERIALIZED if(mapContains(properties, 'it\\'s \\\\ \"odd\"'), properties['it\\'s \\\\ \"odd\"'], NULL)",
      "ALTER TABLE logs ADD COLUMN IF NOT EXISTS properties__h3a8833a29972ccc2_number Nullable(Float64) MATERIALIZED if(mapContains(properties_num, 'it\\'s \\\\ \"odd\"'), properties_num['it\\'s \\\\ \"odd\"'], toFloat64OrNull(properties['it\\'s \\\\ \"odd\"']))",
    ]);
    expect(promotionColumnsDdl(clickhousePromotion('events', 'properties', 'plan', false))).toEqual([
      "ALTER TABLE events ADD COLUMN IF NOT EXISTS properties__h64879f7d6b960a01 Nullable(String) MATERIALIZED if(mapContains(properties, 'plan'), properties['plan'], NULL)",
    ]);
  });

  it('fills the parts stored before a partition at a time, with one MATERIALIZE COLUMN mutation per column', () => {
    expect(promotionFillDdl(clickhousePromotion('logs', 'properties', 'route', true), '20260304')).toEqual([
      "ALTER TABLE logs MATERIALIZE COLUMN properties__h8a84e406c08ac959 IN PARTITION ID '20260304'",
      "ALTER TABLE logs MATERIALIZE COLUMN properties__h8a84e406c08ac959_number IN PARTITION ID '20260304'",
    ]);
  });

  it('escapes backslashes and quotes in string literals', () => {
    expect(clickhouseString(`a'b\\c`)).toBe(`'a\\'b\\\\c'`);
  });

  it('records promotions in a table of their own, the newest record of a key winning', () => {
    expect(PROMOTIONS_DDL).toContain('ENGINE = ReplacingMergeTree(updated_at)\nORDER BY (table_name, bag, key)');
  });
});

describe('CLICKHOUSE_SETTINGS', () => {
  it('reads ISO times in, writes ISO times out and returns 64-bit integers as JSON numbers', () => {
    expect(CLICKHOUSE_SETTINGS).toEqual({
      date_time_input_format: 'best_effort',
      date_time_output_format: 'iso',
      output_format_json_quote_64bit_integers: 0,
    });
  });
});

liveSuite('ClickHouseStore against a live server', 'CLICKHOUSE_URL', (target) => {
  const database = `tlm_test_${randomBytes(6).toString('hex')}`;
  // Recent times: rows past their retention TTL may be dropped by the server at any merge.
  const recent = Math.floor(Date.now() / 1_000) * 1_000 - 3_600_000 + 89;
  const recentLog = (projectId: string, overrides: Partial<LogRow> = {}) =>
    logRow(projectId, { timestamp: recent, received_at: recent + 1, ...overrides });
  let store: ClickHouseStore;

  beforeAll(async () => {
    store = await ClickHouseStore.connect(clickhouseConnection(target(), database));
    await store.migrate(ANALYTICS_TABLES);
  }, 120_000);

  afterAll(async () => {
    await store?.execute(`DROP DATABASE IF EXISTS ${database}`);
    await store?.close();
  });

  it('answers ping', async () => {
    await expect(store.ping()).resolves.toBeUndefined();
  });

  it('migrates idempotently and creates every table', async () => {
    await store.migrate(ANALYTICS_TABLES);
    const rows = await store.query('SELECT name FROM system.tables WHERE database = {database:String} ORDER BY name', { database });
    // And the record of promoted properties, which the store creates on connect.
    expect(rows.map((row) => row['name'])).toEqual([...ANALYTICS_TABLES.map((table) => table.name), 'promoted_properties'].sort());
    expect(rows.map((row) => row['name'])).toContain('attachments');
  });

  it('collapses a redelivered batch into one row per id when read with FINAL', async () => {
    const projectId = randomUUID();
    const rows = [recentLog(projectId), recentLog(projectId)];
    await store.insert(logsTable, rows);
    await store.insert(logsTable, rows);
    // As text: ClickHouse orders UUIDs by their two 64-bit halves, low half first, not as their text sorts.
    const stored = await store.query('SELECT toString(id) AS id FROM logs FINAL WHERE project_id = {project:UUID} ORDER BY id', { project: projectId });
    expect(stored).toEqual(rows.map((row) => ({ id: row.id })).sort((a, b) => a.id.localeCompare(b.id)));
  });

  it('stores a backfill spanning more days than one insert may hold partitions', async () => {
    // In a database of its own: a DELETE on a table of 150 partitions takes seconds, and the erasure tests delete logs.
    const backfill = await ClickHouseStore.connect(clickhouseConnection(target(), `${database}_backfill`));
    try {
      await backfill.migrate(ANALYTICS_TABLES.filter((table) => table.name === 'logs'));
      const projectId = randomUUID();
      const rows = Array.from({ length: 150 }, (_, n) => recentLog(projectId, { timestamp: recent - n * 86_400_000, retention_days: 365 }));
      await backfill.insert(logsTable, rows);
      const stored = await backfill.query('SELECT count() AS n FROM logs FINAL WHERE project_id = {project:UUID}', { project: projectId });
      expect(stored).toEqual([{ n: 150 }]);
    } finally {
      await backfill.execute(`DROP DATABASE IF EXISTS ${database}_backfill`);
      await backfill.close();
    }
  });

  it("counts a person's erased rows once when a redelivered batch left two copies not yet merged", async () => {
    const projectId = randomUUID();
    const row = recentLog(projectId, { properties: { distinct_id: 'erase-me' } });
    await store.insert(logsTable, [row]);
    await store.insert(logsTable, [row]);
    const { removed } = await erasePerson(store, projectId, 'erase-me');
    expect(removed['logs']).toBe(1);
  });

  it('erases the logs that name a person by distinct_id, $distinct_id or user.id, and no others', async () => {
    const projectId = randomUUID();
    await store.insert(logsTable, [
      recentLog(projectId, { message: 'a', properties: { distinct_id: 'p-1' } }),
      recentLog(projectId, { message: 'b', properties: { $distinct_id: 'p-1' } }),
      recentLog(projectId, { message: 'c', properties: { 'user.id': 'p-1' } }),
      recentLog(projectId, { message: 'd', properties: { $distinct_id: 'p-2' } }),
    ]);
    const { removed } = await erasePerson(store, projectId, 'p-1');
    expect(removed['logs']).toBe(3);
    const left = await store.query('SELECT message FROM logs FINAL WHERE project_id = {project:UUID}', { project: projectId });
    expect(left).toEqual([{ message: 'd' }]);
  });

  it('binds query parameters and returns ISO times, numeric counts and property maps', async () => {
    const projectId = randomUUID();
    await store.insert(logsTable, [recentLog(projectId), recentLog(projectId, { severity: 'info', message: 'fine' })]);
    const stored = await store.query(
      `SELECT timestamp, message, properties, properties_num, trace_id FROM logs
       WHERE project_id = {project:UUID} AND severity = {severity:String}`,
      { project: projectId, severity: 'error' },
    );
    expect(stored).toEqual([
      {
        timestamp: new Date(recent).toISOString(),
        message: 'Payment FAILED for order 42',
        properties: { route: '/checkout', amount: '12.5', retried: 'true', tags: '["a","b"]', attempt: '3' },
        properties_num: { amount: 12.5, attempt: 3 },
        trace_id: '',
      },
    ]);
    const counted = await store.query('SELECT count() AS n FROM logs WHERE project_id = {project:UUID}', { project: projectId });
    expect(counted).toEqual([{ n: 2 }]);
  });

  it('finds a log by a word of its message in any case (token index on lower(message))', async () => {
    const projectId = randomUUID();
    await store.insert(logsTable, [recentLog(projectId)]);
    const stored = await store.query(
      `SELECT count() AS n FROM logs WHERE project_id = {project:UUID} AND hasToken(lower(message), {word:String})`,
      { project: projectId, word: 'failed' },
    );
    expect(stored).toEqual([{ n: 1 }]);
  });

  /** An issue snapshot of `status`, versioned `updatedAt`. */
  const issueSnapshot = (projectId: string, id: string, status: string, updatedAt: number): IssueRow => ({
    project_id: projectId,
    id,
    short_id: 1,
    title: 't',
    culprit: 'c',
    fingerprint: 'f',
    status,
    level: 'error',
    event_count: 1,
    user_count: 0,
    first_seen: T0,
    last_seen: T0,
    release_first: null,
    release_last: null,
    resolved_in_release: null,
    updated_at: updatedAt,
  });

  it('keeps the snapshot with the newest updated_at of an issue when read with FINAL', async () => {
    const projectId = randomUUID();
    const id = randomUUID();
    await store.insert(issuesTable, [issueSnapshot(projectId, id, 'resolved', T0 + 2_000)]);
    await store.insert(issuesTable, [issueSnapshot(projectId, id, 'unresolved', T0 + 1_000)]);
    expect(await store.query('SELECT status FROM issues FINAL WHERE project_id = {project:UUID}', { project: projectId })).toEqual([
      { status: 'resolved' },
    ]);
  });

  it('tells the version of the newest issue snapshot', async () => {
    const projectId = randomUUID();
    const newest = Math.max(Date.now(), ((await newestIssueSnapshot(store)) ?? 0) + 1_000);
    await store.insert(issuesTable, [issueSnapshot(projectId, randomUUID(), 'unresolved', newest), issueSnapshot(projectId, randomUUID(), 'unresolved', newest - 5_000)]);
    expect(await newestIssueSnapshot(store)).toBe(newest);
  });

  it('reads back the errors of a stream partition above an offset, and the ids of those at or below it', async () => {
    const projectId = randomUUID();
    const partition = 1 + Math.floor(Math.random() * 60_000);
    const stored = (offset: number): ErrorRow => ({
      project_id: projectId,
      timestamp: recent + offset,
      id: randomUUID(),
      issue_id: randomUUID(),
      fingerprint_hash: 'abc',
      type: 'TypeError',
      value: `failure ${offset}`,
      level: 'error',
      release: offset % 2 ? 'web@1' : null,
      environment: null,
      platform: null,
      source: null,
      trace_id: null,
      span_id: null,
      user: { id: `u${offset}` },
      tags: { transaction: '/checkout' },
      extra: {},
      frames: [{ function: 'charge', filename: 'app.js', in_app: true }],
      breadcrumbs: [],
      received_at: recent + offset + 1,
      retention_days: 30,
      stream_partition: partition,
      stream_offset: offset,
      stack_id: null,
    });
    const rows = [10, 11, 12].map(stored);
    await store.insert(errorsTable, rows);
    expect(await lastErrorOffset(store, partition)).toBe(12);
    expect(await uncountedErrors(store, partition, 10, 100)).toEqual(
      rows.slice(1).map((row) => ({
        projectId,
        id: row.id,
        issueId: row.issue_id,
        fingerprintHash: 'abc',
        type: 'TypeError',
        value: row.value,
        level: 'error',
        release: row.release,
        timestamp: row.timestamp,
        receivedAt: row.received_at,
        user: row.user,
        tags: row.tags,
        frames: row.frames,
        offset: row.stream_offset,
      })),
    );
    expect(await countedErrorIds(store, partition, 11, recent, 100)).toEqual([
      { projectId, id: rows[1]!.id },
      { projectId, id: rows[0]!.id },
    ]);
  });
});
