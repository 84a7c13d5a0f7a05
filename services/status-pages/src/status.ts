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
 * incident runs until now.
 */
export function uptimePercent(incidents: IncidentRow[], now: Date, windowDays = UPTIME_WINDOW_DAYS): number {
  const windowStart = now.getTime() - windowDays * DAY_MS;
  const outages = incidents
    .filter((incident) => SEVERITY[incident.impact] >= SEVERITY.major)
    .map((incident) => [Math.max(incident.created_at.getTime(), windowStart), (incident.resolved_at ?? now).getTime()] as const)
    .filter(([start, end]) => end > start)
    .sort((a, b) => a[0] - b[0]);
  let down = 0;
  let coveredUntil = windowStart;
  for (const [start, end] of outages) {
    if (end <= coveredUntil) continue;
    down += end - Math.max(start, coveredUntil);
    coveredUntil = end;
  }
  return Math.round((1 - down / (windowDays * DAY_MS)) * 100_000) / 1_000;
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
    uptime: { window_days: UPTIME_WINDOW_DAYS, percent: uptimePercent(incidents, now) },
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
