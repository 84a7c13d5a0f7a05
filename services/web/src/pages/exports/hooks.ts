import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ExportJob, NewExport } from '@tlm/api-schemas';
import { api } from '../../api/client';
import { projectPath } from '../../api/hooks';

const exportKeys = (org: string, project: string) => ['orgs', org, 'projects', project, 'exports'] as const;
/** How often the list is read again while a job is queued or running. */
const POLL_MS = 1_000;

const inProgress = (job: ExportJob) => job.status === 'queued' || job.status === 'running';

/** The project's export jobs, newest first; polled while any of them is still queued or running. */
export function useExports(org: string, project: string) {
  return useQuery({
    queryKey: exportKeys(org, project),
    queryFn: ({ signal }) => api.get<{ exports: ExportJob[] }>(`${projectPath(org, project)}/exports`, { signal }).then((answer) => answer.exports),
    enabled: Boolean(org && project),
    refetchInterval: (query) => (query.state.data?.some(inProgress) ? POLL_MS : false),
  });
}

export function useStartExport(org: string, project: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (job: NewExport) => api.post<{ id: string; status: string }>(`${projectPath(org, project)}/exports`, job),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: exportKeys(org, project) }),
  });
}
