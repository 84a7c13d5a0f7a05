import { useGqlAnswer } from '../../api/gql';
import type { GqlAnswer } from '../../api/types';

/**
 * A GQL answer through the app's shared hook (so the explorer and these pages share answers). With `keepPrevious`,
 * the answer to the previous text stays on screen while the new one loads; without, the page shows it is loading.
 */
export function useGql(org: string, project: string, query: string, options: { enabled?: boolean; keepPrevious?: boolean } = {}) {
  const result = useGqlAnswer(org, project, query, { enabled: options.enabled ?? true });
  const stale = result.isPlaceholderData && !options.keepPrevious;
  return {
    data: stale ? undefined : result.data?.answer,
    dataUpdatedAt: result.dataUpdatedAt,
    isPending: result.isPending || stale,
    isSuccess: result.isSuccess && !stale,
    isError: result.isError,
    error: result.error,
    isFetching: result.isFetching,
    refetch: result.refetch,
  };
}

/** The rows of a GQL answer, typed as the caller reads them. */
export const rowsOf = <T = Record<string, unknown>>(answer: GqlAnswer | undefined): T[] => (answer?.data.results ?? []) as T[];

/** Where the explorer opens with a query, for "Open in Explore" links: the explorer's own URL state. */
export { explorePath } from '../explore/queryText';

export const tracesBase = (org: string, project: string) => `/orgs/${encodeURIComponent(org)}/projects/${encodeURIComponent(project)}`;
