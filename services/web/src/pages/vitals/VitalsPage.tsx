import { useId, useMemo } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { useGqlAnswer } from '../../api/gql';
import { LineChart } from '../../components/Charts';
import { rangeBounds, timeSeriesData, type AggregateShape } from '../../components/charts';
import { EmptyState, ErrorNotice, Loading } from '../../components/States';
import { NoneInRange, TimeRangeSelect, useTimeRangeParam } from '../../components/TimeRange';
import { trendQuery, useAnyVitals, useRouteVitals, type RouteVital, type RouteVitals } from './hooks';
import { formatVital, isVitalName, RATINGS, thresholdText, VITAL_NAMES, VITAL_RATINGS, VITALS, type VitalName } from './thresholds';
import './vitals.css';

const percent = new Intl.NumberFormat('en-US', { style: 'percent', maximumFractionDigits: 0 });
const count = new Intl.NumberFormat('en-US');

/** The share of samples in each rating as a stacked bar in the standard colours, with the shares in words. */
function RatingBar({ name, vital }: { name: VitalName; vital: RouteVital }) {
  const shares = VITAL_RATINGS.map((rating) => ({ rating, share: vital.samples ? vital.counts[rating] / vital.samples : 0 }));
  const words = shares.map(({ rating, share }) => `${percent.format(share)} ${RATINGS[rating].label}`).join(', ');
  const label = `${VITALS[name].short}: ${words} (${count.format(vital.samples)} ${vital.samples === 1 ? 'sample' : 'samples'})`;
  return (
    <div className="vitals-bar" role="img" aria-label={label} title={label}>
      {shares.map(({ rating, share }) =>
        share > 0 ? <span key={rating} className={`vitals-bar-${rating}`} style={{ width: `${share * 100}%`, background: RATINGS[rating].colour }} /> : null,
      )}
    </div>
  );
}

/** The rating of a p75 in words with its colour. */
function RatingBadge({ rating }: { rating: keyof typeof RATINGS }) {
  return (
    <span className={`vitals-rating vitals-rating-${rating}`}>
      <span className="vitals-dot" style={{ background: RATINGS[rating].colour }} aria-hidden="true" />
      {RATINGS[rating].label}
    </span>
  );
}

function VitalCell({ name, vital }: { name: VitalName; vital: RouteVital | undefined }) {
  if (!vital) {
    return (
      <td className="vitals-cell muted" data-vital={name}>
        no samples
      </td>
    );
  }
  return (
    <td className="vitals-cell" data-vital={name}>
      <div className="vitals-value">
        <strong>{formatVital(name, vital.p75)}</strong> <RatingBadge rating={vital.rating} />
      </div>
      <RatingBar name={name} vital={vital} />
    </td>
  );
}

/** The colours of the bars, once for the page. */
function Legend() {
  return (
    <ul className="vitals-legend" aria-label="Ratings">
      {VITAL_RATINGS.map((rating) => (
        <li key={rating}>
          <span className="vitals-dot" style={{ background: RATINGS[rating].colour }} aria-hidden="true" /> {RATINGS[rating].label}
        </li>
      ))}
    </ul>
  );
}

function RoutesTable({ rows, selected, trendLink }: { rows: RouteVitals[]; selected: string; trendLink: (route: string) => string }) {
  return (
    <table className="grid vitals-table">
      <caption className="visually-hidden">p75 of each web vital by route, with the share of samples rated good, needs improvement and poor</caption>
      <thead>
        <tr>
          <th scope="col">Route</th>
          {VITAL_NAMES.map((name) => (
            <th key={name} scope="col" title={`${VITALS[name].long}: ${thresholdText(name)}`}>
              <abbr title={VITALS[name].long}>{VITALS[name].short}</abbr> p75
            </th>
          ))}
          <th scope="col" className="numeric">
            Samples
          </th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.route} className={row.route === selected ? 'vitals-selected' : undefined}>
            <th scope="row" className="vitals-route">
              <Link to={trendLink(row.route)} aria-current={row.route === selected ? 'true' : undefined} title="Show this route's trend">
                {row.route}
              </Link>
            </th>
            {VITAL_NAMES.map((name) => (
              <VitalCell key={name} name={name} vital={row.vitals[name]} />
            ))}
            <td className="numeric">{count.format(row.samples)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** p75 of one vital on one route over the range, one point per bucket. */
function Trend({ org, project, vital, route, range, bucket }: { org: string; project: string; vital: VitalName; route: string; range: string; bucket: string }) {
  const answer = useGqlAnswer(org, project, trendQuery(vital, route, range, bucket));
  const shape = useMemo<AggregateShape>(() => ({ func: 'p75', field: 'value', groupBy: [], interval: bucket }), [bucket]);
  const data = answer.data?.answer;
  const series = useMemo(() => {
    if (!data) return undefined;
    const computed = timeSeriesData(data.data.results, shape, rangeBounds(data.query.time_range ?? null, Date.now()));
    const unit = VITALS[vital].unit;
    return { ...computed, series: computed.series.map((line) => ({ ...line, label: `p75 ${VITALS[vital].short}${unit ? ` (${unit})` : ''}` })) };
  }, [data, shape, vital]);
  if (answer.isError) return <ErrorNotice error={answer.error} next="Reload the page, or pick another range." />;
  if (!series) return <Loading what="the trend" />;
  if (series.xs.length === 0) {
    return (
      <EmptyState title={`No ${VITALS[vital].short} on ${route} in this range`}>
        <p>Pick another vital or route, or widen the time range.</p>
      </EmptyState>
    );
  }
  const points = data!.data.results.length;
  return (
    <LineChart
      data={series}
      shape={shape}
      label={`Line chart: p75 of ${VITALS[vital].short} on ${route} by time(${bucket}), ${points} ${points === 1 ? 'bucket' : 'buckets'} with samples`}
    />
  );
}

export default function VitalsPage() {
  const { org = '', project = '' } = useParams();
  const [params, setParams] = useSearchParams();
  const ids = useId();
  const { range, setRange } = useTimeRangeParam('24h');
  const vitals = useRouteVitals(org, project, range.value);
  const empty = vitals.rows !== undefined && vitals.rows.length === 0;
  const any = useAnyVitals(org, project, empty);

  const vitalParam = params.get('vital');
  const vital: VitalName = isVitalName(vitalParam) ? vitalParam : 'lcp';
  const route = params.get('route') ?? vitals.rows?.[0]?.route ?? '';
  const withParams = (changes: Record<string, string>) => {
    const next = new URLSearchParams(params);
    for (const [key, value] of Object.entries(changes)) next.set(key, value);
    return `?${next}`;
  };
  const choose = (key: string, value: string) => setParams(new URLSearchParams(withParams({ [key]: value }).slice(1)));
  const setup = `/orgs/${org}/projects/${project}/onboarding`;

  return (
    <div className="vitals">
      <header className="vitals-header">
        <h1>Web vitals</h1>
        <TimeRangeSelect value={range.value} onChange={setRange} />
      </header>
      <p className="muted vitals-intro">
        The 75th percentile (p75) of each Core Web Vital per route, rated by the published thresholds, and how the samples themselves were rated.
        {vitals.isFetching && !vitals.isPending ? (
          <>
            {' '}
            <span className="spinner" aria-hidden="true" /> updating…
          </>
        ) : null}
      </p>

      {vitals.error ? (
        <ErrorNotice error={vitals.error} next="Reload the page to try again; if it keeps failing, check that the server is running." />
      ) : vitals.isPending || !vitals.rows ? (
        <Loading what="web vitals" />
      ) : empty ? (
        any.isPending ? (
          <Loading what="whether this project has any vitals" />
        ) : any.hasAny ? (
          <NoneInRange what="vitals" range={range} onWiden={setRange} />
        ) : (
          <EmptyState title="No vitals yet">
            <p>
              Add the browser client (<code>@tlm/client/browser</code>) or <code>@sentry/browser</code> with tracing
              (<code>browserTracingIntegration()</code>) to your pages. Each page load then sends LCP, INP, CLS, FCP and TTFB.
            </p>
            <p>
              <Link to={setup}>Set up the project</Link> for the snippets with your keys.
            </p>
          </EmptyState>
        )
      ) : (
        <>
          <section className="panel" aria-labelledby="vitals-routes">
            <div className="vitals-section-head">
              <h2 id="vitals-routes" className="panel-title">
                By route
              </h2>
              <Legend />
            </div>
            <div className="vitals-scroll">
              <RoutesTable rows={vitals.rows} selected={route} trendLink={(value) => withParams({ route: value })} />
            </div>
            <p className="field-hint">
              A route's rating is its p75's: {VITAL_NAMES.map((name) => `${VITALS[name].short} ${thresholdText(name)}`).join('; ')}. CLS has no unit.
            </p>
          </section>

          <section className="panel" aria-labelledby="vitals-trend">
            <div className="vitals-section-head">
              <h2 id="vitals-trend" className="panel-title">
                Trend
              </h2>
              <div className="row">
                <div className="explore-control">
                  <label htmlFor={`${ids}-vital`}>Vital</label>
                  <select id={`${ids}-vital`} value={vital} onChange={(event) => choose('vital', event.target.value)}>
                    {VITAL_NAMES.map((name) => (
                      <option key={name} value={name}>
                        {VITALS[name].short}: {VITALS[name].long}
                      </option>
                    ))}
                  </select>
                </div>
                <div className="explore-control">
                  <label htmlFor={`${ids}-route`}>Route</label>
                  <select id={`${ids}-route`} value={route} onChange={(event) => choose('route', event.target.value)}>
                    {vitals.rows.some((row) => row.route === route) ? null : <option value={route}>{route}</option>}
                    {vitals.rows.map((row) => (
                      <option key={row.route} value={row.route}>
                        {row.route}
                      </option>
                    ))}
                  </select>
                </div>
              </div>
            </div>
            <p className="muted vitals-trend-note">
              p75 of {VITALS[vital].long} on <code>{route}</code> every {range.bucket}; {thresholdText(vital)}.
            </p>
            <Trend org={org} project={project} vital={vital} route={route} range={range.value} bucket={range.bucket} />
          </section>
        </>
      )}
    </div>
  );
}
