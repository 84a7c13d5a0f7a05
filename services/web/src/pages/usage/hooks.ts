import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import { keys, orgPath } from '../../api/hooks';
import type { UsageSignal } from '@tlm/api-schemas';
import type { Usage } from '../../api/types';

/** The signals the usage answer counts, in the order they are shown. */
export const SIGNALS = ['logs', 'events', 'errors', 'spans', 'vitals', 'sessions', 'ai_queries', 'ai_prompt_tokens', 'ai_completion_tokens'] as const satisfies readonly UsageSignal[];
/** The AI signals: what the organization asked of the AI, not telemetry it sent. */
export const AI_SIGNALS: readonly Signal[] = ['ai_queries', 'ai_prompt_tokens', 'ai_completion_tokens'];
export type Signal = (typeof SIGNALS)[number];

export function useUsage(org: string) {
  return useQuery({
    queryKey: keys.usage(org),
    queryFn: ({ signal }) => api.get<Usage>(`${orgPath(org)}/usage`, { signal }),
    enabled: Boolean(org),
    refetchInterval: 60_000,
  });
}
