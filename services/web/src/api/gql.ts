import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api } from './client';
import { keys, projectPath } from './hooks';
import type { GqlAnswer } from './types';

/** The query key of a GQL answer: the project's key and the query text. */
export const gqlKey = (org: string, project: string, query: string) => [...keys.project(org, project), 'gql', query] as const;

/** A query's answer and how long the server took to give it. */
export interface TimedAnswer {
  answer: GqlAnswer;
  elapsedMs: number;
}

/**
 * Runs a GQL query through the dashboard route (`GET /api/orgs/:org/projects/:project/gql?q=`); the same text again
 * refetches. The explorer and the pages built on GQL (web vitals, releases) read through it.
 */
export function useGqlAnswer(org: string, project: string, query: string, options: { enabled?: boolean } = {}) {
  return useQuery({
    queryKey: gqlKey(org, project, query),
    queryFn: async ({ signal }): Promise<TimedAnswer> => {
      const started = performance.now();
      const answer = await api.get<GqlAnswer>(`${projectPath(org, project)}/gql`, { query: { q: query }, signal });
      return { answer, elapsedMs: Math.round(performance.now() - started) };
    },
    placeholderData: keepPreviousData,
    staleTime: 0,
    enabled: options.enabled ?? true,
  });
}

/** A value for a GQL condition, quoted so that any text (spaces, `:`, quotes) reads back as itself. */
export function gqlString(value: string): string {
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;
}
