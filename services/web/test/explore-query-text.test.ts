import {
  DEFAULT_QUERY,
  equalsCondition,
  errorSpan,
  explorePath,
  filtersEnd,
  propertyCondition,
  queryFromSearch,
  readSource,
  readTimeRange,
  schemaTermQuery,
  searchLimitReached,
  searchForQuery,
  setSource,
  setTimeRange,
  spacedInsertion,
} from '../src/pages/explore/queryText';

describe('readTimeRange', () => {
  it('reads last in colon and pipeline style, case-insensitively', () => {
    expect(readTimeRange('from:logs last:24h')).toEqual({ kind: 'last', duration: '24h' });
    expect(readTimeRange("from:logs | where severity = 'error' | LAST 1h | count")).toEqual({ kind: 'last', duration: '1h' });
  });

  it('reads since and until with quoted and unquoted times', () => {
    expect(readTimeRange('since:"2024-05-01 10:00" until:2024-05-02')).toEqual({ kind: 'between', since: '2024-05-01 10:00', until: '2024-05-02' });
    expect(readTimeRange('since:7d')).toEqual({ kind: 'between', since: '7d' });
  });

  it('answers none for a text without a range, and ignores the words inside strings', () => {
    expect(readTimeRange('from:logs severity:error')).toEqual({ kind: 'none' });
    expect(readTimeRange('"last:1h" severity:error')).toEqual({ kind: 'none' });
  });
});

describe('setTimeRange', () => {
  it('appends a range to a text without one', () => {
    expect(setTimeRange('from:logs severity:error', { kind: 'last', duration: '15m' })).toBe('from:logs severity:error last:15m');
    expect(setTimeRange('', { kind: 'last', duration: '1h' })).toBe('last:1h');
  });

  it('puts a new range among the conditions, before the pipeline, where a person would write it', () => {
    expect(setTimeRange('from:logs severity:error | count by route', { kind: 'last', duration: '24h' })).toBe('from:logs severity:error last:24h | count by route');
    expect(setTimeRange('from:logs | count', { kind: 'last', duration: '1h' })).toBe('from:logs last:1h | count');
    expect(setTimeRange('| count', { kind: 'last', duration: '1h' })).toBe('last:1h | count');
    // A pipe inside a quoted value is text, not the pipeline.
    expect(setTimeRange('message:"a | b" | count', { kind: 'last', duration: '1h' })).toBe('message:"a | b" last:1h | count');
  });

  it('rewrites the range where it stands', () => {
    expect(setTimeRange('from:logs last:1h | count by severity', { kind: 'last', duration: '7d' })).toBe('from:logs last:7d | count by severity');
    expect(setTimeRange('severity:error | count by time(30m), route | last 1h', { kind: 'last', duration: '24h' })).toBe(
      'severity:error | count by time(30m), route | last:24h',
    );
  });

  it('replaces last by since and until and drops the other clauses', () => {
    expect(
      setTimeRange('from:logs since:2d until:1d severity:error', { kind: 'between', since: '2024-05-01T10:00:00Z', until: '2024-05-02T10:00:00Z' }),
    ).toBe('from:logs since:2024-05-01T10:00:00Z until:2024-05-02T10:00:00Z severity:error');
    expect(setTimeRange('from:logs since:2d until:1d severity:error', { kind: 'last', duration: '1h' })).toBe('from:logs last:1h severity:error');
  });

  it('quotes a time with a space', () => {
    expect(setTimeRange('from:logs', { kind: 'between', since: '2024-05-01 10:00' })).toBe("from:logs since:'2024-05-01 10:00'");
  });

  it('removes the range and the pipe segment it leaves empty', () => {
    expect(setTimeRange('from:logs | last 1h | count', { kind: 'none' })).toBe('from:logs | count');
    expect(setTimeRange('from:logs severity:error | last:1h', { kind: 'none' })).toBe('from:logs severity:error');
    expect(setTimeRange('last:1h | count', { kind: 'none' })).toBe('count');
  });

  it('leaves pipes inside strings alone', () => {
    expect(setTimeRange('message:"a || b" | last:1h', { kind: 'none' })).toBe('message:"a || b"');
  });
});

describe('source', () => {
  it('reads from: and from with a space', () => {
    expect(readSource('from:Errors level:fatal')).toBe('errors');
    expect(readSource('from spans | count')).toBe('spans');
    expect(readSource('severity:error')).toBeUndefined();
  });

  it('rewrites the source or puts one first', () => {
    expect(setSource('from:logs severity:error last:1h', 'events')).toBe('from:events severity:error last:1h');
    expect(setSource('severity:error', 'errors')).toBe('from:errors severity:error');
    expect(setSource('', 'spans')).toBe('from:spans');
  });

  it('drops the time range when switching to alerts, which have no time field', () => {
    expect(setSource('from:logs last:1h', 'alerts')).toBe('from:alerts');
  });
});

describe('fields and conditions', () => {
  it('writes bag keys as one word or quoted', () => {
    expect(propertyCondition('properties', 'route')).toBe('properties.route:');
    expect(propertyCondition('properties', 'order id')).toBe('"properties.order id":');
  });

  it('quotes trace ids so a hex id never reads as a number', () => {
    expect(equalsCondition('trace_id', '4bf92f3577b34da6a3ce929d0e0e4736', true)).toBe("trace_id:'4bf92f3577b34da6a3ce929d0e0e4736'");
    expect(equalsCondition('event_name', 'signup')).toBe('event_name:signup');
    expect(equalsCondition('event_name', 'page view')).toBe("event_name:'page view'");
  });

  it('adds the spaces that keep an insertion one term, the cursor after it', () => {
    expect(spacedInsertion('from:logs', 'properties.route:', '')).toEqual({ text: ' properties.route:', cursor: 18 });
    expect(spacedInsertion('from:logs ', 'properties.route:', ' last:1h')).toEqual({ text: 'properties.route:', cursor: 17 });
    expect(spacedInsertion('a', 'b', 'c')).toEqual({ text: ' b ', cursor: 3 });
  });

  it('keeps a field waiting for its value apart from the text after it, the cursor after its colon', () => {
    // Before the query's first term: 'properties.route:from:logs' would read as one broken condition.
    expect(spacedInsertion('', 'properties.route:', 'from:logs last:1h')).toEqual({ text: 'properties.route: ', cursor: 17 });
  });

  it('puts a term nobody placed the cursor for after the filters, before the first segment', () => {
    expect(filtersEnd('from:logs last:1h')).toBe('from:logs last:1h'.length);
    expect(filtersEnd('from:logs severity:error  | count by route | last:1h')).toBe('from:logs severity:error'.length);
    expect(filtersEnd("from:logs message:'a | b' | count")).toBe("from:logs message:'a | b'".length);
    expect(filtersEnd('')).toBe(0);
  });

  it("starts a query of a schema term's source when the query reads another", () => {
    expect(schemaTermQuery('from:logs last:1h', 'event_name:purchase', 'events')).toBe('from:events last:1h event_name:purchase');
    expect(schemaTermQuery('from:logs severity:error | count by route | last:24h', 'properties.plan:', 'events')).toBe('from:events last:24h properties.plan:');
    expect(schemaTermQuery('from:alerts', 'properties.route:', 'logs')).toBe('from:logs properties.route:');
    // GQL reads logs when the text names no source.
    expect(schemaTermQuery('severity:error', 'properties.route:', 'logs')).toBeUndefined();
    expect(schemaTermQuery('from:events last:1h', 'event_name:purchase', 'events')).toBeUndefined();
  });
});

describe('URL state', () => {
  it('round-trips a query through the search string', () => {
    const query = "from:logs message:\"a & b\" | count by time(1m) | last:1h";
    expect(searchForQuery(query)).toBe('?q=from%3Alogs+message%3A%22a+%26+b%22+%7C+count+by+time%281m%29+%7C+last%3A1h');
    expect(queryFromSearch(searchForQuery(query))).toBe(query);
  });

  it('opens the last hour of logs without a query, and keeps an empty one', () => {
    expect(queryFromSearch('')).toBe(DEFAULT_QUERY);
    expect(queryFromSearch('?q=')).toBe('');
  });

  it('builds the explorer path of a query', () => {
    expect(explorePath('o1', 'p 1', "from:spans trace_id:'ab'")).toBe("/orgs/o1/projects/p%201/explore?q=from%3Aspans+trace_id%3A%27ab%27");
  });
});

describe('errorSpan', () => {
  it('underlines the token at the offset', () => {
    expect(errorSpan('from:traces | count', 5)).toEqual({ from: 5, to: 11 });
  });

  it('underlines the last character for an offset at the end', () => {
    expect(errorSpan('severity:', 9)).toEqual({ from: 8, to: 9 });
    expect(errorSpan('', 0)).toEqual({ from: 0, to: 0 });
  });
});

describe('searchLimitReached', () => {
  it('says a search answered as many rows as its limit may have left rows out', () => {
    expect(searchLimitReached('search', 100, null)).toBe(100);
    expect(searchLimitReached('search', 99, null)).toBeUndefined();
    expect(searchLimitReached('search', 3, 3)).toBe(3);
    expect(searchLimitReached('search', 3, 20)).toBeUndefined();
    // An aggregate's groups have totals of their own.
    expect(searchLimitReached('aggregate', 100, null)).toBeUndefined();
  });
});
