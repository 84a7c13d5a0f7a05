import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/client';
import { projectPath } from '../../api/hooks';
import type { ApiKey, CreatedKey, Scope } from '../../api/types';

export interface NewKey {
  name: string;
  type: 'public' | 'secret';
  scopes: Scope[];
}

/** Creating, rotating, revoking, deleting and restoring keys; each refreshes both key lists. */
export function useKeyMutations(org: string, project: string) {
  const queryClient = useQueryClient();
  const base = `${projectPath(org, project)}/keys`;
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['orgs', org, 'projects', project, 'keys'] });
  return {
    create: useMutation({ mutationFn: (key: NewKey) => api.post<CreatedKey>(base, key), onSuccess: refresh }),
    /** A rotation's new key: created as `create` does, its state apart from the form's. */
    rotate: useMutation({ mutationFn: (key: NewKey) => api.post<CreatedKey>(base, key), onSuccess: refresh }),
    revoke: useMutation({ mutationFn: (id: string) => api.post<ApiKey>(`${base}/${encodeURIComponent(id)}/revoke`), onSuccess: refresh }),
    unrevoke: useMutation({ mutationFn: (id: string) => api.post<ApiKey>(`${base}/${encodeURIComponent(id)}/unrevoke`), onSuccess: refresh }),
    remove: useMutation({ mutationFn: (id: string) => api.delete<unknown>(`${base}/${encodeURIComponent(id)}`), onSuccess: refresh }),
    restore: useMutation({
      mutationFn: ({ id, force }: { id: string; force?: boolean }) =>
        api.post<ApiKey>(`${base}/${encodeURIComponent(id)}/restore`, undefined, { query: force ? { force: true } : undefined }),
      onSuccess: refresh,
    }),
  };
}

