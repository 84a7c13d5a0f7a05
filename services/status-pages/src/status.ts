import { isoTime } from '@tlm/core';
import type { IncidentImpact, IncidentRow, StatusPageRow } from '@tlm/metadata-store';

export type ComponentStatus = 'operational' | 'degraded_performance' | 'partial_outage' | 'major_outage';
export type PageStatus = 'operational' | 'degraded' | 'partial_outage' | 'major_outage';

const SEVERITY: Record<IncidentImpact, number> = { none: 0, minor: 1, major: 2, critical: 3 };
const COMPONENT_STATUS: ComponentStatus[] = ['operational', 'degraded_performance', 'partial_outage', 'major_outage'];
const PAGE_STATUS: PageStatus[] = ['operational', 'degraded', 'partial_outage', 'major_outage'];
/** SPEC.md: a status page shows uptime; over the last 90 days, as the common status pages do. */
export const UPTIME_WINDOW_DAYS = 90;
const DAY_MS = 86_400_000;

const isOpen = (incident: IncidentRow) => incident.status !== 'resolved';
/** An incident without named components affects the whole page. */
const affects = (incident: IncidentRow, component: string) => incident.components.length === 0 || incident.components.includes(component);

/** Worst impact of the open incidents: none is a notice (operational), minor degraded, major a partial and critical a major outage. */
function worst(incidents: IncidentRow[]): number {
  return incidents.filter(isOpen).reduce((level, incident) => Math.max(level, SEVERITY[incident.impact]), 0);
}

/**
 * Share of the window without a major or critical incident, in percent: overlapping incidents count once, an open
 * incident runs until now. A page younger than the window counts from `since`, its creation: the days before it are
 * no uptime anyone watched.
 */
export function uptimePercent(incidents: IncidentRow[], now: Date, windowDays = UPTIME_WINDOW_DAYS, since?: Date): number {
  return outsideOutages(incidents, Math.max(now.getTime() - windowDays * DAY_MS, since?.getTime() ?? -Infinity), now.getTime(), now);
}

/** One day of a component's uptime bar (UTC days). */
export interface UptimeDay {
  /** YYYY-MM-DD, UTC. */
  date: string;
  /** `no_data` for a day before the page existed. */
  level: PageStatus | 'no_data';
  /** Share of the day's elapsed time (since the page's creation, on its first day) without a major or critical incident, in percent; null before it existed. */
  percent: number | null;
  /** Titles of the incidents that touched the component that day, oldest first. */
  incidents: string[];
}

/**
 * The last `days` UTC days of one component, oldest first, today last: a day takes the worst impact of the incidents
 * affecting the component that were open during any part of it (none counts as operational), and its percent is the
 * share of the day (of its elapsed part, today) outside major and critical incidents, overlaps counted once.
 */
export function uptimeDays(incidents: IncidentRow[], component: string, now: Date, days = UPTIME_WINDOW_DAYS, since?: Date): UptimeDay[] {
  const affecting = incidents.filter((incident) => affects(incident, component));
  const today = Math.floor(now.getTime() / DAY_MS) * DAY_MS;
  return Array.from({ length: days }, (_, index) => {
    const dayStart = today - (days - 1 - index) * DAY_MS;
    const date = new Date(dayStart).toISOString().slice(0, 10);
    const end = Math.min(dayStart + DAY_MS, now.getTime());
    if (since && end <= since.getTime()) return { date, level: 'no_data' as const, percent: null, incidents: [] };
    const start = Math.max(dayStart, since?.getTime() ?? -Infinity);
    const touching = affecting
      .filter((incident) => incident.created_at.getTime() < end && (incident.resolved_at ?? now).getTime() >= start)
      .sort((a, b) => a.created_at.getTime() - b.created_at.getTime());
    const level = touching.reduce((worstLevel, incident) => Math.max(worstLevel, SEVERITY[incident.impact]), 0);
    return {
      date,
      level: PAGE_STATUS[level]!,
      percent: outsideOutages(touching, start, end, now),
      incidents: touching.map((incident) => incident.title),
    };
  });
}

/** Percent of [start, end) outside the major and critical incidents given; overlapping incidents count once. */
function outsideOutages(incidents: IncidentRow[], start: number, end: number, now: Date): number {
  if (end <= start) return 100;
  const outages = incidents
    .filter((incident) => SEVERITY[incident.impact] >= SEVERITY.major)
    .map((incident) => [Math.max(incident.created_at.getTime(), start), Math.min((incident.resolved_at ?? now).getTime(), end)] as const)
    .filter(([from, to]) => to > from)
    .sort((a, b) => a[0] - b[0]);
  let down = 0;
  let coveredUntil = start;
  for (const [from, to] of outages) {
    if (to <= coveredUntil) continue;
    down += to - Math.max(from, coveredUntil);
    coveredUntil = to;
  }
  return Math.round((1 - down / (end - start)) * 100_000) / 1_000;
}

export const incidentJson = (incident: IncidentRow) => ({
  id: incident.id,
  title: incident.title,
  status: incident.status,
  impact: incident.impact,
  components: incident.components,
  updates: incident.updates,
  created_at: isoTime(incident.created_at),
  updated_at: isoTime(incident.updated_at),
  resolved_at: isoTime(incident.resolved_at),
});

/** The public snapshot: overall status, each component's status, uptime and the open incidents. */
export function snapshotJson(page: StatusPageRow, incidents: IncidentRow[], now: Date) {
  const open = incidents.filter(isOpen);
  return {
    slug: page.slug,
    title: page.title,
    status: PAGE_STATUS[worst(open)],
    components: page.components.map((component) => ({
      name: component.name,
      status: COMPONENT_STATUS[worst(open.filter((incident) => affects(incident, component.name)))],
    })),
    uptime: { window_days: UPTIME_WINDOW_DAYS, percent: uptimePercent(incidents, now, UPTIME_WINDOW_DAYS, page.created_at) },
    incidents: open.map(incidentJson),
    updated_at: isoTime(now),
  };
}

export const pageJson = (page: StatusPageRow) => ({
  id: page.id,
  slug: page.slug,
  title: page.title,
  project_id: page.project_id,
  components: page.components,
  created_at: isoTime(page.created_at),
  updated_at: isoTime(page.updated_at),
});
