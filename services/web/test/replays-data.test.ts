import { traceReplayId } from '../src/pages/traces/traces';
import {
  clickMarks,
  errorCountsOf,
  errorClock,
  errorCountsQueries,
  errorMarks,
  formatClock,
  recordedEvents,
  replayDurationMs,
  replayErrorsQuery,
  type ReplayError,
} from '../src/pages/replays/replays';

const START = Date.parse('2026-11-27T10:00:00.000Z');
const error = (timestamp: string): ReplayError => ({ timestamp, id: timestamp, issue_id: 'i-1', type: 'TypeError', value: 'x', level: 'error' });

describe('replay data', () => {
  it('reads Sentry custom events timed in seconds as milliseconds, and drops entries without a time', () => {
    const events = recordedEvents([
      { type: 4, timestamp: START, data: { href: 'https://shop.example/', width: 1000, height: 640 } },
      { type: 5, timestamp: START / 1000 + 1.5, data: { tag: 'breadcrumb' } },
      { type: 3, timestamp: 'later', data: {} },
      null,
      { type: 3, timestamp: START + 2_000, data: { source: 2, type: 2 } },
    ]);
    expect(events.map((event) => event.timestamp - START)).toEqual([0, 1_500, 2_000]);
    expect(() => recordedEvents({ events: [] })).toThrow('the chunk is not a JSON array of rrweb events');
  });

  it('marks rrweb clicks, not other mouse interactions, at their offset from the start', () => {
    const marks = clickMarks(
      [
        { type: 3, timestamp: START + 1_000, data: { source: 2, type: 2 } },
        { type: 3, timestamp: START + 1_100, data: { source: 2, type: 1 } },
        { type: 3, timestamp: START + 1_200, data: { source: 1 } },
        { type: 2, timestamp: START, data: {} },
        { type: 3, timestamp: START + 4_000, data: { source: 2, type: 2 } },
      ],
      START,
    );
    expect(marks).toEqual([
      { kind: 'click', offsetMs: 1_000, label: 'Click' },
      { kind: 'click', offsetMs: 4_000, label: 'Click' },
    ]);
  });

  it('marks errors within the replay: one before its first event at 0, one after its last at the end', () => {
    const marks = errorMarks([error('2026-11-27T09:59:59.000Z'), error('2026-11-27T10:00:03.250Z'), error('2026-11-27T10:01:00.000Z')], START, 10_000);
    expect(marks.map((mark) => mark.offsetMs)).toEqual([0, 3_250, 10_000]);
    expect(marks[1]).toEqual({ kind: 'error', offsetMs: 3_250, label: 'TypeError: x', issueId: 'i-1' });
  });

  it('says of an error after the recording ended when it came, its mark and its seek at the end', () => {
    const [mark] = errorMarks([error('2026-11-27T10:40:00.000Z')], START, 4_000);
    expect(mark).toEqual({ kind: 'error', offsetMs: 4_000, label: 'at 40:00, after the recording ends: TypeError: x', issueId: 'i-1' });
    expect(errorClock('2026-11-27T10:40:00.000Z', START, 4_000)).toEqual({ offsetMs: 4_000, text: '40:00, after the recording ends', after: true });
    expect(errorClock('2026-11-27T10:00:03.250Z', START, 4_000)).toEqual({ offsetMs: 3_250, text: '0:03', after: false });
    // While chunks still load, the recording may yet reach it.
    expect(errorClock('2026-11-27T10:40:00.000Z', START, 4_000, false)).toEqual({ offsetMs: 4_000, text: '40:00', after: false });
    expect(errorMarks([error('2026-11-27T10:40:00.000Z')], START, 4_000, false)[0]!.label).toBe('TypeError: x');
  });

  it('counts errors per replay by the tag and by the context, taking the larger count of the two', () => {
    const [byTag, byContext] = errorCountsQueries(['r-1', 'r "2"'], '2026-11-27T09:00:00.000Z');
    expect(byTag).toBe('from:errors tags.replayId in ["r-1", "r \\"2\\""] since:"2026-11-27T09:00:00.000Z" | count by tags.replayId | limit 2');
    expect(byContext).toBe(
      'from:errors extra.contexts.replay.replay_id in ["r-1", "r \\"2\\""] since:"2026-11-27T09:00:00.000Z" | count by extra.contexts.replay.replay_id | limit 2',
    );
    const counts = errorCountsOf([
      [{ 'tags.replayId': 'r-1', value: 2 }, { 'tags.replayId': null, value: 9 }],
      [{ 'extra.contexts.replay.replay_id': 'r-1', value: 3 }, { 'extra.contexts.replay.replay_id': 'r-3', value: 1 }],
    ]);
    expect([...counts]).toEqual([
      ['r-1', 3],
      ['r-3', 1],
    ]);
  });

  it("reads a replay's errors by either field from a minute before its start", () => {
    expect(replayErrorsQuery('r-1', '2026-11-27T10:00:00.000Z')).toBe(
      'from:errors (tags.replayId:"r-1" or extra.contexts.replay.replay_id:"r-1") since:"2026-11-27T09:59:00.000Z" | sort timestamp asc | fields timestamp, id, issue_id, type, value, level | limit 100',
    );
    expect(replayErrorsQuery('r-1', null)).not.toContain('since');
  });

  it('gives a duration only when both ends are known, and a clock of minutes and hours', () => {
    expect(replayDurationMs({ started_at: '2026-11-27T10:00:00.000Z', ended_at: '2026-11-27T10:01:05.500Z' })).toBe(65_500);
    expect(replayDurationMs({ started_at: '2026-11-27T10:00:00.000Z', ended_at: null })).toBeNull();
    expect(replayDurationMs({ started_at: '2026-11-27T10:00:00.000Z', ended_at: '2026-11-27T09:00:00.000Z' })).toBeNull();
    expect([formatClock(0), formatClock(65_500), formatClock(3_723_000)]).toEqual(['0:00', '1:05', '1:02:03']);
  });

  it("finds a trace's replay in its spans' attributes first, else in its errors", () => {
    const errors = [{ 'tags.replayId': null }, { 'extra.contexts.replay.replay_id': 'r-err' }];
    expect(traceReplayId([{ attributes: { 'sentry.replay_id': 'r-span' } }], errors)).toBe('r-span');
    expect(traceReplayId([{ attributes: {} }, { attributes: null }], errors)).toBe('r-err');
    expect(traceReplayId([], [{ 'tags.replayId': '' }])).toBeNull();
  });
});
