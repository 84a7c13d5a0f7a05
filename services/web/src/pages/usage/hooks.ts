import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import { keys, orgPath } from '../../api/hooks';
import type { Plan } from '../../api/types';

export const SIGNALS = ['logs', 'events', 'errors', 'spans', 'vitals', 'replays', 'profiles', 'ai_queries'] as const;
export type Signal = (typeof SIGNALS)[number];
export type SignalCounts = Partial<Record<Signal, number>>;

/** GET /api/orgs/:org/usage: the plan's limits, the quotas in use and this month's counts per signal. */
export interface UsageAnswer {
  organization: { id: string; name: string; plan: Plan; region: string };
  month: string;
  limits: { requestsPerSecond?: number | null; maxApiKeys?: number | null; retentionDays?: number | null; maxProjects?: number | null; aiQueriesPerMonth?: number | null };
  keys: { used: number; limit: number | null };
  projects: { used: number; limit: number | null };
  usage: SignalCounts;
  by_project: { id: string; name: string; usage: SignalCounts }[];
}

export function useUsage(org: string) {
  return useQuery({
    queryKey: keys.usage(org),
    queryFn: ({ signal }) => api.get<UsageAnswer>(`${orgPath(org)}/usage`, { signal }),
    enabled: Boolean(org),
    refetchInterval: 60_000,
  });
}
