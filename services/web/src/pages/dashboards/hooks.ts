import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Dashboard, DashboardPatch, NewDashboard } from '@tlm/api-schemas';
import { api, request } from '../../api/client';
import { keys, projectPath } from '../../api/hooks';

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
      // A refusal can come of a stale copy (someone else changed the dashboard): read it, and the list, again.
      onError: () => queryClient.invalidateQueries({ queryKey: dashboardKeys.all(org, project) }),
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
