import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Dashboard, DashboardPatch, NewDashboard, Panel, PanelInput } from '@tlm/api-schemas';
import { api, request } from '../../api/client';
import { keys, projectPath } from '../../api/hooks';
import { TIMELESS_SOURCES, readSource, setTimeRange } from '../explore/queryText';

const dashboardKeys = {
  all: (org: string, project: string) => [...keys.project(org, project), 'dashboards'] as const,
  one: (org: string, project: string, id: string) => [...keys.project(org, project), 'dashboards', id] as const,
};

const dashboardsPath = (org: string, project: string) => `${projectPath(org, project)}/dashboards`;
const dashboardPath = (org: string, project: string, id: string) => `${dashboardsPath(org, project)}/${encodeURIComponent(id)}`;

/** The project's dashboards, by name. */
export function useDashboards(org: string, project: string) {
  return useQuery({
    queryKey: dashboardKeys.all(org, project),
    queryFn: ({ signal }) => api.get<{ dashboards: Dashboard[] }>(dashboardsPath(org, project), { signal }).then((answer) => answer.dashboards),
  });
}

export function useDashboard(org: string, project: string, id: string) {
  return useQuery({
    queryKey: dashboardKeys.one(org, project, id),
    queryFn: ({ signal }) => api.get<Dashboard>(dashboardPath(org, project, id), { signal }),
  });
}

/** Creating, changing and deleting dashboards; each refreshes the list and the dashboard it changed. */
export function useDashboardMutations(org: string, project: string) {
  const queryClient = useQueryClient();
  const stored = (dashboard: Dashboard) => {
    queryClient.setQueryData(dashboardKeys.one(org, project, dashboard.id), dashboard);
    return queryClient.invalidateQueries({ queryKey: dashboardKeys.all(org, project), exact: true });
  };
  return {
    create: useMutation({ mutationFn: (dashboard: NewDashboard) => api.post<Dashboard>(dashboardsPath(org, project), dashboard), onSuccess: stored }),
    update: useMutation({
      mutationFn: ({ id, changes }: { id: string; changes: DashboardPatch }) => request<Dashboard>('PUT', dashboardPath(org, project, id), { body: changes }),
      onSuccess: stored,
    }),
    remove: useMutation({
      mutationFn: (id: string) => api.delete<unknown>(dashboardPath(org, project, id)),
      onSuccess: (_answer, id) => {
        queryClient.removeQueries({ queryKey: dashboardKeys.one(org, project, id) });
        return queryClient.invalidateQueries({ queryKey: dashboardKeys.all(org, project), exact: true });
      },
    }),
  };
}

/** Panels as the API takes them back: each keeps its id, so a change to one leaves the others as they were. */
export const panelInputs = (panels: Panel[]): PanelInput[] => panels.map(({ id, title, query, width }) => ({ id, title, query, width }));

/** `saved`: each panel's own range, as its query says; otherwise a range of the picker replaces it. */
export const SAVED_RANGE = 'saved';

/** The query a panel runs under the dashboard's range: the range replaces the query's own, unless its source has no time. */
export function panelQuery(query: string, range: string): string {
  if (range === SAVED_RANGE) return query;
  const source = readSource(query);
  if (source && TIMELESS_SOURCES.has(source)) return query;
  return setTimeRange(query, { kind: 'last', duration: range });
}

/** A panel's title when none is given: its query, shortened. */
export function defaultTitle(query: string): string {
  const text = query.replace(/\s+/g, ' ').trim();
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}
