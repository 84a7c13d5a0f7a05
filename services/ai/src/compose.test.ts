import type { QueryAnswer } from '@tlm/gql';
import { composeReply } from './compose';

const answer = (mode: 'aggregate' | 'search', results: Record<string, unknown>[]) => ({ data: { mode, results } }) as unknown as QueryAnswer;

describe('composeReply', () => {
  it('says an empty group as (empty) and a time bucket in the asker\'s time zone', () => {
    const groups = answer('aggregate', [
      { type: 'TypeError', value: 14 },
      { type: '', value: 1 },
    ]);
    expect(composeReply('from:errors | count by type', groups)).toBe('type TypeError: 14; type (empty): 1 (from:errors | count by type).');
    const buckets = answer('aggregate', [{ time: '2026-12-01T10:00:00.000Z', value: 3 }]);
    expect(composeReply('q', buckets, 'Asia/Kathmandu')).toBe('time Dec 1, 2026, 15:45 GMT+5:45: 3 (q).');
    expect(composeReply('q', buckets)).toBe('time Dec 1, 2026, 10:00 UTC: 3 (q).');
  });

  it("says the latest row's time with its seconds when it has them", () => {
    const rows = answer('search', [{ message: 'card declined', timestamp: '2026-12-01T10:00:05.120Z' }]);
    expect(composeReply('q', rows, 'Europe/Berlin')).toBe('Found 1 matching rows; the latest: "card declined" at Dec 1, 2026, 11:00:05 GMT+1 (q).');
  });
});
