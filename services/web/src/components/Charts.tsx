import { useEffect, useMemo, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { BAR_LABEL_CHARS, barData, barLabelLayout, barSummary, isolatedPoints, lineSummary, PALETTE, seriesColours, type AggregateShape, type SeriesData } from './charts';

const CHART_HEIGHT = 280;
const DAY_S = 86_400;
/**
 * Time axis labels on the 24-hour clock and with month names, as the app writes times elsewhere ("Dec 1, 2026,
 * 17:06:12"), instead of uPlot's "6pm" and "11/30/26". uPlot's table: the smallest tick step each row serves, the
 * label, then the line below it where the year, month, day, hour, minute or second changes, and the mode.
 */
const TIME_AXIS_VALUES: (string | number | null)[][] = [
  [365 * DAY_S, '{YYYY}', null, null, null, null, null, null, 1],
  [28 * DAY_S, '{MMM}', '\n{YYYY}', null, null, null, null, null, 1],
  [DAY_S, '{MMM} {D}', '\n{YYYY}', null, null, null, null, null, 1],
  [3_600, '{HH}:{mm}', '\n{MMM} {D}, {YYYY}', null, '\n{MMM} {D}', null, null, null, 1],
  [60, '{HH}:{mm}', '\n{MMM} {D}, {YYYY}', null, '\n{MMM} {D}', null, null, null, 1],
  [1, ':{ss}', '\n{MMM} {D}, {YYYY} {HH}:{mm}', null, '\n{MMM} {D} {HH}:{mm}', null, '\n{HH}:{mm}', null, 1],
  [0.001, ':{ss}.{fff}', '\n{MMM} {D}, {YYYY} {HH}:{mm}', null, '\n{MMM} {D} {HH}:{mm}', null, '\n{HH}:{mm}', null, 1],
];

/** The value axis's least width, px: its labels are measured, and long ones ("1,000,000,000") widen it. */
const VALUE_AXIS_MIN_PX = 60;

/**
 * The value axis as wide as its longest label needs (uPlot's `size` for an axis, given the labels it draws), at least
 * VALUE_AXIS_MIN_PX: a fixed width cut the start off large values.
 */
function valueAxisSize(chart: uPlot, labels: string[] | null, axisIndex: number): number {
  const axis = chart.axes[axisIndex]!;
  const longest = (labels ?? []).reduce((widest, label) => (label.length > widest.length ? label : widest), '');
  if (!longest) return VALUE_AXIS_MIN_PX;
  chart.ctx.font = (axis.font as unknown as [string])[0];
  const ticks = ((axis.ticks as { size?: number } | undefined)?.size ?? 10) + (axis.gap ?? 5);
  return Math.max(VALUE_AXIS_MIN_PX, Math.ceil(ticks + chart.ctx.measureText(longest).width / uPlot.pxRatio) + 4);
}

/** A uPlot chart sized to its container; remade when its options or data change. */
function UPlot({ options, data, height = CHART_HEIGHT }: { options: Omit<uPlot.Options, 'width' | 'height'>; data: uPlot.AlignedData; height?: number }) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = host.current!;
    // The figure records when the chart last finished drawing (performance.now()), for make bench's answer-to-chart time.
    const drawn = (plot: uPlot) => plot.root.closest('figure')?.setAttribute('data-drawn-at', String(performance.now()));
    const hooks = { ...options.hooks, draw: [...(options.hooks?.draw ?? []), drawn] };
    const minWidth = height < 100 ? 60 : 200;
    const chart = new uPlot({ ...options, hooks, width: Math.max(element.clientWidth, minWidth), height }, data, element);
    const observer = new ResizeObserver(() => chart.setSize({ width: Math.max(element.clientWidth, minWidth), height }));
    observer.observe(element);
    return () => {
      observer.disconnect();
      chart.destroy();
    };
  }, [options, data, height]);
  return <div ref={host} className="explore-chart" />;
}

const shorten = (label: string, length = BAR_LABEL_CHARS) => (label.length > length ? `${label.slice(0, length - 1)}…` : label);

/** Groups and their values as bars, one per group, in the answer's order. */
export function BarChart({ results, shape }: { results: Record<string, unknown>[]; shape: AggregateShape }) {
  const bars = useMemo(() => barData(results, shape.groupBy), [results, shape]);
  const data = useMemo<uPlot.AlignedData>(() => [bars.labels.map((_, index) => index), bars.values], [bars]);
  const options = useMemo<Omit<uPlot.Options, 'width' | 'height'>>(() => {
    return {
      legend: { show: false },
      cursor: { points: { show: false } },
      scales: { x: { time: false, range: [-0.5, bars.labels.length - 0.5] }, y: { range: (_chart, _min, max) => [0, max > 0 ? max * 1.1 : 1] } },
      axes: [
        {
          splits: () => bars.labels.map((_, index) => index),
          values: (chart, splits) => {
            const { every } = barLabelLayout(bars.labels, chart.bbox.width / uPlot.pxRatio);
            return splits.map((split) => (split % every === 0 ? shorten(bars.labels[split] ?? '') : ''));
          },
          rotate: (chart) => barLabelLayout(bars.labels, chart.bbox.width / uPlot.pxRatio).rotate,
          size: (chart) => barLabelLayout(bars.labels, chart.bbox.width / uPlot.pxRatio).size,
          gap: 6,
        },
        { size: valueAxisSize },
      ],
      series: [
        {},
        {
          label: shape.field ? `${shape.func}(${shape.field})` : shape.func,
          fill: `${PALETTE[0]}cc`,
          stroke: PALETTE[0],
          paths: uPlot.paths.bars!({ size: [0.7, 80] }),
          points: { show: false },
        },
      ],
    };
  }, [bars, shape]);
  return (
    <figure className="explore-figure" role="img" aria-label={barSummary(shape, bars.labels.length)} data-points={bars.labels.length}>
      <UPlot options={options} data={data} />
    </figure>
  );
}

/** uPlot's point filter: when points are off, the series' values that stand alone (isolatedPoints). */
const isolatedOnly: uPlot.Series.Points.Filter = (chart, seriesIndex, show) => (show ? null : isolatedPoints(chart.data[seriesIndex] as (number | null)[]));

/**
 * A time series: one line per group, with a legend naming the groups. `sparkline` draws it small, without axes,
 * legend or cursor, to sit in a table row; `height` sets the drawing's height in pixels.
 */
export function LineChart({
  data,
  shape,
  height,
  sparkline = false,
  label,
}: {
  data: SeriesData;
  shape: AggregateShape;
  height?: number;
  sparkline?: boolean;
  /** What the figure says to screen readers, instead of the summary of the aggregate. */
  label?: string;
}) {
  const aligned = useMemo<uPlot.AlignedData>(() => [data.xs, ...data.series.map((series) => series.values)], [data]);
  const options = useMemo<Omit<uPlot.Options, 'width' | 'height'>>(() => {
    const colours = seriesColours(data.series.map((series) => series.label));
    return sparkline
      ? {
          legend: { show: false },
          cursor: { show: false },
          padding: [2, 0, 0, 0],
          // Zero sits a little above the bottom edge, so a quiet stretch still draws a visible line.
          scales: { x: { time: true }, y: { range: (_chart, _min, max) => [-(max > 0 ? max : 1) * 0.12, max > 0 ? max * 1.1 : 1] } },
          axes: [{ show: false }, { show: false }],
          series: [
            {},
            ...data.series.map((series, index) => ({
              label: series.label,
              stroke: colours[index],
              fill: `${colours[index]}22`,
              width: 1.25,
              points: { show: false, filter: isolatedOnly },
            })),
          ],
        }
      : {
          legend: { show: true, live: true },
          // Room on the right for the last time label, which is centred on the last tick.
          padding: [null, 28, null, null],
          scales: { x: { time: true }, y: { range: (_chart, min, max) => [Math.min(0, min), max > 0 ? max * 1.1 : 1] } },
          // Time ticks at least 80 px apart: "Dec 30" is about 45 px wide, and at uPlot's 50 the labels ran together.
          axes: [{ space: 80, values: TIME_AXIS_VALUES as uPlot.Axis.Values }, { size: valueAxisSize }],
          series: [
            { label: 'time', value: '{MMM} {D}, {YYYY}, {HH}:{mm}:{ss}' },
            ...data.series.map((series, index) => ({
              label: series.label,
              stroke: colours[index],
              width: 1.5,
              // A point at every value while they are few; past that, only where no line can show a value.
              points: { show: data.xs.length <= 60, filter: isolatedOnly },
            })),
          ],
        };
  }, [data, sparkline]);
  return (
    <figure
      className={sparkline ? 'chart-sparkline' : 'explore-figure'}
      style={sparkline ? { margin: 0 } : undefined}
      role="img"
      aria-label={label ?? lineSummary(shape, data)}
      data-points={data.xs.length}
      data-series={data.series.length}
    >
      <UPlot options={options} data={aligned} height={height ?? (sparkline ? 28 : CHART_HEIGHT)} />
    </figure>
  );
}
