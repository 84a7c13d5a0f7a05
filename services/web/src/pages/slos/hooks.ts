import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { NewSlo, Slo, SloHistory, SloPatch } from '@tlm/api-schemas';
import { api, request } from '../../api/client';
import { keys, projectPath } from '../../api/hooks';

const sloKeys = {
  all: (org: string, project: string) => [...keys.project(org, project), 'slos'] as const,
  history: (org: string, project: string, slo: string) => [...keys.project(org, project), 'slos', slo, 'history'] as const,
};

const slosPath = (org: string, project: string) => `${projectPath(org, project)}/slos`;
const sloPath = (org: string, project: string, slo: string) => `${slosPath(org, project)}/${encodeURIComponent(slo)}`;

/** The project's SLOs, each with its current percentage and error budget left over its window. */
export function useSlos(org: string, project: string) {
  return useQuery({
    queryKey: sloKeys.all(org, project),
    queryFn: ({ signal }) => api.get<{ slos: Slo[] }>(slosPath(org, project), { signal }).then((answer) => answer.slos),
  });
}

/** Good, total and burn rate per bucket over the SLO's window. */
export function useSloHistory(org: string, project: string, slo: string) {
  return useQuery({
    queryKey: sloKeys.history(org, project, slo),
    queryFn: ({ signal }) => api.get<SloHistory>(`${sloPath(org, project, slo)}/history`, { signal }),
  });
}

/** Creating, changing and deleting SLOs; each refreshes the project's SLOs and their histories. */
export function useSloMutations(org: string, project: string) {
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries({ queryKey: sloKeys.all(org, project) });
  return {
    create: useMutation({ mutationFn: (slo: NewSlo) => api.post<Slo>(slosPath(org, project), slo), onSuccess: refresh }),
    update: useMutation({ mutationFn: ({ id, changes }: { id: string; changes: SloPatch }) => request<Slo>('PUT', sloPath(org, project, id), { body: changes }), onSuccess: refresh }),
    remove: useMutation({ mutationFn: (id: string) => api.delete<unknown>(sloPath(org, project, id)), onSuccess: refresh }),
  };
}
