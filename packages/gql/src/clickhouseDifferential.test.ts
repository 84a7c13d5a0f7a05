import { randomBytes } from 'node:crypto';
import { ANALYTICS_TABLES, ClickHouseStore, DuckDBStore, eventsTable, logsTable, textSignature, type AnalyticsStore, type Column, type TableDefinition } from '@tlm/analytics-store';
import { clickhouseConnection, liveSuite, seededRandom } from '@tlm/testkit';
import { decodeResults, emit, type PercentileForm } from './emit';
import { compileQuery } from './plan';
import { clickhouseColumnTypes, SOURCES, type SourceDefinition } from './sources';

/**
 * Every GQL source on ClickHouse against DuckDB: rows made from each table's columns go into both engines, and queries
 * built at random from each source's own fields (filters of every operator on columns and bag keys, free text, each
 * aggregate function, groups by columns, keys and time buckets, sorts, limits and fields) must answer alike. A
 * query that does not compile is skipped; one that ClickHouse refuses, or answers otherwise, fails with its text.
 */
liveSuite('GQL on a live ClickHouse answers like DuckDB for random queries over every source', 'CLICKHOUSE_URL', (target) => {
  const database = `tlm_gql_diff_${randomBytes(6).toString('hex')}`;
  // Every value and id comes from the seed, so a failing query fails again on the next run (times move with the clock).
  const random = seededRandom(20261129);
  const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)]!;
  const hex = (digits: number) => Array.from({ length: digits }, () => Math.floor(random() * 16).toString(16)).join('');
  const uuid = () => `${hex(8)}-${hex(4)}-4${hex(3)}-${pick(['8', '9', 'a', 'b'])}${hex(3)}-${hex(12)}`;
  const projectId = uuid();
  const otherProject = uuid();
  const now = Math.floor(Date.now() / 60_000) * 60_000;
  const guard = { projectId, retentionDays: 30, now: new Date(now) };
  let clickhouse: ClickHouseStore;
  let duckdb: DuckDBStore;
  /** Values stored per source and field (a column, or `bag.key`), which conditions pick from. */
  const stored = new Map<string, Map<string, unknown[]>>();

  const TEXTS = ['alpha', 'Beta two', 'gamma/route', 'payment failed', 'DELTA', 'epsilon-1', 'zeta 2.5', 'a'];
  const BAG_TEXT = ['/checkout', '/cart', '/search', 'pro', 'free', ''];
  const UUIDS = Array.from({ length: 5 }, uuid);
  const ROWS_PER_TABLE = 60;

  /** A bag of a few keys: text, numbers, numbers sent as text, booleans, keys with a dot. */
  function bag(): Record<string, unknown> {
    const result: Record<string, unknown> = {};
    if (random() < 0.8) result['route'] = pick(BAG_TEXT);
    if (random() < 0.7) result['amount'] = Math.round(random() * 10_000) / 100;
    if (random() < 0.5) result['status'] = String(pick([200, 404, 500, 503]));
    if (random() < 0.4) result['flag'] = random() < 0.5;
    if (random() < 0.5) result['user.plan'] = pick(['pro', 'free', 'team']);
    if (random() < 0.2) result['mixed'] = random() < 0.5 ? 12 : 'twelve';
    return result;
  }

  function value(column: Column<object>, clickhouseType: string, index: number): unknown {
    const nullable = column.type.startsWith('nullable_');
    if (nullable && random() < 0.25) return null;
    switch (column.type) {
      case 'timestamp':
      case 'nullable_timestamp':
        // Distinct times, so a sort on time has no ties; within three days (three or four daily partitions, each of
        // which a promotion fills with mutations of its own), inside retention.
        return now - index * 3_600_000 - Math.floor(random() * 3_600_000) - 1;
      case 'bool':
        return random() < 0.5;
      case 'uint16':
      case 'uint32':
      case 'uint64':
        return Math.floor(random() * 20);
      case 'float64':
        return Math.round(random() * 100_000) / 100;
      case 'properties':
        return bag();
      case 'json':
        return random() < 0.5 ? [{ name: pick(TEXTS), n: Math.floor(random() * 5) }] : [];
      case 'text_signature':
        return null;
      default:
        if (column.name === 'id') return uuid();
        if (/UUID/.test(clickhouseType)) return pick(UUIDS);
        // An empty text is a value of a required column in both engines; ClickHouse keeps an absent optional one as ''.
        return !nullable && random() < 0.1 ? '' : pick(TEXTS);
    }
  }

  function rowsOf(table: TableDefinition<object>, project: string): Record<string, unknown>[] {
    const types = clickhouseColumnTypes(table.ddl.clickhouse[0] ?? '');
    return Array.from({ length: ROWS_PER_TABLE }, (_, index) => {
      const row: Record<string, unknown> = {};
      for (const column of table.columns) {
        if (column.only === 'clickhouse') continue;
        row[column.name] = value(column, types.get(column.name) ?? 'String', index);
      }
      row['project_id'] = project;
      if ('retention_days' in row) row['retention_days'] = 30;
      if ('deleted' in row) row['deleted'] = random() < 0.1;
      if (table.name === 'logs') row['message_trigrams'] = textSignature(String(row['message']));
      if ('stack_id' in row) row['stack_id'] = null;
      return row;
    });
  }

  beforeAll(async () => {
    clickhouse = await ClickHouseStore.connect(clickhouseConnection(target(), database));
    duckdb = await DuckDBStore.open(':memory:');
    for (const store of [clickhouse, duckdb] as AnalyticsStore[]) await store.migrate(ANALYTICS_TABLES);
    for (const source of SOURCES) {
      const table = ANALYTICS_TABLES.find((candidate) => candidate.name === source.table)!;
      const rows = [...rowsOf(table, projectId), ...rowsOf(table, otherProject)];
      for (const store of [clickhouse, duckdb] as AnalyticsStore[]) await store.insert(table, rows);
      const values = new Map<string, unknown[]>();
      for (const row of rows.slice(0, ROWS_PER_TABLE)) {
        for (const [name, field] of Object.entries(row)) {
          if (source.bags.has(name) && field && typeof field === 'object') {
            for (const [key, inner] of Object.entries(field)) values.set(`${name}.${key}`, [...(values.get(`${name}.${key}`) ?? []), inner]);
          } else if (source.columns.has(name)) {
            values.set(name, [...(values.get(name) ?? []), field]);
          }
        }
      }
      stored.set(source.name, values);
    }
  }, 180_000);

  afterAll(async () => {
    await clickhouse?.execute(`DROP DATABASE IF EXISTS ${database}`);
    await clickhouse?.close();
    await duckdb?.close();
  });

  const quoted = (text: string) => `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

  /** A value as a query writes it: numbers bare, times as ISO text, everything else quoted. */
  function literal(field: unknown): string | undefined {
    if (typeof field === 'number') return String(field);
    if (typeof field === 'boolean') return String(field);
    if (typeof field === 'string') return quoted(field);
    return undefined;
  }

  function fieldsOf(source: SourceDefinition, kind?: 'number' | 'string'): string[] {
    const values = stored.get(source.name)!;
    return [...values.keys()].filter((name) => {
      const column = source.columns.get(name);
      if (column?.kind === 'json') return false;
      if (!kind) return true;
      if (column) return column.kind === kind;
      return values.get(name)!.some((field) => typeof field === kind);
    });
  }

  function condition(source: SourceDefinition): string {
    const values = stored.get(source.name)!;
    const name = pick(fieldsOf(source));
    const column = source.columns.get(name);
    const sample = pick(values.get(name)!.filter((field) => field !== null));
    const written = column?.kind === 'timestamp' && typeof sample === 'number' ? quoted(new Date(sample).toISOString()) : literal(sample);
    if (written === undefined) return `${name}:*`;
    const choice = random();
    if (choice < 0.25) return `${name}:${written}`;
    if (choice < 0.4) return `-${name}:${written}`;
    // Texts and ids compare as text in both engines, numbers as numbers, times as times.
    if (choice < 0.55) return `${name} ${pick(['>', '>=', '<', '<='])} ${written}`;
    if (choice < 0.65) {
      const other = literal(pick(values.get(name)!.filter((field) => field !== null)));
      return `${name}${random() < 0.5 ? ':' : ' not in '}[${written}, ${other ?? written}]`;
    }
    if (choice < 0.75 && !column) return `${random() < 0.5 ? '-' : ''}${name}:*`;
    // A prefix is a bare word before its `*`.
    if (choice < 0.85 && typeof sample === 'string' && /^[\w/.-]{3,}$/.test(sample)) return `${name}:${sample.slice(0, 2)}*`;
    if (source.fullText.length > 0) {
      const text = String(pick(values.get(source.fullText[0]!)!.filter((field) => typeof field === 'string')) ?? 'a');
      return quoted(text.slice(0, 1 + Math.floor(random() * text.length)));
    }
    return `${name}:${written}`;
  }

  function query(source: SourceDefinition): string {
    const parts = [`from:${source.name}`];
    const conditions = Math.floor(random() * 3);
    const filters = Array.from({ length: conditions }, () => condition(source));
    if (filters.length === 2 && random() < 0.3) parts.push(`(${filters[0]} OR ${filters[1]})`);
    else parts.push(...filters);
    if (source.timeColumn && random() < 0.3) parts.push(`last:${pick(['6h', '1d', '2d'])}`);
    const numbers = fieldsOf(source, 'number');
    if (random() < 0.35) {
      const fields = Array.from({ length: 1 + Math.floor(random() * 3) }, () => pick(fieldsOf(source)));
      if (random() < 0.2) fields.push(pick([...source.bags.keys(), ...source.columns.keys()]));
      const segments = [parts.join(' '), `fields ${[...new Set(fields)].join(', ')}`];
      if (random() < 0.4) segments.push(`sort ${pick(fieldsOf(source))} ${pick(['asc', 'desc'])}`);
      if (random() < 0.5) segments.push(`limit ${1 + Math.floor(random() * 20)}`);
      return segments.join(' | ');
    }
    const func = numbers.length > 0 && random() < 0.6 ? `${pick(['sum', 'avg', 'min', 'max', 'p50', 'p95', 'p99'])}(${pick(numbers)})` : random() < 0.5 ? 'count' : `count_distinct(${pick(fieldsOf(source))})`;
    const groups: string[] = [];
    const groupable = fieldsOf(source, 'string').filter((name) => !source.columns.get(name)?.clickhouseType.includes('DateTime'));
    if (groupable.length > 0 && random() < 0.6) groups.push(pick(groupable));
    if (source.timeColumn && random() < 0.3) groups.push(`time(${pick(['1h', '6h', '1d'])})`);
    const segments = [parts.join(' '), groups.length > 0 ? `${func} by ${groups.join(', ')}` : func];
    if (groups.length > 0 && random() < 0.4) segments.push(`top ${1 + Math.floor(random() * 5)}`);
    if (groups.length > 0 && random() < 0.3) segments.push(`sort ${pick(['value', groups[0]!])} ${pick(['asc', 'desc'])}`);
    return segments.join(' | ');
  }

  const BAG_NAMES = new Set(SOURCES.flatMap((source) => [...source.bags.keys()]));

  /**
   * Answers with numbers to nine significant digits (the engines add floating-point numbers in different orders), and
   * the booleans of property bags as text: ClickHouse returns them as their JSON text (docs/gql.md, engine
   * differences). `inBag`: the value is a bag's, a key of one (`properties.flag`), or inside a whole bag.
   */
  function rounded(answer: unknown, inBag = false): unknown {
    if (typeof answer === 'number') return Number.isInteger(answer) ? answer : Number(answer.toPrecision(9));
    if (typeof answer === 'boolean') return inBag ? String(answer) : answer;
    if (Array.isArray(answer)) return answer.map((inner) => rounded(inner, inBag));
    if (answer && typeof answer === 'object') {
      return Object.fromEntries(Object.entries(answer).map(([key, inner]) => [key, rounded(inner, inBag || key.includes('.') || BAG_NAMES.has(key))]));
    }
    return answer;
  }

  /**
   * The store's answer, reading its promoted columns unless `bags` asks for the property bags themselves; a DuckDB
   * percentile in the form asked (`quantile_cont` unless said).
   */
  async function exactAnswer(store: AnalyticsStore, text: string, bags = false, percentiles?: PercentileForm) {
    const { plan } = compileQuery(text);
    const compiled = emit(plan, store.dialect, guard, bags ? undefined : store.promotedColumns?.(plan.source.table), percentiles ? { percentiles } : {});
    return decodeResults(compiled, await store.query(compiled.sql, compiled.params));
  }
  const answer = async (store: AnalyticsStore, text: string, bags = false) => rounded(await exactAnswer(store, text, bags));

  const QUERIES_PER_SOURCE = 150;
  let percentilesCompared = 0;

  /** Compares random queries of a source: ClickHouse against DuckDB, and with `bags` each against its bag reads too. */
  async function compareRandomQueries(source: SourceDefinition, bags: boolean): Promise<void> {
    let compared = 0;
    const settled = (store: AnalyticsStore, text: string, fromBags = false) => answer(store, text, fromBags).catch((error: Error) => ({ error: error.message }));
    for (let attempt = 0; attempt < QUERIES_PER_SOURCE; attempt++) {
      const text = query(source);
      try {
        compileQuery(text);
      } catch {
        continue;
      }
      const [fromClickHouse, fromDuckDB] = await Promise.all([settled(clickhouse, text), settled(duckdb, text)]);
      expect({ text, answer: fromClickHouse }).toEqual({ text, answer: fromDuckDB });
      // DuckDB's percentile from counts answers as its quantile_cont does, to the last bit.
      if (/\bp\d\d\(/.test(text)) {
        const [fromValues, fromCounts] = await Promise.all(['values', 'counts'].map((form) => exactAnswer(duckdb, text, false, form as PercentileForm)));
        expect({ text, answer: fromCounts }).toEqual({ text, answer: fromValues });
        percentilesCompared += 1;
      }
      if (bags) expect({ text, answer: fromDuckDB }).toEqual({ text, answer: await settled(duckdb, text, true) });
      compared += 1;
    }
    // Most random queries compile: a generator that made none would compare nothing.
    expect(compared).toBeGreaterThan(QUERIES_PER_SOURCE / 2);
  }

  it.each(SOURCES.map((source) => source.name))('from:%s', (name) => compareRandomQueries(SOURCES.find((candidate) => candidate.name === name)!, false), 120_000);

  it('compared DuckDB percentiles from counts with quantile_cont along the way', () => {
    expect(percentilesCompared).toBeGreaterThan(QUERIES_PER_SOURCE / 10);
  });

  describe('once busy keys are promoted to columns in both engines', () => {
    // Text, numbers, numbers sent as text, a key with a dot, and a key holding numbers and text.
    const KEYS = [['route', false], ['amount', true], ['status', true], ['user.plan', false], ['mixed', true]] as const;

    // ClickHouse fills a promoted column a partition at a time (three days of rows, three or four partitions), each
    // mutation taking up to a second to be scheduled: the two tables are promoted side by side, and given the time.
    beforeAll(async () => {
      await Promise.all(
        ([logsTable, eventsTable] as unknown as TableDefinition<object>[]).map(async (table) => {
          for (const [key, numeric] of KEYS) await Promise.all([clickhouse.promote(table, 'properties', key, numeric), duckdb.promote(table, 'properties', key, numeric)]);
        }),
      );
      expect(duckdb.promotedColumns('logs').size).toBe(KEYS.length);
      expect(clickhouse.promotedColumns('logs').size).toBe(KEYS.length);
    }, 300_000);

    it.each(['logs', 'events'])('from:%s answers alike, and as the bags answer', (name) => compareRandomQueries(SOURCES.find((candidate) => candidate.name === name)!, true), 120_000);
  });
});
