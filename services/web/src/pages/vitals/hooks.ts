import { useMemo, useRef } from 'react';
import { gqlString, useGqlAnswer } from '../../api/gql';
import { VITAL_NAMES, VITAL_RATINGS, isVitalName, rateVital, type VitalName, type VitalRating } from './thresholds';

/** One vital of one route: its p75, the rating of that p75, and how many samples fell in each rating. */
export interface RouteVital {
  p75: number;
  rating: VitalRating;
  counts: Record<VitalRating, number>;
  samples: number;
}

export interface RouteVitals {
  route: string;
  samples: number;
  vitals: Partial<Record<VitalName, RouteVital>>;
}

/** The GQL of the page: p75 by route and vital, and the samples by route, vital and rating (docs/gql.md, vitals). */
export const vitalsQueries = (range: string) => ({
  p75: `from:vitals | p75(value) by route, name | limit 10000 | last:${range}`,
  ratings: `from:vitals | count by route, name, rating | limit 10000 | last:${range}`,
});

export const trendQuery = (vital: VitalName, route: string, range: string, bucket: string) =>
  `from:vitals name:${vital} route = ${gqlString(route)} | p75(value) by time(${bucket}) | last:${range}`;

const numberOf = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : null);

/** Joins the two answers into one row per route, the routes with the most samples first. */
export function routeVitals(p75Rows: Record<string, unknown>[], ratingRows: Record<string, unknown>[]): RouteVitals[] {
  const routes = new Map<string, RouteVitals>();
  const routeOf = (route: unknown) => {
    const name = typeof route === 'string' ? route : String(route ?? '');
    let row = routes.get(name);
    if (!row) routes.set(name, (row = { route: name, samples: 0, vitals: {} }));
    return row;
  };
  const vitalOf = (row: RouteVitals, name: VitalName) =>
    (row.vitals[name] ??= { p75: Number.NaN, rating: 'good', counts: { good: 0, 'needs-improvement': 0, poor: 0 }, samples: 0 });
  for (const result of p75Rows) {
    const name = result['name'];
    const p75 = numberOf(result['value']);
    if (!isVitalName(name) || p75 === null) continue;
    const vital = vitalOf(routeOf(result['route']), name);
    vital.p75 = p75;
    vital.rating = rateVital(name, p75);
  }
  for (const result of ratingRows) {
    const name = result['name'];
    const rating = result['rating'] as VitalRating;
    const count = numberOf(result['value']) ?? 0;
    if (!isVitalName(name) || !VITAL_RATINGS.includes(rating)) continue;
    const row = routeOf(result['route']);
    const vital = vitalOf(row, name);
    vital.counts[rating] += count;
    vital.samples += count;
    row.samples += count;
  }
  for (const row of routes.values()) {
    for (const name of VITAL_NAMES) if (row.vitals[name] && Number.isNaN(row.vitals[name]!.p75)) delete row.vitals[name];
  }
  return [...routes.values()].sort((a, b) => b.samples - a.samples || a.route.localeCompare(b.route));
}

/** The vitals of every route in the range, from two GQL aggregates. */
export function useRouteVitals(org: string, project: string, range: string) {
  const queries = vitalsQueries(range);
  const p75 = useGqlAnswer(org, project, queries.p75);
  const ratings = useGqlAnswer(org, project, queries.ratings);
  // While a new range loads, each query shows its previous answer until its own arrives: two answers of different
  // ranges are never put together (a route of one with the p75 of the other read "no samples"); the last matching
  // pair stays on screen meanwhile.
  const matching = p75.isPlaceholderData === ratings.isPlaceholderData;
  const shown = useRef<RouteVitals[] | undefined>(undefined);
  const rows = useMemo(
    () => (matching && p75.data && ratings.data ? routeVitals(p75.data.answer.data.results, ratings.data.answer.data.results) : shown.current),
    [matching, p75.data, ratings.data],
  );
  shown.current = rows;
  return {
    rows,
    isPending: p75.isPending || ratings.isPending,
    isFetching: p75.isFetching || ratings.isFetching,
    error: p75.error ?? ratings.error,
  };
}

/** Whether the project has any vitals in its whole retention, asked only when the range has none. */
export function useAnyVitals(org: string, project: string, enabled: boolean) {
  const answer = useGqlAnswer(org, project, 'from:vitals | count by name', { enabled });
  return { ...answer, hasAny: answer.data ? answer.data.answer.data.results.some((row) => Number(row['value']) > 0) : undefined };
}
