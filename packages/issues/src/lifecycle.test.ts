import type { IssueStateRow } from '@tlm/metadata-store';
import { countTally, IssueTally, statusAfterAction, statusAfterError, type CountableError } from './lifecycle';

const T0 = Date.parse('2026-05-01T12:00:00.000Z');

const issue = (overrides: Partial<IssueStateRow> = {}): IssueStateRow => ({
  id: 'issue',
  project_id: 'project',
  fingerprint: 'f'.repeat(32),
  short_id: 1,
  title: 'TypeError: x',
  culprit: 'f in a.ts',
  status: 'unresolved',
  level: 'error',
  event_count: 0,
  user_count: 0,
  first_seen: new Date(T0),
  last_seen: new Date(T0),
  release_first: null,
  release_last: null,
  resolved_in_release: null,
  status_changed_at: null,
  created_at: new Date(T0),
  updated_at: new Date(T0),
  ...overrides,
});

describe('statusAfterError (SPEC.md Issue status)', () => {
  it.each([
    ['resolved', 'web@1', 'web@2', 'regressed'],
    ['resolved', 'web@1', 'web@1', 'resolved'],
    ['resolved', 'web@1', null, 'regressed'],
    ['resolved', null, 'web@1', 'regressed'],
    ['resolved', null, null, 'regressed'],
    ['unresolved', null, 'web@1', 'unresolved'],
    ['ignored', null, 'web@1', 'ignored'],
    ['regressed', 'web@1', 'web@3', 'regressed'],
  ] as const)('%s in %s, an error from %s → %s', (status, resolvedIn, release, expected) => {
    expect(statusAfterError(status, resolvedIn, release)).toBe(expected);
  });
});

describe('statusAfterAction', () => {
  it('resolves with or without a release, ignores and unresolves from any status', () => {
    expect(statusAfterAction({ action: 'resolve', release: 'web@1' })).toEqual({ status: 'resolved', resolvedInRelease: 'web@1' });
    expect(statusAfterAction({ action: 'resolve', release: null })).toEqual({ status: 'resolved', resolvedInRelease: null });
    expect(statusAfterAction({ action: 'ignore' })).toEqual({ status: 'ignored', resolvedInRelease: null });
    expect(statusAfterAction({ action: 'unresolve' })).toEqual({ status: 'unresolved', resolvedInRelease: null });
  });
});

const error = (overrides: Partial<CountableError> = {}): CountableError => ({
  projectId: 'project',
  issueId: 'issue',
  fingerprint: 'f'.repeat(32),
  title: 'TypeError: x',
  culprit: 'f in a.ts',
  level: 'error',
  timestamp: T0,
  receivedAt: T0,
  release: null,
  userKey: null,
  ...overrides,
});

function tallyOf(...errors: CountableError[]): IssueTally {
  const tally = new IssueTally(errors[0]!);
  for (const next of errors.slice(1)) tally.add(next);
  return tally;
}

describe('countTally', () => {
  it('starts a new issue from its errors: first and last seen, first and last release, the newest level', () => {
    const tally = tallyOf(
      error({ timestamp: T0 + 5, release: 'web@2', level: 'fatal', userKey: 'id:a' }),
      error({ timestamp: T0 - 5, release: 'web@1', level: 'warning', userKey: 'id:b', title: 'TypeError: first' }),
      error({ timestamp: T0, release: null, level: 'error', userKey: 'id:a' }),
    );
    expect(tally.first.title).toBe('TypeError: first');
    expect([...tally.users]).toEqual(['id:a', 'id:b']);
    expect(countTally(issue(), tally, 2)).toEqual({
      id: 'issue',
      status: 'unresolved',
      level: 'fatal',
      eventCount: 3,
      userCount: 2,
      firstSeen: T0 - 5,
      lastSeen: T0 + 5,
      releaseFirst: 'web@1',
      releaseLast: 'web@2',
    });
  });

  it('leaves release_last and the level alone for an error older than last_seen; one older than first_seen names release_first', () => {
    const counted = countTally(
      issue({ event_count: 4, user_count: 1, release_first: 'web@1', release_last: 'web@3', level: 'error' }),
      tallyOf(error({ timestamp: T0 - 1_000, release: 'web@2', level: 'debug' })),
      0,
    );
    // A late upload of an error from before the first one seen: first_seen moves back, and release_first with it.
    expect(counted).toMatchObject({ eventCount: 5, userCount: 1, level: 'error', releaseFirst: 'web@2', releaseLast: 'web@3', firstSeen: T0 - 1_000, lastSeen: T0 });
    const between = countTally(
      issue({ event_count: 4, first_seen: new Date(T0 - 5_000), release_first: 'web@1', release_last: 'web@3' }),
      tallyOf(error({ timestamp: T0 - 1_000, release: 'web@2' })),
      0,
    );
    expect(between).toMatchObject({ releaseFirst: 'web@1', firstSeen: T0 - 5_000 });
  });

  it('takes release_last from the newest error naming a release, even when a newer one names none', () => {
    const counted = countTally(
      issue({ event_count: 1, release_first: 'web@1', release_last: 'web@1' }),
      tallyOf(error({ timestamp: T0 + 1, release: 'web@2', level: 'warning' }), error({ timestamp: T0 + 2, release: null, level: 'fatal' })),
      0,
    );
    expect(counted).toMatchObject({ level: 'fatal', releaseLast: 'web@2', lastSeen: T0 + 2 });
  });

  it('keeps the order errors were added in among equal timestamps', () => {
    const tally = tallyOf(error({ level: 'warning', release: 'web@1', title: 'A' }), error({ level: 'fatal', release: 'web@2', title: 'B' }));
    expect(tally.first.title).toBe('A');
    expect(countTally(issue(), tally, 0)).toMatchObject({ level: 'fatal', releaseFirst: 'web@1', releaseLast: 'web@2' });
  });

  it('regresses a resolved issue once an error of another release is received after it was resolved', () => {
    const resolved = issue({ event_count: 1, status: 'resolved', resolved_in_release: 'web@1', status_changed_at: new Date(T0) });
    expect(countTally(resolved, tallyOf(error({ release: 'web@1', receivedAt: T0 + 1 })), 0).status).toBe('resolved');
    expect(countTally(resolved, tallyOf(error({ release: 'web@1', receivedAt: T0 + 1 }), error({ release: 'web@2', receivedAt: T0 + 1 })), 0).status).toBe(
      'regressed',
    );
  });

  it('does not regress a resolved issue on errors received before it was resolved', () => {
    const resolved = issue({ event_count: 1, status: 'resolved', resolved_in_release: 'web@1', status_changed_at: new Date(T0) });
    expect(countTally(resolved, tallyOf(error({ release: 'web@2', receivedAt: T0 - 1 }), error({ release: null, receivedAt: T0 })), 0).status).toBe(
      'resolved',
    );
  });
});

describe('IssueTally.merge', () => {
  it('adds a later tally as if its errors had been added one by one after the earlier ones', () => {
    const one = [
      error({ timestamp: T0, release: 'web@1', level: 'warning', userKey: 'id:a', receivedAt: T0 + 10, title: 'first' }),
      error({ timestamp: T0 + 3, level: 'error', receivedAt: T0 + 11 }),
    ];
    const two = [
      error({ timestamp: T0 + 3, release: 'web@2', level: 'fatal', userKey: 'id:b', receivedAt: T0 + 12 }),
      error({ timestamp: T0, release: 'web@0', userKey: 'id:a', receivedAt: T0 + 13, title: 'second' }),
    ];
    const merged = tallyOf(...one);
    merged.merge(tallyOf(...two));
    const added = tallyOf(...one, ...two);
    expect(merged).toEqual(added);
    expect(merged.first.title).toBe('first');
    expect(countTally(issue(), merged, 2)).toEqual(countTally(issue(), added, 2));
    expect(countTally(issue(), merged, 2)).toMatchObject({ eventCount: 4, level: 'fatal', releaseFirst: 'web@1', releaseLast: 'web@2' });
  });
});
