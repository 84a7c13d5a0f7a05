import { useMutation, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { api } from '../../api/client';
import { gqlKey, useGqlAnswer, type TimedAnswer } from '../../api/gql';
import { projectPath } from '../../api/hooks';
import {
  eventQuery,
  gqlValue,
  issueChartQuery,
  issueEventsQuery,
  issueQuery,
  issuesPage,
  issuesQuery,
  RELEASES_QUERY,
  sparklineQuery,
  toErrorEvent,
  type ChartRange,
  type Issue,
  type IssueSort,
  type IssueStatus,
} from './queries';

/** Every GQL answer of a project sits under this key, the explorer's too, so an issue action refreshes them all. */
const gqlPrefix = (org: string, project: string) => gqlKey(org, project, '').slice(0, -1);

/** A GQL query's answer through the dashboard route (the explorer's hook), with its rows. */
function useGql(org: string, project: string, query: string, options: { enabled?: boolean } = {}) {
  const answer = useGqlAnswer(org, project, query, { enabled: (options.enabled ?? true) && Boolean(org && project) });
  return { ...answer, answer: answer.data?.answer, rows: answer.data?.answer.data.results };
}

/** One tab of the issue list. */
export function useIssues(org: string, project: string, status: IssueStatus, sort: IssueSort, filter: string, page: number) {
  const query = issuesQuery(status, sort, filter, page);
  const answer = useGql(org, project, query);
  // Another tab's rows are not this tab's: while they are all there is, the list is loading.
  const shown = answer.isPlaceholderData || !answer.rows ? undefined : issuesPage(answer.rows as unknown as Issue[], page);
  return { ...answer, isPending: answer.isPending || answer.isPlaceholderData, query, issues: shown?.rows, hasNext: shown?.hasNext ?? false };
}

/** The hourly counts of the listed issues over the last day, in one query. */
export function useSparklines(org: string, project: string, issueIds: string[]) {
  return useGql(org, project, sparklineQuery(issueIds), { enabled: issueIds.length > 0 });
}

/** One issue, whatever its status; `undefined` data when there is no such issue in the project. */
export function useIssue(org: string, project: string, id: string) {
  // An id that is no UUID (a link cut short) names no issue: nothing to ask the server.
  const wellFormed = ISSUE_ID.test(id);
  const answer = useGql(org, project, issueQuery(id), { enabled: wellFormed });
  if (!wellFormed) return { ...answer, isPending: false, isError: false as const, error: null, issue: null };
  // Another issue's answer, kept while this one loads, is not shown as this one.
  const rows = answer.isPlaceholderData ? undefined : answer.rows;
  return { ...answer, isPending: answer.isPending || answer.isPlaceholderData, issue: rows ? ((rows[0] as unknown as Issue | undefined) ?? null) : undefined };
}

const ISSUE_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function useIssueChart(org: string, project: string, id: string, range: ChartRange) {
  return useGql(org, project, issueChartQuery(id, range));
}

/** The issue's event ids, newest first. */
export function useIssueEvents(org: string, project: string, id: string) {
  const answer = useGql(org, project, issueEventsQuery(id));
  const rows = answer.isPlaceholderData ? undefined : answer.rows;
  return { ...answer, events: rows as unknown as { id: string; timestamp: string }[] | undefined };
}

/** One event of the issue with everything it holds; the latest when `eventId` is null. */
export function useIssueEvent(org: string, project: string, issueId: string, eventId: string | null) {
  const answer = useGql(org, project, eventQuery(issueId, eventId));
  // The previous event stays on screen while the next loads, never another issue's.
  const rows = answer.isPlaceholderData && answer.rows?.[0]?.['issue_id'] !== issueId ? undefined : answer.rows;
  const row = rows?.[0];
  return { ...answer, isPending: rows === undefined && answer.isFetching ? true : answer.isPending, event: rows ? (row ? toErrorEvent(row) : null) : undefined };
}

/** The project's releases, busiest first. */
export function useReleases(org: string, project: string) {
  const answer = useGql(org, project, RELEASES_QUERY);
  return { ...answer, releases: answer.rows };
}

export type IssueAction = { action: 'resolve'; release?: string | null } | { action: 'ignore' } | { action: 'unresolve' };

/** What the issue's status becomes, as the server decides it (docs/api.md "Issues"). */
export function statusAfter(action: IssueAction): { status: IssueStatus; resolved_in_release: string | null } {
  if (action.action === 'resolve') return { status: 'resolved', resolved_in_release: action.release ?? null };
  return { status: action.action === 'ignore' ? 'ignored' : 'unresolved', resolved_in_release: null };
}

const postAction = (org: string, project: string, id: string, action: IssueAction) =>
  api.post<Issue>(
    `${projectPath(org, project)}/issues/${encodeURIComponent(id)}/${action.action}`,
    action.action === 'resolve' && action.release ? { release: action.release } : {},
  );

/**
 * Every cached issue row of these issues (in the issue page and in each list tab) takes its new status at once; a
 * list tab whose status it no longer has drops it. Answers a function that puts the cache back.
 */
function applyOptimistically(client: QueryClient, org: string, project: string, ids: Set<string>, action: IssueAction): () => void {
  const next = statusAfter(action);
  const saved = client.getQueriesData<TimedAnswer>({ queryKey: gqlPrefix(org, project) });
  for (const [key, timed] of saved) {
    const answer = timed?.answer;
    if (!answer || answer.query.source !== 'issues') continue;
    const tabStatus = answer.query.filters.find((filter) => filter.field === 'status' && filter.op === '=')?.value;
    const results = answer.data.results
      .map((row) => (ids.has(String(row['id'])) ? { ...row, ...next } : row))
      .filter((row) => !(ids.has(String(row['id'])) && typeof tabStatus === 'string' && tabStatus !== next.status));
    client.setQueryData<TimedAnswer>(key, { ...timed, answer: { ...answer, data: { ...answer.data, results, total_groups: results.length } } });
  }
  return () => saved.forEach(([key, answer]) => client.setQueryData(key, answer));
}

/**
 * Resolves, ignores or unresolves issues: the status changes on screen at once, and every GQL answer of the project
 * is asked again once the server has answered (issue counts, tabs, the explorer).
 */
export function useIssueAction(org: string, project: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ ids, action }: { ids: string[]; action: IssueAction }) => Promise.all(ids.map((id) => postAction(org, project, id, action))),
    onMutate: async ({ ids, action }) => {
      await client.cancelQueries({ queryKey: gqlPrefix(org, project) });
      return { restore: applyOptimistically(client, org, project, new Set(ids), action) };
    },
    onError: (_error, _variables, context) => context?.restore(),
    onSettled: () => client.invalidateQueries({ queryKey: gqlPrefix(org, project) }),
  });
}

/** How many spans the project holds of a trace (an error's `trace_id`): 0 when the trace's spans never arrived. */
export function useTraceSpanCount(org: string, project: string, traceId: string | null) {
  const answer = useGql(org, project, `from:spans trace_id:${gqlValue(traceId ?? '')} | count`, { enabled: Boolean(traceId) });
  const value = answer.rows?.[0]?.['value'];
  return typeof value === 'number' ? value : undefined;
}
