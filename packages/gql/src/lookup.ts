import type { AnalyticsStore } from '@tlm/analytics-store';
import { decodeResults, type Guard } from './emit';
import type { FieldRef, Plan, Predicate } from './plan';
import { emitFor } from './run';
import type { SourceDefinition } from './sources';

/**
 * Reads that are not GQL queries (replay sessions, profile chunks) as plans for the GQL emitter, so the project guard
 * and the retention bound are applied by construction here too (STYLE.md "Tenancy"), with every value bound.
 */

/** Column equalities; an array means any of its values. */
export type Equals = Record<string, string | number | readonly string[]>;

function columnRef(source: SourceDefinition, name: string): FieldRef {
  const column = source.columns.get(name);
  if (!column) throw new Error(`source ${source.name} has no column ${name}`);
  return { type: 'column', column };
}

function whereOf(source: SourceDefinition, equals: Equals): Predicate | null {
  const items = Object.entries(equals).map(([name, value]): Predicate => {
    const values = (Array.isArray(value) ? value : [value]) as (string | number)[];
    return {
      kind: 'compare',
      field: columnRef(source, name),
      readAs: typeof values[0] === 'number' ? 'number' : 'string',
      op: Array.isArray(value) ? 'in' : '=',
      values: values.map((item) => (typeof item === 'number' ? { type: 'number', value: item } : { type: 'string', value: item })),
      negated: false,
    };
  });
  if (items.length === 0) return null;
  return items.length === 1 ? items[0]! : { kind: 'and', items };
}

async function run(analytics: AnalyticsStore, plan: Plan, guard: Guard): Promise<Record<string, unknown>[]> {
  const compiled = emitFor(analytics, plan, guard);
  return decodeResults(compiled, await analytics.query(compiled.sql, compiled.params)).results;
}

/**
 * Rows of `source` matching `equals`, as `{[output key]: value}` for the `fields` map (output key → column or bag),
 * in `sort` order, at most `limit`.
 */
export function findRows(
  analytics: AnalyticsStore,
  source: SourceDefinition,
  guard: Guard,
  query: { equals: Equals; fields: Record<string, string>; sort: [string, 'asc' | 'desc'][]; limit: number },
): Promise<Record<string, unknown>[]> {
  const projection = Object.entries(query.fields).map(([key, name]) => ({
    key,
    field: source.bags.has(name) ? ({ type: 'wholeBag', bag: name } as const) : columnRef(source, name),
  }));
  return run(
    analytics,
    {
      source,
      mode: 'search',
      where: whereOf(source, query.equals),
      since: null,
      until: null,
      projection,
      aggregate: null,
      sort: query.sort.map(([name, direction]) => ({ target: { field: columnRef(source, name) }, direction })),
      limit: query.limit,
    },
    guard,
  );
}

/** `count` or `max(column)` per value of `groupBy`, as a map from that value. */
export async function aggregateBy(
  analytics: AnalyticsStore,
  source: SourceDefinition,
  guard: Guard,
  query: { equals: Equals; groupBy: string; func: 'count' | 'max'; column?: string; limit: number },
): Promise<Map<string, unknown>> {
  const rows = await run(
    analytics,
    {
      source,
      mode: 'aggregate',
      where: whereOf(source, query.equals),
      since: null,
      until: null,
      projection: [],
      aggregate: {
        func: query.func,
        field: query.column ? columnRef(source, query.column) : null,
        groups: [{ key: query.groupBy, field: columnRef(source, query.groupBy), interval: null }],
      },
      sort: [{ target: { group: 0 }, direction: 'asc' }],
      limit: query.limit,
    },
    guard,
  );
  return new Map(rows.map((row) => [String(row[query.groupBy]), row['value']]));
}
