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

/** What counting needs of one stored error: taken from the grouped error, or read back from its row. */
export interface CountableError {
  projectId: string;
  issueId: string;
  /** The fingerprint's hash. */
  fingerprint: string;
  title: string;
  culprit: string;
  level: string;
  /** Epoch milliseconds: when it happened (client time). */
  timestamp: number;
  /** Epoch milliseconds: when the service received it (server time). */
  receivedAt: number;
  release: string | null;
  /** Who it happened to (userKeyOf); null when it names nobody. */
  userKey: string | null;
}

/**
 * What errors not yet counted add to one issue, gathered as they are stored: enough to count them as if one by one
 * in time order (countTally), in memory that grows with the issue's distinct users and releases, not its events.
 * Equal timestamps keep the order the errors were added in.
 */
export class IssueTally {
  events = 0;
  /** The earliest error: a new issue takes its title, culprit and level from it. */
  first: CountableError;
  /** The newest error: the issue's level follows it. */
  newest: CountableError;
  /** The newest and the earliest error that names a release. */
  newestRelease: CountableError | undefined;
  earliestRelease: CountableError | undefined;
  /** Per release (null: none named), when the last error of it was received: what regression asks of the tally. */
  readonly releases = new Map<string | null, number>();
  readonly users = new Set<string>();

  constructor(error: CountableError) {
    this.first = error;
    this.newest = error;
    this.add(error);
  }

  add(error: CountableError): void {
    this.events += 1;
    if (error.timestamp < this.first.timestamp) this.first = error;
    if (error.timestamp >= this.newest.timestamp) this.newest = error;
    if (error.release !== null) {
      if (!this.newestRelease || error.timestamp >= this.newestRelease.timestamp) this.newestRelease = error;
      if (!this.earliestRelease || error.timestamp < this.earliestRelease.timestamp) this.earliestRelease = error;
    }
    const received = this.releases.get(error.release);
    if (received === undefined || error.receivedAt > received) this.releases.set(error.release, error.receivedAt);
    if (error.userKey !== null) this.users.add(error.userKey);
  }

  /** Adds the tally of errors added after this tally's own (a failed count going back in front of newer errors). */
  merge(later: IssueTally): void {
    this.events += later.events;
    if (later.first.timestamp < this.first.timestamp) this.first = later.first;
    if (later.newest.timestamp >= this.newest.timestamp) this.newest = later.newest;
    const { newestRelease, earliestRelease } = later;
    if (newestRelease && (!this.newestRelease || newestRelease.timestamp >= this.newestRelease.timestamp)) this.newestRelease = newestRelease;
    if (earliestRelease && (!this.earliestRelease || earliestRelease.timestamp < this.earliestRelease.timestamp)) this.earliestRelease = earliestRelease;
    for (const [release, received] of later.releases) {
      if (received > (this.releases.get(release) ?? Number.NEGATIVE_INFINITY)) this.releases.set(release, received);
    }
    for (const user of later.users) this.users.add(user);
  }
}

/**
 * The issue after the errors of `tally` and `newUsers` users it had not seen, as if they had been counted one by one in
 * time order. Times are the errors' own; the level and `release_last` follow the newest error unless the issue has seen
 * newer, `release_first` is the release of the first error that named one, or of a later error dated before all the
 * issue had seen. A resolved issue regresses on an error of another release received after it was resolved; one
 * already on its way when a person resolved it does not reopen it.
 */
export function countTally(issue: IssueStateRow, tally: IssueTally, newUsers: number): IssueCounts {
  const counted = issue.event_count > 0;
  const lastSeen = issue.last_seen.getTime();
  const newer = !counted || tally.newest.timestamp >= lastSeen;
  const newerRelease = tally.newestRelease && (!counted || tally.newestRelease.timestamp >= lastSeen) ? tally.newestRelease.release : null;
  const changedAt = issue.status_changed_at?.getTime() ?? Number.NEGATIVE_INFINITY;
  let status = issue.status;
  for (const [release, received] of tally.releases) {
    if (received > changedAt) status = statusAfterError(status, issue.resolved_in_release, release);
  }
  return {
    id: issue.id,
    status,
    level: newer ? tally.newest.level : issue.level,
    eventCount: issue.event_count + tally.events,
    userCount: issue.user_count + newUsers,
    firstSeen: counted ? Math.min(issue.first_seen.getTime(), tally.first.timestamp) : tally.first.timestamp,
    lastSeen: newer ? tally.newest.timestamp : lastSeen,
    // An error dated before everything the issue has seen (a late upload) names the first release, if it names one.
    releaseFirst:
      counted && tally.earliestRelease && tally.earliestRelease.timestamp < issue.first_seen.getTime()
        ? tally.earliestRelease.release
        : (issue.release_first ?? tally.earliestRelease?.release ?? null),
    releaseLast: newerRelease ?? issue.release_last,
  };
}
