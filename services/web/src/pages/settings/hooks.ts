import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/client';
import { keys, projectPath } from '../../api/hooks';
import type { Project } from '../../api/types';

export function useUpdateProject(org: string, project: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (change: { name?: string; allow_browser_logs?: boolean }) => api.patch<Project>(projectPath(org, project), change),
    onSuccess: (updated) => {
      queryClient.setQueryData(keys.project(org, project), updated);
      void queryClient.invalidateQueries({ queryKey: keys.projects(org), exact: true });
    },
  });
}

export function useDeleteProject(org: string, project: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api.delete<unknown>(projectPath(org, project)),
    onSuccess: () => {
      queryClient.removeQueries({ queryKey: keys.project(org, project) });
      void queryClient.invalidateQueries({ queryKey: keys.projects(org) });
    },
  });
}
