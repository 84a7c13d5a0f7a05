import { emit } from './emit';
import { GqlQueryError, GqlSyntaxError } from './errors';
import { compileQuery } from './plan';

const guard = { projectId: '0190a0e0-0000-7000-8000-00000000000a', retentionDays: 30, now: new Date('2024-05-10T12:00:00.000Z') };

/** Compiles for DuckDB and returns the 422 error it raises. */
function queryError(text: string): GqlQueryError {
  try {
    emit(compileQuery(text).plan, 'duckdb', guard);
  } catch (error) {
    if (error instanceof GqlQueryError) return error;
    throw error;
  }
  throw new Error(`${text} compiled`);
}

describe('planning: well-formed queries that cannot run are query errors (422)', () => {
  it.each([
    ['from:traces', "unknown source 'traces' (sources: logs, events, errors, issues, alerts, alert_events, spans, vitals, sessions) at column 6"],
    [
      'from:alerts owner:bob',
      "unknown field 'owner' on alerts (fields: id, name, metric, threshold, comparator, window_minutes, severity, enabled, muted_until, created_at, updated_at) at column 13",
    ],
    // The tombstone flag is the source's own filter, not a field: deleted rules never show.
    [
      'from:alerts deleted:true',
      "unknown field 'deleted' on alerts (fields: id, name, metric, threshold, comparator, window_minutes, severity, enabled, muted_until, created_at, updated_at) at column 13",
    ],
    ['avg(severity)', 'avg() needs a numeric field; severity holds text at column 5'],
    ['from:issues | p95(first_seen)', 'p95() needs a numeric field; first_seen holds timestamps at column 19'],
    ['from:alerts | last 1h', 'alerts has no time column; remove the time range at column 15'],
    ['from:alerts | count by time(1h)', 'alerts has no time column to bucket by at column 24'],
    ['limit 0', 'a limit is a whole number from 1 to 10000, not 0 at column 7'],
    ['top 10001', 'a limit is a whole number from 1 to 10000, not 10001 at column 5'],
    ['limit 2.5', 'a limit is a whole number from 1 to 10000, not 2.5 at column 7'],
    ['last:0h', 'a duration must be greater than zero, not 0h at column 6'],
    ['from:issues event_count:many', "event_count holds numbers; 'many' is not a number at column 25"],
    ['from:alerts enabled:maybe', "enabled is true or false, not 'maybe' at column 21"],
    ['timestamp > yesterday', "timestamp holds times; 'yesterday' is not an ISO 8601 date or time at column 13"],
    ['since:2024-02-30', "since: needs an ISO 8601 date or time, not '2024-02-30' at column 7"],
    ['id:not-a-uuid', "id holds UUIDs; 'not-a-uuid' is not one at column 4"],
    ['properties:pro', "'properties' is a property bag; name one of its keys, e.g. properties.plan, at column 1"],
    ['from:errors frames:x', 'frames holds JSON documents and cannot be compared at column 13'],
    ['fields message | count', "'fields' chooses the columns of a search; an aggregate returns its groups and value at column 1"],
    ['count by route | sort severity', 'an aggregate sorts by value or by one of its groups, not severity at column 23'],
    ['severity:[a] | count by time(5m), time(1m)', 'a query has one time bucket at column 35'],
    ['count by time(99999999999w)', 'a time bucket is at most 366 days, not 99999999999w at column 15'],
    ['severity:error message:x*', undefined],
  ])('%s', (text, message) => {
    if (message === undefined) {
      expect(() => emit(compileQuery(text).plan, 'duckdb', guard)).not.toThrow();
      return;
    }
    const error = queryError(text);
    expect(error.message).toBe(message);
  });

  it('refuses a time series with more buckets than allowed over its range', () => {
    expect(queryError('count by time(1s) | last 30d').message).toBe(
      'time(1s) makes 2592000 buckets over the time range; at most 10000 are allowed, so choose a longer interval or a shorter range',
    );
    // Without a range, the retention window is the range.
    expect(queryError('count by time(1m)').message).toMatch(/^time\(1m\) makes 43200 buckets/);
    expect(() => emit(compileQuery('count by time(5m)').plan, 'duckdb', { ...guard, retentionDays: 3 })).not.toThrow();
  });

  it('refuses a list longer than 1000 values', () => {
    const values = Array.from({ length: 1001 }, (_, index) => index).join(',');
    expect(queryError(`code:[${values}]`).message).toBe('a list holds at most 1000 values; this one has 1001 at column 1');
  });

  it('keeps positions for the dashboard to underline', () => {
    expect(queryError('from:logs\n| avg(message)').position).toEqual({ offset: 16, line: 2, column: 7 });
  });
});

describe('planning: names', () => {
  const where = (text: string) => emit(compileQuery(text).plan, 'duckdb', guard);

  it('resolves aliases, columns, bag.key paths and bare names to the default bag', () => {
    expect(where('level:error').params).toMatchObject({ p1: 'error' });
    expect(where('level:error').sql).toContain('severity = $p1');
    expect(where('from:events event:signup').sql).toContain('event_name = $p1');
    expect(where('from:errors message:boom').sql).toContain('value = $p1');
    // properties.user.plan, user.plan and "user.plan" name one flat key.
    for (const text of ['properties.user.plan:pro', 'user.plan:pro', '"user.plan":pro']) {
      expect(where(text).params).toMatchObject({ p1: '/user.plan', p2: 'pro' });
    }
    expect(where('from:errors browser:Chrome').sql).toContain('json_extract_string(tags, $p1) = $p2');
    expect(where('from:errors user.email:a@b.c').sql).toContain('json_extract_string(user, $p1) = $p2');
  });

  it('binds property keys with any characters as JSON pointers, never as SQL', () => {
    const compiled = where(`"a'b\\"c/d~e*":1 "x) OR 1=1 --":y`);
    expect(compiled.params).toMatchObject({ p1: `/a'b"c~1d~0e*`, p3: '/x) OR 1=1 --', p4: 'y' });
    expect(compiled.sql).not.toContain('1=1');
  });
});

describe('compiled texts are remembered', () => {
  it('answers the same frozen compile for the same text, and emits it anew for each guard', () => {
    const text = 'from:logs severity:error | count by route | last:2h';
    const first = compileQuery(text);
    expect(compileQuery(text)).toBe(first);
    expect(() => {
      (first.plan as { limit: number }).limit = 5;
    }).toThrow(TypeError);
    expect(() => {
      (first.query.filters as unknown[]).push('x');
    }).toThrow(TypeError);
    const later = { ...guard, now: new Date('2024-05-10T13:00:00.000Z') };
    expect(emit(first.plan, 'duckdb', guard).params['since']).toBe('2024-05-10 10:00:00.000');
    expect(emit(compileQuery(text).plan, 'duckdb', later).params['since']).toBe('2024-05-10 11:00:00.000');
  });

  it('throws for a faulty text every time', () => {
    expect(() => compileQuery('count by')).toThrow(GqlSyntaxError);
    expect(() => compileQuery('count by')).toThrow(GqlSyntaxError);
    expect(() => compileQuery('from:traces')).toThrow(GqlQueryError);
    expect(() => compileQuery('from:traces')).toThrow(GqlQueryError);
  });

  it('keeps the 256 texts used last', () => {
    const oldest = compileQuery('from:logs | count | last:3h');
    const kept = compileQuery('from:logs | count | last:4h');
    for (let n = 1; n <= 256; n++) {
      compileQuery(`from:logs | count | last:${n}m`);
      if (n % 100 === 0) compileQuery('from:logs | count | last:4h');
    }
    expect(compileQuery('from:logs | count | last:4h')).toBe(kept);
    expect(compileQuery('from:logs | count | last:3h')).not.toBe(oldest);
    expect(compileQuery('from:logs | count | last:3h')).toEqual(oldest);
  });
});
