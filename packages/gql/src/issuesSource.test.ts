import { emit } from './emit';
import { compileQuery } from './plan';
import { findSource } from './sources';

const guard = { projectId: '0190a0e0-0000-7000-8000-00000000000a', retentionDays: 30, now: new Date('2024-05-10T12:00:00.000Z') };
const duckdb = (text: string) => emit(compileQuery(text).plan, 'duckdb', guard);

describe('from:issues hides ignored issues unless the query filters on status', () => {
  it.each(['from:issues', 'from:issues | last:7d', 'from:issues "checkout"', 'from:issues level:fatal | count by release_last'])(
    '%s leaves ignored issues out',
    (text) => {
      const { sql, params } = duckdb(text);
      expect(sql).toMatch(/AND status != \$p\d+/);
      expect(Object.values(params)).toContain('ignored');
    },
  );

  it.each(['from:issues status:ignored', 'from:issues status:unresolved', 'from:issues NOT status:resolved', 'from:issues (level:error OR status:ignored)'])(
    '%s shows what its status condition selects',
    (text) => {
      const where = duckdb(text).sql.split(' WHERE ')[1]!;
      expect(where.match(/status/g)).toHaveLength(1);
    },
  );

  it('leaves other sources alone', () => {
    expect(duckdb('from:errors').sql).not.toMatch(/status/);
  });
});

describe('the errors and issues sources', () => {
  it('expose the fields of stored errors and of issues', () => {
    const errors = findSource('errors')!;
    for (const column of ['id', 'timestamp', 'fingerprint_hash', 'issue_id', 'type', 'value', 'level', 'release', 'environment', 'trace_id', 'frames', 'breadcrumbs', 'source']) {
      expect(errors.columns.has(column)).toBe(true);
    }
    for (const bag of ['tags', 'user', 'extra']) expect(errors.bags.has(bag)).toBe(true);
    const issues = findSource('issues')!;
    for (const column of ['id', 'short_id', 'title', 'culprit', 'fingerprint', 'status', 'level', 'event_count', 'user_count', 'first_seen', 'last_seen', 'release_first', 'release_last', 'resolved_in_release']) {
      expect(issues.columns.has(column)).toBe(true);
    }
  });
});
