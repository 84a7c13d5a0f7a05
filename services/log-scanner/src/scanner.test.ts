import { randomBytes, randomUUID } from 'node:crypto';
import { ANALYTICS_TABLES, ClickHouseStore, DuckDBStore, errorRow, errorsTable, logsTable, type AnalyticsStore, type LogRow } from '@tlm/analytics-store';
import { EmbeddedBus, Topics, type Subscription } from '@tlm/bus';
import { createLogger } from '@tlm/core';
import { PostgresStore, type MetadataStore } from '@tlm/metadata-store';
import { openMigratedPGlite } from '@tlm/testkit/metadata';
import type { ErrorRecord } from '@tlm/signals';
import { errorIdOfLog } from './records';
import { runScanPass, type LogScannerDeps } from './scanner';
import { TEST_POSTGRES_URL, clickhouseConnection, liveSuite, postgresUnavailableReason } from '@tlm/testkit';

// Recent: ClickHouse may drop rows past their retention at any merge.
const NOW = Math.floor(Date.now() / 60_000) * 60_000;
const HOUR = 3_600_000;
const OPTIONS = { lookbackMs: HOUR, maxRowsPerPass: 10_000 };
const logger = createLogger('log-scanner', 'silent');

const TRACEBACK = `charge failed
Traceback (most recent call last):
  File "/srv/app/billing.py", line 12, in charge
    return gateway.charge(card)
ValueError: card declined`;

function logRow(projectId: string, overrides: Partial<LogRow> = {}): LogRow {
  return {
    project_id: projectId,
    timestamp: NOW - 60_000,
    id: randomUUID(),
    severity: 'error',
    message: 'payment provider returned 502',
    properties: {},
    trace_id: null,
    span_id: null,
    received_at: NOW - 59_000,
    retention_days: 14,
    ...overrides,
  };
}

let analytics: AnalyticsStore;
let metadata: MetadataStore;
let bus: EmbeddedBus;
let published: ErrorRecord[];
/** What the consumer does with a batch besides keeping it: nothing, or store it as the issues processor would. */
let onBatch: (records: ErrorRecord[]) => Promise<void>;
let subscription: Subscription;
let deps: LogScannerDeps;

let disposeMetadata: () => Promise<void>;

beforeAll(async () => {
  ({ store: metadata, dispose: disposeMetadata } = await openMigratedPGlite());
});
afterAll(() => disposeMetadata());

/** Where each test's analytics store comes from: DuckDB, or ClickHouse in its live suite. */
let openAnalytics: () => Promise<AnalyticsStore> = () => DuckDBStore.open(':memory:');

beforeEach(async () => {
  analytics = await openAnalytics();
  await analytics.migrate(ANALYTICS_TABLES);
  bus = new EmbeddedBus();
  published = [];
  onBatch = async () => undefined;
  subscription = await bus.subscribe<ErrorRecord>(Topics.errors, { group: 'test' }, async (records) => {
    published.push(...records);
    await onBatch(records);
  });
  deps = { metadata, analytics, bus, logger };
});

afterEach(async () => {
  await subscription.close();
  await bus.close();
  await analytics.close();
});

/** Stores errors the way the issues processor does, so the scanner's anti-join can see them. */
const storeErrors = (records: ErrorRecord[]) =>
  analytics.insert(
    errorsTable,
    records.map((record, offset) => errorRow(record, { issueId: randomUUID(), fingerprintHash: 'f'.repeat(64), partition: 0, offset, stackId: null })),
  );

/** The scanner's passes over whichever store `openAnalytics` opens; its SQL differs per engine. */
const passes = () => {
  it('publishes the error and fatal logs of the last hour of every project, and nothing else', async () => {
    const [projectA, projectB] = [randomUUID(), randomUUID()];
    const traced = logRow(projectA, {
      message: TRACEBACK,
      severity: 'fatal',
      properties: { release: 'api@2.0.1', environment: 'production', distinct_id: 'user-7', user_id: 'not-this-one', logger: 'billing', route: '/pay' },
      trace_id: '0af7651916cd43dd8448eb211c80319c',
      span_id: 'b7ad6b7169203331',
      retention_days: 90,
    });
    const plain = logRow(projectB, { properties: { 'sentry.release': 'web@3.1.0', 'sentry.environment': 'staging', user_id: 'u-42' } });
    await analytics.insert(logsTable, [
      traced,
      plain,
      logRow(projectA, { severity: 'warn', message: 'slow query' }),
      logRow(projectA, { severity: 'info', message: 'started' }),
      logRow(projectA, { timestamp: NOW - HOUR - 1_000, message: 'too old' }),
      logRow(projectA, { timestamp: NOW + 60_000, message: 'after the pass began' }),
    ]);

    expect(await runScanPass(deps, OPTIONS, NOW)).toEqual({ ran: true, published: 2 });
    expect(published.map((record) => record.value).sort()).toEqual(['card declined', 'payment provider returned 502']);

    const fromTrace = published.find((record) => record.projectId === projectA)!;
    expect(fromTrace).toMatchObject({
      id: errorIdOfLog(traced.id),
      timestamp: traced.timestamp,
      type: 'ValueError',
      value: 'card declined',
      level: 'fatal',
      release: 'api@2.0.1',
      environment: 'production',
      platform: 'python',
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
      user: { id: 'user-7' },
      tags: { logger: 'billing' },
      extra: { synthetic: 'logs', log_id: traced.id, log_message: 'charge failed', route: '/pay' },
      retentionDays: 90,
      fingerprint: null,
    });
    expect(fromTrace.frames).toMatchObject([{ function: 'charge', filename: '/srv/app/billing.py', lineno: 12, in_app: true }]);
    // A Sentry SDK's log names them sentry.release and sentry.environment.
    expect(published.find((record) => record.projectId === projectB)).toMatchObject({ release: 'web@3.1.0', environment: 'staging', user: { id: 'u-42' } });

    const fromPlain = published.find((record) => record.projectId === projectB)!;
    expect(fromPlain).toMatchObject({
      id: errorIdOfLog(plain.id),
      type: '',
      value: 'payment provider returned 502',
      level: 'error',
      platform: null,
      frames: [],
      retentionDays: 14,
      extra: { synthetic: 'logs', log_id: plain.id },
    });
  });

  it('skips logs whose error is stored, so a second pass publishes nothing', async () => {
    onBatch = storeErrors;
    const project = randomUUID();
    await analytics.insert(logsTable, [logRow(project), logRow(project, { message: TRACEBACK })]);
    expect(await runScanPass(deps, OPTIONS, NOW)).toEqual({ ran: true, published: 2 });
    expect(await runScanPass(deps, OPTIONS, NOW + 60_000)).toEqual({ ran: true, published: 0 });

    const later = logRow(project, { timestamp: NOW + 30_000, message: 'a new one' });
    await analytics.insert(logsTable, [later]);
    expect(await runScanPass(deps, OPTIONS, NOW + 120_000)).toEqual({ ran: true, published: 1 });
    expect(published.map((record) => record.id)).toHaveLength(3);
    expect(published.at(-1)!.id).toBe(errorIdOfLog(later.id));
  });

  it('pages through more rows than one page without publishing a row twice, even when errors are not stored yet', async () => {
    const project = randomUUID();
    // One timestamp for all, so the cursor's tie-break on the id does the paging.
    const rows = Array.from({ length: 1_203 }, () => logRow(project));
    await analytics.insert(logsTable, rows);
    expect(await runScanPass(deps, OPTIONS, NOW)).toEqual({ ran: true, published: 1_203 });
    expect(new Set(published.map((record) => record.id)).size).toBe(1_203);
  });

  it('stops at the per-pass row limit, oldest first, and the next pass takes the rest', async () => {
    onBatch = storeErrors;
    const project = randomUUID();
    const rows = [5, 4, 3, 2, 1].map((minutes) => logRow(project, { timestamp: NOW - minutes * 60_000, message: `${minutes} minutes ago` }));
    await analytics.insert(logsTable, rows);
    expect(await runScanPass(deps, { ...OPTIONS, maxRowsPerPass: 3 }, NOW)).toEqual({ ran: true, published: 3 });
    expect(published.map((record) => record.value)).toEqual(['5 minutes ago', '4 minutes ago', '3 minutes ago']);
    expect(await runScanPass(deps, { ...OPTIONS, maxRowsPerPass: 3 }, NOW)).toEqual({ ran: true, published: 2 });
    expect(published.slice(3).map((record) => record.value)).toEqual(['2 minutes ago', '1 minutes ago']);
  });

  it('gives the same error id to a log row on every pass', async () => {
    const project = randomUUID();
    const row = logRow(project);
    await analytics.insert(logsTable, [row]);
    await runScanPass(deps, OPTIONS, NOW);
    await runScanPass(deps, OPTIONS, NOW);
    expect(published.map((record) => record.id)).toEqual([errorIdOfLog(row.id), errorIdOfLog(row.id)]);
    expect(errorIdOfLog(row.id)).not.toBe(row.id);
    expect(errorIdOfLog(row.id)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
};

describe('a log scanner pass', passes);

liveSuite('a log scanner pass on a live ClickHouse', 'CLICKHOUSE_URL', (target) => {
  let database = '';
  beforeAll(() => {
    openAnalytics = () => ClickHouseStore.connect(clickhouseConnection(target(), (database = `tlm_scanner_${randomBytes(6).toString('hex')}`)));
  });
  // Before the store is closed (the file's own afterEach): each test's database goes with it.
  afterEach(() => analytics.execute(`DROP DATABASE IF EXISTS ${database}`));
  afterAll(() => {
    openAnalytics = () => DuckDBStore.open(':memory:');
  });
  passes();
});

const postgresUnavailable = postgresUnavailableReason();
if (postgresUnavailable) console.log(`skipping the scanner lock suite: ${TEST_POSTGRES_URL} does not answer (${postgresUnavailable})`);

(postgresUnavailable ? describe.skip : describe)('the scanner lock on the Postgres server', () => {
  it('lets one process pass at a time: a second process skips while the first one scans', async () => {
    const [first, second] = await Promise.all([PostgresStore.connect(TEST_POSTGRES_URL, 2), PostgresStore.connect(TEST_POSTGRES_URL, 2)]);
    try {
      await analytics.insert(logsTable, [logRow(randomUUID())]);
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      let entered!: () => void;
      const inPublish = new Promise<void>((resolve) => (entered = resolve));
      onBatch = async () => {
        entered();
        await gate;
      };
      const firstPass = runScanPass({ ...deps, metadata: first }, OPTIONS, NOW);
      await inPublish;
      expect(await runScanPass({ ...deps, metadata: second }, OPTIONS, NOW)).toEqual({ ran: false, published: 0 });
      release();
      expect(await firstPass).toEqual({ ran: true, published: 1 });
      // The lock went with the first pass's transaction.
      onBatch = async () => undefined;
      expect(await runScanPass({ ...deps, metadata: second }, OPTIONS, NOW)).toEqual({ ran: true, published: 1 });
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });
});
