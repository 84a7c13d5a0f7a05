import type { IssueCounts, IssueStateRow, IssueStatus } from '@tlm/metadata-store';

/**
 * SPEC.md "Issue status" for an arriving error: a resolved issue regresses when the error's release differs from the
 * release it was resolved in. Resolved without a release means "fixed, whatever is deployed", so any error regresses
 * it. Every other status stays: ignored issues stay ignored, regressed ones stay regressed.
 */
export function statusAfterError(status: IssueStatus, resolvedInRelease: string | null, release: string | null): IssueStatus {
  if (status !== 'resolved') return status;
  return resolvedInRelease !== null && release === resolvedInRelease ? 'resolved' : 'regressed';
}

export type IssueAction = { action: 'resolve'; release: string | null } | { action: 'ignore' } | { action: 'unresolve' };

/** SPEC.md "Issue status" for a person's action, allowed from any status; only resolve records a release. */
export function statusAfterAction(action: IssueAction): { status: IssueStatus; resolvedInRelease: string | null } {
  switch (action.action) {
    case 'resolve':
      return { status: 'resolved', resolvedInRelease: action.release };
    case 'ignore':
      return { status: 'ignored', resolvedInRelease: null };
    case 'unresolve':
      return { status: 'unresolved', resolvedInRelease: null };
  }
}

/** What a newly counted event contributes to its issue. */
export interface CountedEvent {
  /** Epoch milliseconds. */
  timestamp: number;
  release: string | null;
  level: string;
}

/**
 * The issue after `events` (newly recorded, any order) and `newUsers` users it had not seen. Times are the events'
 * own; the level and `release_last` follow the newest event, `release_first` is the first release ever seen.
 */
export function countEvents(issue: IssueStateRow, events: readonly CountedEvent[], newUsers: number): IssueCounts {
  const ordered = [...events].sort((a, b) => a.timestamp - b.timestamp);
  let status = issue.status;
  let firstSeen = issue.event_count === 0 ? Number.POSITIVE_INFINITY : issue.first_seen.getTime();
  let lastSeen = issue.event_count === 0 ? Number.NEGATIVE_INFINITY : issue.last_seen.getTime();
  let level = issue.level;
  let releaseFirst = issue.release_first;
  let releaseLast = issue.release_last;
  for (const event of ordered) {
    status = statusAfterError(status, issue.resolved_in_release, event.release);
    firstSeen = Math.min(firstSeen, event.timestamp);
    if (event.timestamp >= lastSeen) {
      lastSeen = event.timestamp;
      level = event.level;
      if (event.release !== null) releaseLast = event.release;
    }
    if (releaseFirst === null && event.release !== null) releaseFirst = event.release;
  }
  return {
    id: issue.id,
    status,
    level,
    eventCount: issue.event_count + events.length,
    userCount: issue.user_count + newUsers,
    firstSeen: Number.isFinite(firstSeen) ? firstSeen : issue.first_seen.getTime(),
    lastSeen: Number.isFinite(lastSeen) ? lastSeen : issue.last_seen.getTime(),
    releaseFirst,
    releaseLast,
  };
}
