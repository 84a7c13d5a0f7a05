/**
 * Release health from the GQL source `sessions` (docs/gql.md, "Sessions (release health)"). Session totals are
 * `sum(quantity)`, which counts single sessions and request-mode aggregates alike; crash-free sessions are the share
 * whose outcome is not `crashed`; crash-free users the share of distinct ids (`count_distinct(distinct_id)`) with no
 * crashed session.
 */
import { bucketStart, durationMs, type SeriesData } from '../../components/charts';

type Row = Record<string, unknown>;

export const SESSION_OUTCOMES = ['healthy', 'errored', 'abnormal', 'crashed'] as const;
export type SessionOutcome = (typeof SESSION_OUTCOMES)[number];

export const healthQueries = (range: string, bucket: string) => ({
  sessions: `from:sessions | sum(quantity) by release, outcome | limit 10000 | last:${range}`,
  users: `from:sessions | count_distinct(distinct_id) by release | limit 10000 | last:${range}`,
  crashedUsers: `from:sessions outcome:crashed | count_distinct(distinct_id) by release | limit 10000 | last:${range}`,
  adoption: `from:sessions | sum(quantity) by time(${bucket}), release | last:${range}`,
});

export interface ReleaseHealth {
  release: string;
  sessions: number;
  outcomes: Record<SessionOutcome, number>;
  /** Share of sessions not crashed, 0 to 1; null without sessions. */
  crashFreeSessions: number | null;
  users: number;
  crashedUsers: number;
  /** Share of users with no crashed session, 0 to 1; null without users (sessions sent without a distinct id). */
  crashFreeUsers: number | null;
  /** Share of all sessions in the range that ran this release, 0 to 1. */
  adoption: number;
}

const numberOf = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : 0);
const releaseOf = (row: Row) => (row['release'] === null || row['release'] === undefined ? '(none)' : String(row['release']));

/** One row per release, the releases with the most sessions first. */
export function releaseHealth(sessionRows: Row[], userRows: Row[], crashedUserRows: Row[]): ReleaseHealth[] {
  const releases = new Map<string, ReleaseHealth>();
  const get = (release: string) => {
    let health = releases.get(release);
    if (!health) {
      health = { release, sessions: 0, outcomes: { healthy: 0, errored: 0, abnormal: 0, crashed: 0 }, crashFreeSessions: null, users: 0, crashedUsers: 0, crashFreeUsers: null, adoption: 0 };
      releases.set(release, health);
    }
    return health;
  };
  for (const row of sessionRows) {
    const health = get(releaseOf(row));
    const value = numberOf(row['value']);
    const outcome = row['outcome'] as SessionOutcome;
    if (SESSION_OUTCOMES.includes(outcome)) health.outcomes[outcome] += value;
    health.sessions += value;
  }
  for (const row of userRows) get(releaseOf(row)).users = numberOf(row['value']);
  for (const row of crashedUserRows) get(releaseOf(row)).crashedUsers = numberOf(row['value']);
  const total = [...releases.values()].reduce((sum, health) => sum + health.sessions, 0);
  for (const health of releases.values()) {
    health.crashFreeSessions = health.sessions > 0 ? 1 - health.outcomes.crashed / health.sessions : null;
    health.crashFreeUsers = health.users > 0 ? 1 - health.crashedUsers / health.users : null;
    health.adoption = total > 0 ? health.sessions / total : 0;
  }
  return [...releases.values()].sort((a, b) => b.sessions - a.sessions || a.release.localeCompare(b.release));
}

const crashFree = new Intl.NumberFormat('en-US', { style: 'percent', maximumFractionDigits: 2 });

/** A crash-free share as Sentry shows it: `99.52%`, `100%`; `n/a` when there is nothing to count. */
export function formatShare(share: number | null): string {
  return share === null ? 'n/a' : crashFree.format(share);
}

/**
 * Adoption over time: in each bucket, each release's share of that bucket's sessions, in percent (buckets without
 * sessions are gaps). The releases with the most sessions come first, at most `maxSeries`.
 */
export function adoptionSeries(rows: Row[], bucket: string, bounds: { from?: number; to?: number }, maxSeries = 8): SeriesData {
  const intervalMs = durationMs(bucket) ?? 3_600_000;
  const times = rows.map((row) => Date.parse(String(row['time']))).filter((time) => !Number.isNaN(time));
  if (times.length === 0) return { xs: [], series: [] };
  const first = Math.min(...times, ...(bounds.from === undefined ? [] : [bucketStart(bounds.from, intervalMs)]));
  const last = Math.max(...times, ...(bounds.to === undefined ? [] : [bucketStart(bounds.to - 1, intervalMs)]));
  const xs: number[] = [];
  for (let time = first; time <= last && xs.length < 10_000; time += intervalMs) xs.push(time);
  const index = new Map(xs.map((time, position) => [time, position]));
  const totals = xs.map(() => 0);
  const byRelease = new Map<string, { counts: number[]; total: number }>();
  for (const row of rows) {
    const position = index.get(Date.parse(String(row['time'])));
    if (position === undefined) continue;
    const release = releaseOf(row);
    let series = byRelease.get(release);
    if (!series) byRelease.set(release, (series = { counts: xs.map(() => 0), total: 0 }));
    const value = numberOf(row['value']);
    series.counts[position]! += value;
    series.total += value;
    totals[position]! += value;
  }
  const series = [...byRelease.entries()]
    .sort((a, b) => b[1].total - a[1].total)
    .slice(0, maxSeries)
    .map(([label, { counts }]) => ({
      label,
      values: counts.map((count, position) => (totals[position]! > 0 ? Math.round((count / totals[position]!) * 10_000) / 100 : null)),
    }));
  return { xs: xs.map((time) => time / 1_000), series };
}
