import { GqlQueryError, GqlSyntaxError } from './errors';
import { MAX_NESTING, MAX_QUERY_LENGTH, parse, type GqlQuery, type PipelineStage } from './parse';

const base: GqlQuery = {
  source: 'logs',
  mode: 'search',
  filters: [],
  pipeline: [],
  time_range: null,
  sort: [],
  limit: null,
  fields: null,
  interval: null,
};
const count = (group_by: string[] = [], func = 'count', field: string | null = null): PipelineStage[] => [{ type: 'aggregate', func, field, group_by }];

describe('parse: the forms of SPEC.md "GQL query forms seen"', () => {
  it.each<[string, Partial<GqlQuery>]>([
    [
      'from:logs route:/checkout | last:24h | top 5',
      { filters: [{ field: 'route', op: '=', value: '/checkout' }], time_range: { last: '24h' }, limit: 5 },
    ],
    ['from:events | count | last:30d', { source: 'events', mode: 'aggregate', pipeline: count(), time_range: { last: '30d' } }],
    [
      'from:events | count by event_name | top 10 | last:30d',
      {
        source: 'events',
        mode: 'aggregate',
        pipeline: count(['event_name']),
        time_range: { last: '30d' },
        sort: [{ field: 'value', direction: 'desc' }],
        limit: 10,
      },
    ],
    [
      'from:events | count_distinct(distinct_id) | last:1d',
      { source: 'events', mode: 'aggregate', pipeline: count([], 'count_distinct', 'distinct_id'), time_range: { last: '1d' } },
    ],
    [
      "count | where severity = 'error' | last 1h",
      { mode: 'aggregate', pipeline: count(), filters: [{ field: 'severity', op: '=', value: 'error' }], time_range: { last: '1h' } },
    ],
    [
      "count by message | where severity = 'error' | last 1h",
      { mode: 'aggregate', pipeline: count(['message']), filters: [{ field: 'severity', op: '=', value: 'error' }], time_range: { last: '1h' } },
    ],
    [
      'from:alert_events | last 7d | sort triggered_at desc | limit 20',
      { source: 'alert_events', time_range: { last: '7d' }, sort: [{ field: 'triggered_at', direction: 'desc' }], limit: 20 },
    ],
    [
      '"payment failed" last:24h limit:20',
      { filters: [{ field: '_text', op: 'search', value: 'payment failed' }], time_range: { last: '24h' }, limit: 20 },
    ],
    ['severity:error last:24h', { filters: [{ field: 'severity', op: '=', value: 'error' }], time_range: { last: '24h' } }],
    [
      'severity:error | count by message | top 10',
      {
        mode: 'aggregate',
        filters: [{ field: 'severity', op: '=', value: 'error' }],
        pipeline: count(['message']),
        sort: [{ field: 'value', direction: 'desc' }],
        limit: 10,
      },
    ],
    [
      'from:issues status:unresolved | last:7d',
      { source: 'issues', filters: [{ field: 'status', op: '=', value: 'unresolved' }], time_range: { last: '7d' } },
    ],
    [
      'from:issues status:regressed | count by release_last | last:30d',
      {
        source: 'issues',
        mode: 'aggregate',
        filters: [{ field: 'status', op: '=', value: 'regressed' }],
        pipeline: count(['release_last']),
        time_range: { last: '30d' },
      },
    ],
    [
      'from:errors fingerprint_hash:3fa9c0d2e1b4 | last:24h',
      { source: 'errors', filters: [{ field: 'fingerprint_hash', op: '=', value: '3fa9c0d2e1b4' }], time_range: { last: '24h' } },
    ],
    [
      'from:errors level:fatal | count by release | last:7d',
      {
        source: 'errors',
        mode: 'aggregate',
        filters: [{ field: 'level', op: '=', value: 'fatal' }],
        pipeline: count(['release']),
        time_range: { last: '7d' },
      },
    ],
    ['from:errors extra.synthetic:logs', { source: 'errors', filters: [{ field: 'extra.synthetic', op: '=', value: 'logs' }] }],
    ['from:alerts', { source: 'alerts' }],
  ])('%s', (text, expected) => {
    expect(parse(text)).toEqual({ ...base, ...expected });
  });
});

describe('parse: conditions', () => {
  const filters = (text: string) => parse(text).filters;

  it('reads field:value, quoted values, numbers and comparisons', () => {
    expect(filters(`route:/checkout plan:"pro plus" code:'E 1' status:404 amount > 10.5 amount >= -2 n < 1e3 n <= 0 a = b a != 'c'`)).toEqual([
      { field: 'route', op: '=', value: '/checkout' },
      { field: 'plan', op: '=', value: 'pro plus' },
      { field: 'code', op: '=', value: 'E 1' },
      { field: 'status', op: '=', value: 404 },
      { field: 'amount', op: '>', value: 10.5 },
      { field: 'amount', op: '>=', value: -2 },
      { field: 'n', op: '<', value: 1000 },
      { field: 'n', op: '<=', value: 0 },
      { field: 'a', op: '=', value: 'b' },
      { field: 'a', op: '!=', value: 'c' },
    ]);
  });

  it('reads Datadog-style field:>5 comparisons', () => {
    expect(filters('duration:>500 duration:<=9')).toEqual([
      { field: 'duration', op: '>', value: 500 },
      { field: 'duration', op: '<=', value: 9 },
    ]);
  });

  it('reads a trailing * as a prefix match and field:* as presence', () => {
    expect(filters('route:/api/* user.email:*')).toEqual([
      { field: 'route', op: 'prefix', value: '/api/' },
      { field: 'user.email', op: 'prefix', value: '' },
    ]);
  });

  it('reads lists with : [..], in [..], in (..) and not in', () => {
    expect(filters('severity:[error, fatal] plan in [pro, "team"] code IN (1, 2) env not in (dev) -region:[eu]')).toEqual([
      { field: 'severity', op: 'in', value: ['error', 'fatal'] },
      { field: 'plan', op: 'in', value: ['pro', 'team'] },
      { field: 'code', op: 'in', value: [1, 2] },
      { field: 'env', op: 'not in', value: ['dev'] },
      { field: 'region', op: 'not in', value: ['eu'] },
    ]);
  });

  it('reads quoted phrases and bare words as full-text search', () => {
    expect(filters(`"payment failed" 'card declined' timeout retr* 404`)).toEqual([
      { field: '_text', op: 'search', value: 'payment failed' },
      { field: '_text', op: 'search', value: 'card declined' },
      { field: '_text', op: 'search', value: 'timeout' },
      { field: '_text', op: 'search', value: 'retr' },
      { field: '_text', op: 'search', value: '404' },
    ]);
  });

  it('keeps plain conjunctions flat and nests OR, NOT and parentheses as groups', () => {
    expect(filters('a:1 AND b:2 (c:3 OR d:4 e:5) NOT f:[6] -g:7 NOT (h:8 OR i:9) -"boom" NOT j > 1 -k:x*')).toEqual([
      { field: 'a', op: '=', value: 1 },
      { field: 'b', op: '=', value: 2 },
      {
        op: 'or',
        filters: [
          { field: 'c', op: '=', value: 3 },
          { op: 'and', filters: [{ field: 'd', op: '=', value: 4 }, { field: 'e', op: '=', value: 5 }] },
        ],
      },
      { field: 'f', op: 'not in', value: [6] },
      { field: 'g', op: '!=', value: 7 },
      { op: 'not', filters: [{ op: 'or', filters: [{ field: 'h', op: '=', value: 8 }, { field: 'i', op: '=', value: 9 }] }] },
      { op: 'not', filters: [{ field: '_text', op: 'search', value: 'boom' }] },
      { op: 'not', filters: [{ field: 'j', op: '>', value: 1 }] },
      { op: 'not', filters: [{ field: 'k', op: 'prefix', value: 'x' }] },
    ]);
  });

  it('applies clauses leading the first OR branch or trailing the last to the whole query', () => {
    expect(parse('from:errors level:fatal OR level:error last:1h limit 5')).toEqual({
      ...base,
      source: 'errors',
      filters: [{ op: 'or', filters: [{ field: 'level', op: '=', value: 'fatal' }, { field: 'level', op: '=', value: 'error' }] }],
      time_range: { last: '1h' },
      limit: 5,
    });
  });

  it('binds AND tighter than OR, with or without the word AND', () => {
    expect(filters('a:1 b:2 OR c:3')).toEqual([
      { op: 'or', filters: [{ op: 'and', filters: [{ field: 'a', op: '=', value: 1 }, { field: 'b', op: '=', value: 2 }] }, { field: 'c', op: '=', value: 3 }] },
    ]);
    expect(filters('a:1 and b:2 or c:3')).toEqual(filters('a:1 b:2 OR c:3'));
  });

  it('takes dotted paths, $-names, quoted field names and keywords as field names', () => {
    expect(filters('properties.user.plan:pro $browser:Chrome "odd key":1 count:3 desc:x')).toEqual([
      { field: 'properties.user.plan', op: '=', value: 'pro' },
      { field: '$browser', op: '=', value: 'Chrome' },
      { field: 'odd key', op: '=', value: 1 },
      { field: 'count', op: '=', value: 3 },
      { field: 'desc', op: '=', value: 'x' },
    ]);
  });

  it('takes keywords, durations, dates, unicode and escapes as values', () => {
    expect(filters(`event:count word:OR d:5m t:2024-05-01 name:Zoë q:"say \\"hi\\""`)).toEqual([
      { field: 'event', op: '=', value: 'count' },
      { field: 'word', op: '=', value: 'OR' },
      { field: 'd', op: '=', value: '5m' },
      { field: 't', op: '=', value: '2024-05-01' },
      { field: 'name', op: '=', value: 'Zoë' },
      { field: 'q', op: '=', value: 'say "hi"' },
    ]);
  });
});

describe('parse: clauses and stages', () => {
  it('reads every aggregate function', () => {
    for (const func of ['sum', 'avg', 'min', 'max', 'p50', 'p75', 'p90', 'p95', 'p99']) {
      expect(parse(`${func}(duration) by route`).pipeline).toEqual(count(['route'], func, 'duration'));
    }
    expect(parse('count()').pipeline).toEqual(count());
    expect(parse('COUNT BY a, b').pipeline).toEqual(count(['a', 'b']));
  });

  it('reads a time series with by time(interval) in every unit', () => {
    for (const interval of ['30s', '5m', '1h', '1d', '1w']) {
      const query = parse(`count by time(${interval})`);
      expect(query).toMatchObject({ mode: 'aggregate', interval, pipeline: count() });
    }
    expect(parse('p75(value) by route, time(5m)')).toMatchObject({ interval: '5m', pipeline: count(['route'], 'p75', 'value') });
  });

  it('reads time ranges: last with or without a colon, since and until as ISO times or durations', () => {
    expect(parse('last 15m').time_range).toEqual({ last: '15m' });
    expect(parse('last:2w').time_range).toEqual({ last: '2w' });
    expect(parse('since:2024-05-01T10:00:00Z until:2024-05-02').time_range).toEqual({
      since: '2024-05-01T10:00:00.000Z',
      until: '2024-05-02T00:00:00.000Z',
    });
    expect(parse('since:"2024-05-01 12:30" until:"2024-05-01T14:00:00+02:00"').time_range).toEqual({
      since: '2024-05-01T12:30:00.000Z',
      until: '2024-05-01T12:00:00.000Z',
    });
    expect(parse('since:7d until:1d').time_range).toEqual({ since: '7d', until: '1d' });
  });

  it('reads sort, limit, top and fields in either style', () => {
    expect(parse('sort:timestamp asc, severity | limit:5 | fields message, user.plan')).toMatchObject({
      sort: [
        { field: 'timestamp', direction: 'asc' },
        { field: 'severity', direction: 'asc' },
      ],
      limit: 5,
      fields: ['message', 'user.plan'],
    });
    expect(parse('top:3').limit).toBe(3);
  });

  it('mixes colon and pipeline styles and any order of segments', () => {
    expect(parse('last 1h | from:events event:signup | count by properties.plan')).toEqual(
      parse('from:events event:signup count by properties.plan last:1h'),
    );
  });

  it('takes keywords in any case and defaults the source to logs', () => {
    expect(parse('FROM:Events | Count By event_name | LAST 1H')).toMatchObject({ source: 'events', pipeline: count(['event_name']), time_range: { last: '1h' } });
    expect(parse('').source).toBe('logs');
    expect(parse('   ')).toEqual(base);
  });

  it('spreads over several lines', () => {
    expect(parse('from:logs\n  severity:error\n| count by message')).toMatchObject({ mode: 'aggregate', pipeline: count(['message']) });
  });
});

describe('parse: syntax errors say where and what was expected', () => {
  const failure = (text: string) => {
    try {
      parse(text);
    } catch (error) {
      return error as GqlSyntaxError;
    }
    throw new Error(`${text} parsed`);
  };

  it.each([
    ['from:logs | count by ', "expected a field name after 'count by' at column 22", 22],
    ['severity:error | count by | top 5', "expected a field name after 'count by' at column 27", 27],
    ['severity:', "expected a value after 'severity:' at column 10", 10],
    ['from:', "expected a source name after 'from:' at column 6", 6],
    ['last:', "expected a duration such as 24h after 'last:' at column 6", 6],
    ['last:yesterday', "expected a duration such as 24h after 'last:' at column 6", 6],
    ['limit:ten', "expected a whole number after 'limit:' at column 7", 7],
    ['count_distinct(', "expected a field name after 'count_distinct(' at column 16", 16],
    ['p95(duration) by', "expected a field name after 'p95(duration) by' at column 17", 17],
    ['sort', "expected a field name after 'sort' at column 5", 5],
    ['a:1 OR', "expected a condition after 'OR' at column 7", 7],
    ['(a:1 OR b:2', "expected ')' at column 12 to close the '(' at column 1", 12],
    ['a:1 )', "unexpected ')' at column 5", 5],
    ['| count', "unexpected '|' at column 1", 1],
    ['count by time(5)', "expected a duration such as 24h after 'time(' at column 15", 15],
    ['plan in [pro,', "expected a value after 'pro,' at column 14", 14],
    ['message:"unterminated', 'unterminated string starting at column 9', 9],
    ['a ! b', "unexpected character '!' at column 3", 3],
    ['a:*b', "'*' matches a prefix only at the end of a value after ':' (field:val*); quote it to search for '*' at column 3", 3],
    ['(a:1 last:1h) OR b:2', "'last' cannot be inside OR, NOT or parentheses at column 6", 6],
    ['a:1 OR last:1h b:2 OR c:3', "'last' cannot be inside OR, NOT or parentheses at column 8", 8],
    ['from:logs OR a:1', 'OR needs a condition on each side at column 1', 1],
    ['count | count by a', 'a query has one aggregate function; found a second at column 9', 9],
    ['from:logs from:events', "'from:' appears twice; the second is at column 11", 11],
    ['last 1h since:2024-01-01', "use either 'last' or 'since:', not both at column 9", 9],
  ])('%j → %s', (text, message, column) => {
    const error = failure(text);
    expect(error).toBeInstanceOf(GqlSyntaxError);
    expect(error.message).toBe(message);
    expect(error.position.column).toBe(column);
    expect(error.position.line).toBe(1);
    expect(error.position.offset).toBe(column - 1);
  });

  it('names the line of a multi-line query', () => {
    const error = failure('from:logs\n| count by\n| top 5');
    expect(error.message).toBe("expected a field name after 'count by' at line 3, column 1");
    expect(error.position).toEqual({ offset: 21, line: 3, column: 1 });
  });

  it('refuses a query over the length limit, nested too deep or with out-of-range numbers as query errors (422)', () => {
    expect(() => parse('a'.repeat(MAX_QUERY_LENGTH + 1))).toThrow(GqlQueryError);
    expect(() => parse(`${'('.repeat(MAX_NESTING + 1)}a${')'.repeat(MAX_NESTING + 1)}`)).toThrow(GqlQueryError);
    expect(() => parse('-'.repeat(MAX_NESTING + 1) + 'a:1')).toThrow(/nested 33 levels deep/);
    expect(() => parse('amount > 1e999')).toThrow(/out of range/);
    expect(parse(`${'('.repeat(MAX_NESTING)}a${')'.repeat(MAX_NESTING)}`).filters).toEqual([{ field: '_text', op: 'search', value: 'a' }]);
  });
});
