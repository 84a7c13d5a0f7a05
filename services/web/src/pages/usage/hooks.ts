import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import { keys, orgPath } from '../../api/hooks';
import type { Plan } from '../../api/types';

/** Signals in the order they are shown; the server answers those it counts (others it adds later show too). */
export const SIGNALS = ['logs', 'events', 'errors', 'spans', 'vitals', 'sessions', 'replays', 'profiles', 'ai_queries'] as const;
export type Signal = (typeof SIGNALS)[number];
export type SignalCounts = Partial<Record<string, number>>;

/** The signals an answer counts: known ones in their order, then any other the server adds. */
export function signalsOf(usage: SignalCounts): string[] {
  const known: string[] = SIGNALS.filter((signal) => signal in usage);
  return [...known, ...Object.keys(usage).filter((signal) => !known.includes(signal))];
}

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
