import type { AnalyticsStore } from '@tlm/analytics-store';
import { aggregatesPercentile, decodeResults, emit, percentileForm, percentileProbe, timeRange, type CompiledQuery, type EmitOptions, type Guard, type PercentileForm, type TimeSlice } from './emit';
import type { GqlQuery } from './parse';
import { compileQuery, type Plan } from './plan';

/** SPEC.md's answer shape: the parsed query and `{mode, table, results, total_groups}`. */
export interface QueryAnswer {
  query: GqlQuery;
  data: { mode: 'search' | 'aggregate'; table: string; results: Record<string, unknown>[]; total_groups: number };
}

/**
 * The part of a filtered search's time range read first: its newest 32nd. A search answers the newest rows that pass
 * its filters; when the newest part of the range holds `limit` of them, nothing older can be among the answer, and
 * the rows older than that part are never read. A filter the store cannot answer from an index otherwise tests every
 * row of the range (docs/performance.md "Full text: trigram signatures, newest slice first").
 */
export const NEWEST_SLICE = 1 / 32;

/** A plan as SQL for the store: its dialect, and the promoted properties of the source's table it keeps. */
export function emitFor(store: AnalyticsStore, plan: Plan, guard: Guard, options?: EmitOptions): CompiledQuery {
  return emit(plan, store.dialect, guard, store.promotedColumns?.(plan.source.table), options);
}

/**
 * How a DuckDB percentile is computed for this plan and data: from counts when the field's first values in the range
 * repeat (`percentileProbe`), so its memory stays within the store's limit; otherwise by `quantile_cont`. Both give the
 * same answer. ClickHouse and other aggregates need no choice.
 */
export async function percentilesFor(store: AnalyticsStore, plan: Plan, guard: Guard): Promise<PercentileForm | undefined> {
  if (store.dialect !== 'duckdb' || !aggregatesPercentile(plan)) return undefined;
  const probe = percentileProbe(plan, guard, store.promotedColumns?.(plan.source.table));
  const [answer] = await store.query(probe.sql, probe.params);
  return percentileForm(answer);
}

/** True when a search is ordered newest first by its time column (any further sort keys order rows of one instant). */
export function readsNewestFirst(plan: Plan): boolean {
  const [sort] = plan.sort;
  const timeColumn = plan.source.timeColumn;
  return (
    plan.mode === 'search' &&
    timeColumn !== null &&
    sort !== undefined &&
    sort.direction === 'desc' &&
    'field' in sort.target &&
    sort.target.field.type === 'column' &&
    sort.target.field.column.name === timeColumn
  );
}

/**
 * Emits a plan for the store's dialect with the guard (project and retention), runs it and shapes the answer. A
 * filtered search read newest first runs over the newest part of its range first (`NEWEST_SLICE`), then, when that
 * part holds fewer than `limit` rows, over the rest for the remaining rows: the two slices split the range at one
 * instant, so every row of the first sorts before every row of the second and the answer is the one query's.
 */
export async function runPlan(store: AnalyticsStore, query: GqlQuery, plan: Plan, guard: Guard): Promise<QueryAnswer> {
  const percentiles = await percentilesFor(store, plan, guard);
  const read = async (part: Plan, slice?: TimeSlice) => {
    const compiled = emitFor(store, part, guard, { slice, percentiles });
    return decodeResults(compiled, await store.query(compiled.sql, compiled.params));
  };
  const answer = (data: { results: Record<string, unknown>[]; total_groups: number }): QueryAnswer => ({
    query,
    data: { mode: plan.mode, table: plan.source.table, ...data },
  });
  const split = newestSliceStart(store, plan, guard);
  if (split === null) return answer(await read(plan));
  const newest = await read(plan, { from: split });
  if (newest.results.length >= plan.limit) return answer(newest);
  const older = await read({ ...plan, limit: plan.limit - newest.results.length }, { before: split });
  const results = [...newest.results, ...older.results];
  // A search's total_groups is its row count.
  return answer({ results, total_groups: results.length });
}

/**
 * Where the newest slice of a filtered newest-first search starts, or null when the plan is read in one go: on DuckDB
 * (where it is measured; ClickHouse reads a table in its sort order), over a source whose rows never change once
 * stored (an issue's `last_seen` moving from the older slice into the newest between the two reads would drop it from
 * both), and not for the live tail, whose few new rows rarely fill a slice of the retention period.
 */
function newestSliceStart(store: AnalyticsStore, plan: Plan, guard: Guard): number | null {
  if (store.dialect !== 'duckdb' || !plan.where || !plan.source.appendOnly || guard.receivedAfter || !readsNewestFirst(plan)) return null;
  const { since, end } = timeRange(plan, guard);
  const split = Math.floor(end - (end - since) * NEWEST_SLICE);
  return split > since ? split : null;
}

/** Parses, plans and runs one GQL query; GqlSyntaxError and GqlQueryError propagate for the caller to map. */
export function runQuery(store: AnalyticsStore, text: string, guard: Guard): Promise<QueryAnswer> {
  const { query, plan } = compileQuery(text);
  return runPlan(store, query, plan, guard);
}
