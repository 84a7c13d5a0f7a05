import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/client';
import { projectPath } from '../../api/hooks';
import type { CreatedKey, GqlAnswer } from '../../api/types';

export interface StarterKeys {
  publicKey: CreatedKey;
  secretKey?: CreatedKey;
  secretError?: unknown;
}

/** A public key for browsers ("browser") and a secret key for servers ("server"); their values come back only here. */
export function useCreateStarterKeys(org: string, project: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async () => {
      const base = `${projectPath(org, project)}/keys`;
      const publicKey = await api.post<CreatedKey>(base, { name: 'browser', type: 'public', scopes: ['ingest:write'] });
      // The public key's value exists now and is never shown again: keep it even when the secret key is refused.
      try {
        const secretKey = await api.post<CreatedKey>(base, { name: 'server', type: 'secret', scopes: ['*'] });
        return { publicKey, secretKey } as StarterKeys;
      } catch (secretError) {
        return { publicKey, secretError } as StarterKeys;
      }
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: ['orgs', org, 'projects', project, 'keys'] }),
  });
}

export type Source = 'logs' | 'events' | 'errors';
export const latestQuery = (source: Source) => `from:${source} | sort timestamp desc | limit 1`;
/** The row of a source the server received first: its own timestamp may be set back by the client. */
export const firstQuery = (source: Source) => `from:${source} | sort received_at asc | fields id, received_at${source === 'errors' ? ', issue_id' : ''} | limit 1`;
/** The explorer's query for that first row: the very one the page announces, not the newest. */
export const rowQuery = (source: Source, id: string) => `from:${source} id:"${id}"`;

/** When a source's first row reached the server, asked every 2 s until one is there. */
export function useFirstRow(org: string, project: string, source: Source) {
  return useQuery({
    queryKey: ['orgs', org, 'projects', project, 'onboarding', source],
    queryFn: ({ signal }) =>
      api
        .get<GqlAnswer>(`${projectPath(org, project)}/gql`, { signal, query: { q: firstQuery(source) } })
        .then((answer) => (answer.data.results[0] as { id?: string; received_at?: string; issue_id?: string } | undefined) ?? null),
    enabled: Boolean(org && project),
    refetchInterval: (query) => (query.state.data ? false : 2_000),
    refetchIntervalInBackground: false,
  });
}
