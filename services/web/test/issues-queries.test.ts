import {
  eventQuery,
  filterErrorMessage,
  frameGroups,
  gqlValue,
  hasMinified,
  issueChartQuery,
  issueEventsQuery,
  issueQuery,
  issuesPage,
  issuesQuery,
  ISSUE_LIST_MAX_PAGE,
  logIdOf,
  RELEASES_QUERY,
  releaseNames,
  shownFrame,
  sparklineQuery,
  sparklines,
  toErrorEvent,
  chainOf,
  type Frame,
} from '../src/pages/issues/queries';

const ISSUE = '0190a0e0-0000-7000-8000-000000000001';

describe('the GQL of the issue pages', () => {
  it('reads a tab with its sort and people\'s conditions, in parentheses unless they wrote segments', () => {
    expect(issuesQuery('unresolved', 'last_seen')).toBe('from:issues status:unresolved | sort last_seen desc, id asc | limit 101');
    expect(issuesQuery('resolved', 'event_count', 'level:error OR level:fatal')).toBe(
      'from:issues status:resolved (level:error OR level:fatal) | sort event_count desc, id asc | limit 101',
    );
    expect(issuesQuery('ignored', 'user_count', 'checkout | last 7d')).toBe('from:issues status:ignored checkout | last 7d | sort user_count desc, id asc | limit 101');
  });

  it('reads a page with every row before it and one more, and cuts out that page and whether another follows', () => {
    expect(issuesQuery('unresolved', 'last_seen', '', 3)).toBe('from:issues status:unresolved | sort last_seen desc, id asc | limit 301');
    const rows = Array.from({ length: 301 }, (_, index) => index);
    expect(issuesPage(rows, 3)).toEqual({ rows: rows.slice(200, 300), hasNext: true });
    expect(issuesPage(rows.slice(0, 300), 3)).toEqual({ rows: rows.slice(200, 300), hasNext: false });
    expect(issuesPage(rows.slice(0, 150), 2)).toEqual({ rows: rows.slice(100, 150), hasNext: false });
    expect(issuesPage(rows.slice(0, 150), 3)).toEqual({ rows: [], hasNext: false });
    // The last page a search can read: 99 pages of 100 and the row that would say there is more.
    expect(ISSUE_LIST_MAX_PAGE).toBe(99);
    expect(issuesQuery('unresolved', 'last_seen', '', ISSUE_LIST_MAX_PAGE)).toMatch(/\| limit 9901$/);
    expect(issuesPage(Array.from({ length: 9_901 }, (_, index) => index), ISSUE_LIST_MAX_PAGE).hasNext).toBe(false);
  });

  it('reads one issue whatever its status, its events newest first, and one event with its stack and bags', () => {
    expect(issueQuery(ISSUE)).toBe(`from:issues id:"${ISSUE}" status:[unresolved, regressed, resolved, ignored] | limit 1`);
    expect(issueEventsQuery(ISSUE)).toBe(`from:errors issue_id:"${ISSUE}" | sort timestamp desc | fields id, timestamp | limit 1000`);
    expect(eventQuery(ISSUE, null)).toMatch(new RegExp(`^from:errors issue_id:"${ISSUE}" \\| sort timestamp desc \\| fields .*frames, breadcrumbs \\| limit 1$`));
    expect(eventQuery(ISSUE, 'e1')).toContain(`issue_id:"${ISSUE}" id:"e1" |`);
    expect(sparklineQuery(['a', 'b'])).toBe('from:errors issue_id in ["a", "b"] | count by time(1h), issue_id | last:24h');
    expect(issueChartQuery(ISSUE, '30d')).toBe(`from:errors issue_id:"${ISSUE}" | count by time(15m) | last:30d`);
    expect(RELEASES_QUERY).toBe('from:errors release:* | count by release | top 50');
  });

  it('quotes values so that quotes, backslashes and new lines read back as themselves', () => {
    expect(gqlValue('say "hi"\\\n')).toBe('"say \\"hi\\"\\\\\\n"');
  });
});

describe('the rows of the issue pages', () => {
  it('fills each issue\'s 24 hourly buckets, absent hours with 0', () => {
    const now = Date.parse('2024-05-10T12:30:00.000Z');
    const data = sparklines(
      [
        { time: '2024-05-10T12:00:00.000Z', issue_id: 'a', value: 3 },
        { time: '2024-05-09T13:00:00.000Z', issue_id: 'a', value: 1 },
        { time: '2024-05-10T11:00:00.000Z', issue_id: 'b', value: 2 },
      ],
      now,
    );
    expect(data.xs).toHaveLength(24);
    expect(data.xs[23]).toBe(Date.parse('2024-05-10T12:00:00.000Z') / 1000);
    expect(data.counts.get('a')).toEqual([1, ...Array(22).fill(0), 3]);
    expect(data.counts.get('b')![22]).toBe(2);
  });

  it('reads bags and lists given as JSON text (ClickHouse) as well as values, with the chain and the log link', () => {
    const event = toErrorEvent({
      id: 'e',
      extra: JSON.stringify({ chain: [{ type: 'IOError', value: 'disk', relation: 'cause' }], synthetic: 'logs', log_id: 'log-1' }),
      tags: { shop: 'eu' },
      user: null,
      frames: '[{"function":"f","in_app":true}]',
      breadcrumbs: null,
    });
    expect(event.tags).toEqual({ shop: 'eu' });
    expect(event.user).toEqual({});
    expect(event.frames).toEqual([{ function: 'f', in_app: true }]);
    expect(event.breadcrumbs).toEqual([]);
    expect(chainOf(event)).toEqual([{ type: 'IOError', value: 'disk', relation: 'cause' }]);
    expect(logIdOf(event)).toBe('log-1');
  });

  it('shows frames innermost first, library frames gathered for folding', () => {
    const frames: Frame[] = [
      { function: 'lib1', in_app: false },
      { function: 'lib2', in_app: false },
      { function: 'main', in_app: true },
      { function: 'lib3', in_app: false },
      { function: 'crash', in_app: true },
    ];
    expect(frameGroups(frames).map((group) => [group.inApp, group.frames.map(({ frame }) => frame.function)])).toEqual([
      [true, ['crash']],
      [false, ['lib3']],
      [true, ['main']],
      [false, ['lib2', 'lib1']],
    ]);
    // Without any frame of the app, every frame is shown open.
    expect(frameGroups([{ function: 'x', in_app: false }])).toEqual([{ inApp: true, frames: [{ frame: { function: 'x', in_app: false }, index: 0 }] }]);
  });

  it('switches a symbolicated frame to its minified position', () => {
    const frame: Frame = { function: 'computeTotal', filename: 'src/cart.js', lineno: 3, context_line: 'throw x', in_app: true, minified: { function: 'n', filename: 'app.min.js', lineno: 1, colno: 93 } };
    expect(hasMinified([frame])).toBe(true);
    expect(shownFrame(frame, false)).toBe(frame);
    expect(shownFrame(frame, true)).toMatchObject({ function: 'n', filename: 'app.min.js', lineno: 1, colno: 93, context_line: null });
  });

  it('lists releases without the rows that named none', () => {
    expect(releaseNames([{ release: 'a', value: 2 }, { release: null, value: 9 }, { release: 'b', value: 1 }])).toEqual(['a', 'b']);
  });
});

describe('a filter that is not GQL', () => {
  /**
   * The server's message for the tab's query with `filter` in it, its column that of `at` (1-based) in the filter as
   * the query holds it: GQL says "expected a value after 'level:' at column 38" of the whole query.
   */
  const serverMessage = (filter: string, text: string, at: number, what = "expected a value after 'level:'") => {
    const query = issuesQuery('unresolved', 'last_seen', filter);
    return `${what} at column ${query.indexOf(text) + at}`;
  };

  it('says where in the filter the error is, not where in the query the page built', () => {
    expect(serverMessage('level:: foo', 'level::', 7)).toBe("expected a value after 'level:' at column 38");
    expect(filterErrorMessage(serverMessage('level:: foo', 'level::', 7), 'unresolved', 'level:: foo')).toBe("expected a value after 'level:' at column 7 of the filter");
    // Spaces typed before the filter count; a filter with its own `|` goes into the query without parentheses.
    expect(filterErrorMessage(serverMessage('  level:: foo', 'level::', 7), 'unresolved', '  level:: foo')).toBe("expected a value after 'level:' at column 9 of the filter");
    expect(filterErrorMessage(serverMessage('level:: x | count', 'level::', 7), 'unresolved', 'level:: x | count')).toBe("expected a value after 'level:' at column 7 of the filter");
  });

  it('says a parenthesis of the filter that does not pair up, which would meet the page\'s own', () => {
    expect(filterErrorMessage("unexpected '|' at column 46", 'unresolved', '(level:error')).toBe("the filter opens a '(' that it never closes");
    expect(filterErrorMessage('unexpected text at column 40', 'unresolved', "level:error) or message:'a (b'")).toBe("the filter closes a ')' at column 12 that it never opened");
  });

  it('says an error outside the filter lies in what the page puts around it', () => {
    const filter = 'level:error | limit 0';
    const message = serverMessage(filter, '| limit 101', 3, "'limit' appears twice; the second is");
    expect(filterErrorMessage(message, 'unresolved', filter)).toBe("'limit' appears twice; the second is in the sort and limit the page puts after the filter");
    expect(filterErrorMessage('unexpected text at column 3', 'unresolved', 'level:error')).toBe("unexpected text in the tab's own conditions, before the filter");
  });
});
