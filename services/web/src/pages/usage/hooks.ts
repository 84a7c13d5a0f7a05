import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import { keys, orgPath } from '../../api/hooks';
import type { UsageSignal } from '@tlm/api-schemas';
import type { Usage } from '../../api/types';

/** The signals the usage answer counts, in the order they are shown. */
export const SIGNALS = ['logs', 'events', 'errors', 'spans', 'vitals', 'sessions', 'ai_queries'] as const satisfies readonly UsageSignal[];
export type Signal = (typeof SIGNALS)[number];

export function useUsage(org: string) {
  return useQuery({
    queryKey: keys.usage(org),
    queryFn: ({ signal }) => api.get<Usage>(`${orgPath(org)}/usage`, { signal }),
    enabled: Boolean(org),
    refetchInterval: 60_000,
  });
}
