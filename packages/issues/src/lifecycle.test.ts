import type { IssueStateRow } from '@tlm/metadata-store';
import { countEvents, statusAfterAction, statusAfterError } from './lifecycle';

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

describe('countEvents', () => {
  it('starts a new issue from its events: first and last seen, first and last release, the newest level', () => {
    const counted = countEvents(issue(), [
      { timestamp: T0 + 5, release: 'web@2', level: 'fatal' },
      { timestamp: T0 - 5, release: 'web@1', level: 'warning' },
      { timestamp: T0, release: null, level: 'error' },
    ], 2);
    expect(counted).toEqual({
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

  it('leaves release_last and the level alone for an event older than last_seen', () => {
    const counted = countEvents(issue({ event_count: 4, user_count: 1, release_first: 'web@1', release_last: 'web@3', level: 'error' }), [
      { timestamp: T0 - 1_000, release: 'web@2', level: 'debug' },
    ], 0);
    expect(counted).toMatchObject({ eventCount: 5, userCount: 1, level: 'error', releaseFirst: 'web@1', releaseLast: 'web@3', firstSeen: T0 - 1_000, lastSeen: T0 });
  });

  it('regresses a resolved issue once any event of another release arrives', () => {
    const resolved = issue({ event_count: 1, status: 'resolved', resolved_in_release: 'web@1' });
    expect(countEvents(resolved, [{ timestamp: T0, release: 'web@1', level: 'error' }], 0).status).toBe('resolved');
    expect(countEvents(resolved, [{ timestamp: T0, release: 'web@1', level: 'error' }, { timestamp: T0, release: 'web@2', level: 'error' }], 0).status).toBe('regressed');
  });
});
