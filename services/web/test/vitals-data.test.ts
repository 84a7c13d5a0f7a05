import { adoptionSeries, formatShare, releaseHealth } from '../src/pages/releases/health';
import { routeVitals } from '../src/pages/vitals/hooks';
import { formatVital, rateVital, thresholdText } from '../src/pages/vitals/thresholds';

describe('web vitals by route', () => {
  it('rates a p75 at and past each threshold as the server does', () => {
    expect([rateVital('lcp', 2_500), rateVital('lcp', 2_501), rateVital('lcp', 4_000), rateVital('lcp', 4_001)]).toEqual(['good', 'needs-improvement', 'needs-improvement', 'poor']);
    expect([rateVital('cls', 0.1), rateVital('cls', 0.25), rateVital('cls', 0.2500001)]).toEqual(['good', 'needs-improvement', 'poor']);
  });

  it('shows milliseconds whole and CLS with three decimals', () => {
    expect(formatVital('lcp', 4_050.4)).toBe('4,050 ms');
    expect(formatVital('cls', 0.24500000000000002)).toBe('0.245');
    expect(thresholdText('inp')).toBe('good up to 200 ms, poor above 500 ms');
    expect(thresholdText('cls')).toBe('good up to 0.1, poor above 0.25');
  });

  it('joins p75s and rating counts into one row per route, busiest first, leaving out vitals without a p75', () => {
    const rows = routeVitals(
      [
        { route: '/a', name: 'lcp', value: 3_000 },
        { route: '/b', name: 'lcp', value: 1_000 },
        { route: '/b', name: 'inp', value: null },
        { route: '/b', name: 'fid', value: 10 },
      ],
      [
        { route: '/a', name: 'lcp', rating: 'good', value: 1 },
        { route: '/a', name: 'lcp', rating: 'poor', value: 1 },
        { route: '/b', name: 'lcp', rating: 'good', value: 3 },
      ],
    );
    expect(rows.map((row) => [row.route, row.samples, Object.keys(row.vitals)])).toEqual([
      ['/b', 3, ['lcp']],
      ['/a', 2, ['lcp']],
    ]);
    expect(rows[1]!.vitals.lcp).toEqual({ p75: 3_000, rating: 'needs-improvement', counts: { good: 1, 'needs-improvement': 0, poor: 1 }, samples: 2 });
  });
});

describe('release health', () => {
  it('counts crash-free sessions by sum(quantity) and crash-free users by distinct id, with adoption as the share of sessions', () => {
    const [first, second] = releaseHealth(
      [
        { release: 'a@2', outcome: 'healthy', value: 6 },
        { release: 'a@2', outcome: 'crashed', value: 2 },
        { release: 'a@1', outcome: 'errored', value: 2 },
      ],
      [{ release: 'a@2', value: 4 }],
      [{ release: 'a@2', value: 1 }],
    );
    expect(first).toMatchObject({ release: 'a@2', sessions: 8, crashFreeSessions: 0.75, users: 4, crashedUsers: 1, crashFreeUsers: 0.75, adoption: 0.8 });
    expect(second).toMatchObject({ release: 'a@1', sessions: 2, crashFreeSessions: 1, users: 0, crashFreeUsers: null, adoption: 0.2 });
    expect([formatShare(7 / 9), formatShare(1), formatShare(null)]).toEqual(['77.78%', '100%', 'n/a']);
  });

  it('draws adoption as each release share of each bucket, in percent, with gaps where no session started', () => {
    const hour = 3_600_000;
    const at = (hours: number) => new Date(Date.UTC(2024, 4, 10, hours)).toISOString();
    const data = adoptionSeries(
      [
        { time: at(10), release: 'a@1', value: 3 },
        { time: at(10), release: 'a@2', value: 1 },
        { time: at(12), release: 'a@2', value: 5 },
      ],
      '1h',
      { from: Date.UTC(2024, 4, 10, 10), to: Date.UTC(2024, 4, 10, 12) + hour },
    );
    expect(data.xs).toEqual([10, 11, 12].map((hours) => Date.UTC(2024, 4, 10, hours) / 1_000));
    expect(data.series).toEqual([
      { label: 'a@2', values: [25, null, 100] },
      { label: 'a@1', values: [75, null, 0] },
    ]);
  });
});
