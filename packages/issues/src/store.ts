import { issuesTable, type AnalyticsStore, type IssueRow } from '@tlm/analytics-store';
import { removeIssueUser, setIssueStatus, type IssueStateRow, type MetadataStore } from '@tlm/metadata-store';
import { statusAfterAction, type IssueAction } from './lifecycle';

export interface IssueStores {
  metadata: MetadataStore;
  analytics: AnalyticsStore;
}

/** A person's action on an issue (SPEC.md Issue status); undefined when the project has no such issue. */
export async function applyIssueAction(
  stores: IssueStores,
  projectId: string,
  issueId: string,
  action: IssueAction,
): Promise<IssueStateRow | undefined> {
  const next = statusAfterAction(action);
  const issue = await setIssueStatus(stores.metadata, projectId, issueId, next.status, next.resolvedInRelease);
  if (issue) await writeIssueSnapshots(stores.analytics, [issue]);
  return issue;
}

/**
 * GDPR erasure of a person from the issues: the user whose id is `distinctId` (error rows name users by `user.id`)
 * is no longer counted in any issue of the project; returns how many issues counted them.
 */
export async function forgetIssueUser(stores: IssueStores, projectId: string, distinctId: string): Promise<number> {
  const issues = await stores.metadata.transaction((tx) => removeIssueUser(tx, projectId, `id:${distinctId}`));
  await writeIssueSnapshots(stores.analytics, issues);
  return issues.length;
}

/** Writes the analytics snapshots of issues as stored; with none, the store is not called. */
export async function writeIssueSnapshots(analytics: AnalyticsStore, issues: readonly IssueStateRow[]): Promise<void> {
  if (issues.length > 0) await analytics.insert(issuesTable, issues.map(issueSnapshot));
}

/** The analytics snapshot of an issue; `updated_at` orders snapshots, so the newest wins wherever they race. */
export function issueSnapshot(issue: IssueStateRow): IssueRow {
  return {
    project_id: issue.project_id,
    id: issue.id,
    short_id: Number(issue.short_id),
    title: issue.title,
    culprit: issue.culprit,
    fingerprint: issue.fingerprint,
    status: issue.status,
    level: issue.level,
    event_count: Number(issue.event_count),
    user_count: Number(issue.user_count),
    first_seen: issue.first_seen.getTime(),
    last_seen: issue.last_seen.getTime(),
    release_first: issue.release_first,
    release_last: issue.release_last,
    resolved_in_release: issue.resolved_in_release,
    updated_at: issue.updated_at.getTime(),
  };
}
