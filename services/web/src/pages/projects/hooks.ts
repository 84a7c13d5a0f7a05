import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/client';
import { keys, orgPath, projectPath } from '../../api/hooks';
import type { Project } from '../../api/types';

export function useDeletedProjects(org: string) {
  return useQuery({
    queryKey: keys.deletedProjects(org),
    queryFn: ({ signal }) => api.get<{ projects: Project[] }>(`${orgPath(org)}/projects`, { signal, query: { deleted: true } }).then((answer) => answer.projects),
    enabled: Boolean(org),
  });
}

export function useCreateProject(org: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => api.post<Project>(`${orgPath(org)}/projects`, { name }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: keys.projects(org) }),
  });
}

export function useRestoreProject(org: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ project, force }: { project: string; force?: boolean }) =>
      api.post<Project>(`${projectPath(org, project)}/restore`, undefined, { query: force ? { force: true } : undefined }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: keys.projects(org) }),
  });
}
