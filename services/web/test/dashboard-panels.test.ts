import { defaultTitle, panelInputs, panelQuery, SAVED_RANGE, withBucket } from '../src/pages/dashboards/panels';

/** The query a dashboard panel runs under the dashboard's time range. */
describe('panel queries', () => {
  it("replace the query's own range by the dashboard's, or add it", () => {
    expect(panelQuery('from:logs | count | last:1h', '7d')).toBe('from:logs | count | last:7d');
    expect(panelQuery('from:logs since:2026-11-01 until:2026-11-02 | count', '24h')).toBe('from:logs last:24h | count');
    expect(panelQuery('from:logs | count', '1h')).toBe('from:logs last:1h | count');
  });

  it('give a time series the bucket of the range, so a long range stays within the buckets a query may answer', () => {
    expect(panelQuery('from:logs | count by time(1m) | last:1h', '30d')).toBe('from:logs | count by time(1d) | last:30d');
    expect(panelQuery('from:spans | p95(duration_ms) by service, time(5m)', '7d')).toBe('from:spans last:7d | p95(duration_ms) by service, time(3h)');
    // A quoted "time(5m)" is a value, not a bucket.
    expect(withBucket('from:logs message:"time(5m)" | count by time(5m)', '1m')).toBe('from:logs message:"time(5m)" | count by time(1m)');
  });

  it('run as saved under "as each query says", and leave a source without time as it is', () => {
    expect(panelQuery('from:logs | count by time(1m) | last:1h', SAVED_RANGE)).toBe('from:logs | count by time(1m) | last:1h');
    expect(panelQuery('from:alerts | count by severity', '7d')).toBe('from:alerts | count by severity');
  });

  it('name a panel by its query when it has no title, and send panels back with their ids', () => {
    expect(defaultTitle('from:logs   severity:error\n| count')).toBe('from:logs severity:error | count');
    // Without its own range, which the dashboard's replaces.
    expect(defaultTitle('from:logs | count by route | last:7d')).toBe('from:logs | count by route');
    expect(defaultTitle(`from:logs ${'x'.repeat(100)}`)).toHaveLength(80);
    expect(panelInputs([{ id: 'p1', title: 'A', query: 'from:logs | count', width: 2 }])).toEqual([{ id: 'p1', title: 'A', query: 'from:logs | count', width: 2 }]);
  });
});
