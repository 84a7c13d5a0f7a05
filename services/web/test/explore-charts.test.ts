import { aggregateLabel, aggregateShape, barData, barLabelEvery, barLabelLayout, barSummary, bucketStart, isolatedPoints, lineSummary, localDaySeries, PALETTE, rangeBounds, seriesColour, seriesColours, timeSeriesData } from '../src/components/charts';

const query = (pipeline: { func: string; field?: string | null; group_by: string[] }, interval: string | null = null) => ({
  source: 'logs',
  mode: 'aggregate' as const,
  filters: [],
  pipeline: [{ type: 'aggregate', ...pipeline }],
  interval,
});

describe('aggregate labels', () => {
  it('writes the aggregate as the query did', () => {
    expect(aggregateLabel(aggregateShape(query({ func: 'count', field: null, group_by: ['severity'] })))).toBe('count by severity');
    expect(aggregateLabel(aggregateShape(query({ func: 'p95', field: 'duration_ms', group_by: ['route'] }, '1m')))).toBe('p95(duration_ms) by time(1m), route');
    expect(aggregateLabel(aggregateShape(query({ func: 'count', field: null, group_by: [] })))).toBe('count');
  });
});

describe('barData', () => {
  it('labels bars by their groups, with (none) for missing ones and group_value for a group named value', () => {
    const results = [
      { severity: 'error', route: '/a', value: 3 },
      { severity: null, route: '/b', value: 1 },
    ];
    expect(barData(results, ['severity', 'route'])).toEqual({ labels: ['error / /a', '(none) / /b'], values: [3, 1] });
    expect(barData([{ group_value: 'x', value: 2 }], ['value'])).toEqual({ labels: ['x'], values: [2] });
    const shape = aggregateShape(query({ func: 'count', group_by: ['severity'] }));
    expect(barSummary(shape, 3)).toBe('Bar chart: count by severity, 3 bars');
    expect(barSummary(shape, 1)).toBe('Bar chart: count by severity, 1 bar');
  });
});

describe('timeSeriesData', () => {
  const shape = aggregateShape(query({ func: 'count', group_by: ['route'] }, '1m'));
  const results = [
    { time: '2024-05-10T11:00:00.000Z', route: '/a', value: 2 },
    { time: '2024-05-10T11:02:00.000Z', route: '/a', value: 5 },
    { time: '2024-05-10T11:01:00.000Z', route: '/b', value: 1 },
  ];

  it('makes one series per group, biggest first, with absent buckets filled with zero', () => {
    const data = timeSeriesData(results, shape);
    expect(data.xs).toEqual([1715338800, 1715338860, 1715338920]);
    expect(data.series).toEqual([
      { label: '/a', values: [2, 0, 5] },
      { label: '/b', values: [0, 1, 0] },
    ]);
    expect(lineSummary(shape, data)).toBe('Line chart: count by time(1m), route, 2 series, 3 points');
  });

  it('covers the whole range when its bounds are known, and leaves averages of nothing as gaps', () => {
    const average = aggregateShape(query({ func: 'avg', field: 'duration_ms', group_by: [] }, '1m'));
    const now = Date.parse('2024-05-10T11:04:30.000Z');
    const data = timeSeriesData([{ time: '2024-05-10T11:02:00.000Z', value: 7.5 }], average, rangeBounds({ last: '5m' }, now));
    expect(data.xs.length).toBe(6);
    expect(data.series).toEqual([{ label: 'value', values: [null, null, null, 7.5, null, null] }]);
  });

  it('keeps only the biggest series', () => {
    const many = Array.from({ length: 5 }, (_, index) => ({ time: '2024-05-10T11:00:00.000Z', route: `/r${index}`, value: index }));
    expect(timeSeriesData(many, shape, {}, 2).series.map((series) => series.label)).toEqual(['/r4', '/r3']);
  });
});

describe('bucketStart and rangeBounds', () => {
  it('starts weeks on Monday and other buckets at the epoch', () => {
    const wednesday = Date.parse('2024-05-08T15:00:00Z');
    expect(new Date(bucketStart(wednesday, 604_800_000)).toISOString()).toBe('2024-05-06T00:00:00.000Z');
    expect(new Date(bucketStart(wednesday, 3_600_000)).toISOString()).toBe('2024-05-08T15:00:00.000Z');
    expect(new Date(bucketStart(wednesday + 59_000, 60_000)).toISOString()).toBe('2024-05-08T15:00:00.000Z');
  });

  it('reads last, since and until', () => {
    const now = Date.parse('2024-05-10T12:00:00Z');
    expect(rangeBounds({ last: '1h' }, now)).toEqual({ from: Date.parse('2024-05-10T11:00:00Z'), to: now });
    expect(rangeBounds({ since: '2024-05-10T10:00:00.000Z', until: '1h' }, now)).toEqual({ from: Date.parse('2024-05-10T10:00:00Z'), to: Date.parse('2024-05-10T11:00:00Z') });
    expect(rangeBounds(null, now)).toEqual({});
  });
});

describe('bar labels', () => {
  it('writes every label when each bar has room for the widest, and fewer as the bars narrow', () => {
    const routes = ['/checkout', '/cart', '/search'];
    expect(barLabelEvery(routes, 900)).toBe(1);
    // 15 groups named like `/checkout · lcp` on an axis of 700 px: about 47 px a bar for labels of 18 characters.
    const groups = Array.from({ length: 15 }, (_, index) => `/checkout/step-${index} · lcp`);
    expect(barLabelEvery(groups, 700)).toBe(3);
    expect(barLabelEvery(groups, 2_400)).toBe(1);
    expect(barLabelEvery([], 700)).toBe(1);
  });

  it('slants the labels when level ones would skip bars, so a narrow chart still names each of a few dozen', () => {
    const routes = ['/', '/checkout', '/cart', '/search', '/api/orders', '/api/payments'];
    expect(barLabelLayout(routes, 900)).toEqual({ rotate: 0, every: 1, size: 48 });
    // A dashboard panel or a phone: 300 px for six routes of up to 13 characters.
    expect(barLabelEvery(routes, 300)).toBe(3);
    expect(barLabelLayout(routes, 300)).toEqual({ rotate: 40, every: 1, size: Math.ceil(13 * 7 * Math.sin((40 * Math.PI) / 180)) + 28 });
    // 60 groups in 300 px: 5 px a bar, a slanted label every fourth.
    const many = Array.from({ length: 60 }, (_, index) => `group-${index}`);
    expect(barLabelLayout(many, 300).every).toBe(4);
  });
});

describe('values a line cannot draw', () => {
  it('are those with no value on either side, the ends included', () => {
    expect(isolatedPoints([null, 3, null, null, 4, 5, null, 0])).toEqual([1, 7]);
    expect(isolatedPoints([2])).toEqual([0]);
    expect(isolatedPoints([1, 2, 3])).toBeNull();
    expect(isolatedPoints([null, undefined])).toBeNull();
  });
});

describe('series colours', () => {
  it('gives a severity its own colour, as its badge has it, and other series the palette in turn', () => {
    expect(seriesColour('error', 0)).toBe(seriesColour('ERROR', 5));
    expect(seriesColour('warn', 1)).toBe(seriesColour('warning', 2));
    expect(new Set(['fatal', 'error', 'warn', 'info', 'debug'].map((severity, index) => seriesColour(severity, index))).size).toBe(5);
    expect(seriesColour('error', 0)).not.toBe(seriesColour('debug', 3));
    // Fatal and error lines side by side differ in hue, not only in shade.
    const hue = (hex: string) => {
      const [r, g, b] = [1, 3, 5].map((at) => parseInt(hex.slice(at, at + 2), 16) / 255) as [number, number, number];
      const max = Math.max(r, g, b);
      const min = Math.min(r, g, b);
      const degrees = max === r ? ((g - b) / (max - min)) * 60 : max === g ? ((b - r) / (max - min) + 2) * 60 : ((r - g) / (max - min) + 4) * 60;
      return (degrees + 360) % 360;
    };
    const apart = Math.abs(hue(seriesColour('fatal', 0)) - hue(seriesColour('error', 1)));
    expect(Math.min(apart, 360 - apart)).toBeGreaterThan(45);
    expect(seriesColour('/checkout', 0)).toBe(PALETTE[0]);
    expect(seriesColour('/cart', PALETTE.length + 1)).toBe(PALETTE[1]);
  });

  it('gives each group one colour whatever order two charts list the groups in, all different', () => {
    const bySpans = seriesColours(['checkout-api', 'frontend-web', '(no service)']);
    const byP95 = seriesColours(['frontend-web', '(no service)', 'checkout-api']);
    expect(byP95).toEqual([bySpans[1], bySpans[2], bySpans[0]]);
    expect(new Set(bySpans).size).toBe(3);
    expect(seriesColours(['info', 'error'])).toEqual([seriesColour('info', 0), seriesColour('error', 0)]);
  });
});

describe('localDaySeries', () => {
  const rows = (counts: [string, number][]) => counts.map(([time, value]) => ({ time, value }));
  const days = (xs: number[]) => xs.map((seconds) => new Date(seconds * 1000).toISOString());

  it("sums finer buckets into the zone's days, which start at its midnight, not UTC's", () => {
    // 2026-11-30 23:30 UTC is 15:30 on the 30th in California; 2026-12-01 07:30 UTC is 23:30 on the 30th there;
    // 08:00 UTC is midnight of the 1st.
    const counts = rows([['2026-11-30T23:30:00.000Z', 2], ['2026-12-01T07:30:00.000Z', 3], ['2026-12-01T08:00:00.000Z', 4]]);
    const california = localDaySeries(counts, Date.parse('2026-12-01T20:00:00Z'), 3, 'events', 'America/Los_Angeles');
    expect(days(california.xs)).toEqual(['2026-11-29T08:00:00.000Z', '2026-11-30T08:00:00.000Z', '2026-12-01T08:00:00.000Z']);
    expect(california.series).toEqual([{ label: 'events', values: [0, 5, 4] }]);
    // In UTC the same half hours fall on other days; in India, whose offset is not whole hours, on others again.
    expect(localDaySeries(counts, Date.parse('2026-12-01T20:00:00Z'), 3, 'events', 'UTC').series[0]!.values).toEqual([0, 2, 7]);
    const india = localDaySeries(counts, Date.parse('2026-12-01T20:00:00Z'), 3, 'events', 'Asia/Kolkata');
    expect(days(india.xs)).toEqual(['2026-11-29T18:30:00.000Z', '2026-11-30T18:30:00.000Z', '2026-12-01T18:30:00.000Z']);
    expect(india.series[0]!.values).toEqual([0, 9, 0]);
    // Nepal is 5:45 ahead: its day starts at 18:15 UTC, between two half hours but on a quarter hour.
    const nepal = localDaySeries(rows([['2026-11-30T18:00:00.000Z', 1], ['2026-11-30T18:15:00.000Z', 2]]), Date.parse('2026-12-01T06:00:00Z'), 2, 'events', 'Asia/Kathmandu');
    expect(days(nepal.xs)).toEqual(['2026-11-29T18:15:00.000Z', '2026-11-30T18:15:00.000Z']);
    expect(nepal.series[0]!.values).toEqual([1, 2]);
  });

  it('keeps calendar days across a change of clocks, and leaves out what falls outside the days', () => {
    // Summer time ends in Berlin on 2026-10-25: that day is 25 hours long, and 23:30 on it (22:30 UTC, an hour
    // after what its start plus 24 hours would give) is still its own.
    const counts = rows([['2026-10-24T21:30:00.000Z', 1], ['2026-10-25T22:30:00.000Z', 1], ['2026-10-26T12:00:00.000Z', 7], ['2026-10-20T12:00:00.000Z', 9]]);
    const berlin = localDaySeries(counts, Date.parse('2026-10-26T12:00:00Z'), 3, 'events', 'Europe/Berlin');
    expect(days(berlin.xs)).toEqual(['2026-10-23T22:00:00.000Z', '2026-10-24T22:00:00.000Z', '2026-10-25T23:00:00.000Z']);
    expect(berlin.series[0]!.values).toEqual([1, 1, 7]);
  });
});
