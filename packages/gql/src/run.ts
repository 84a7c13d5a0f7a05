import type { AnalyticsStore } from '@tlm/analytics-store';
import { decodeResults, emit, type CompiledQuery, type Guard } from './emit';
import type { GqlQuery } from './parse';
import { compileQuery, type Plan } from './plan';

/** SPEC.md's answer shape: the parsed query and `{mode, table, results, total_groups}`. */
export interface QueryAnswer {
  query: GqlQuery;
  data: { mode: 'search' | 'aggregate'; table: string; results: Record<string, unknown>[]; total_groups: number };
}

/** A plan as SQL for the store: its dialect, and the promoted properties of the source's table it keeps. */
export function emitFor(store: AnalyticsStore, plan: Plan, guard: Guard): CompiledQuery {
  return emit(plan, store.dialect, guard, store.promotedColumns?.(plan.source.table));
}

/** Emits a plan for the store's dialect with the guard (project and retention), runs it and shapes the answer. */
export async function runPlan(store: AnalyticsStore, query: GqlQuery, plan: Plan, guard: Guard): Promise<QueryAnswer> {
  const compiled = emitFor(store, plan, guard);
  const { results, total_groups } = decodeResults(compiled, await store.query(compiled.sql, compiled.params));
  return { query, data: { mode: compiled.mode, table: compiled.table, results, total_groups } };
}

/** Parses, plans and runs one GQL query; GqlSyntaxError and GqlQueryError propagate for the caller to map. */
export function runQuery(store: AnalyticsStore, text: string, guard: Guard): Promise<QueryAnswer> {
  const { query, plan } = compileQuery(text);
  return runPlan(store, query, plan, guard);
}
