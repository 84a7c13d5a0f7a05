import { useMemo } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { LineChart } from '../../components/Charts';
import { aggregateShape, NO_VALUE, rangeBounds, timeSeriesData } from '../../components/charts';
import { formatDuration } from '../../components/formats';
import { EmptyState, ErrorNotice, Loading } from '../../components/States';
import { explorePath, rowsOf, tracesBase, useGql } from './hooks';
import {
  bucketOf,
  formatRate,
  joinOperationStats,
  RANGES,
  readRange,
  serviceChartQuery,
  serviceQueries,
  type OperationField,
  type OperationStats,
  type Range,
} from './traces';
import './traces.css';

const DEFAULT_RANGE: Range = '1h';
/** A span without a service, as this page names it, in its table and in its chart's legend. */
const NO_SERVICE = '(no service)';
type Metric = 'requests' | 'p95';

/**
 * Spans, errors and p50/p95/p99 per service and operation: five aggregates joined. Every span of an operation counts,
 * client and internal ones too, so the page says spans, not requests.
 */
function useOperationStats(org: string, project: string, range: Range, by: OperationField, service: string | undefined) {
  const queries = serviceQueries(range, by, service);
  const requests = useGql(org, project, queries.requests, { keepPrevious: true });
  const errors = useGql(org, project, queries.errors, { keepPrevious: true });
  const p50 = useGql(org, project, queries.p50, { keepPrevious: true });
  const p95 = useGql(org, project, queries.p95, { keepPrevious: true });
  const p99 = useGql(org, project, queries.p99, { keepPrevious: true });
  const all = [requests, errors, p50, p95, p99];
  const stats = useMemo(
    () =>
      requests.data && errors.data && p50.data && p95.data && p99.data
        ? joinOperationStats(by, {
            requests: rowsOf(requests.data),
            errors: rowsOf(errors.data),
            p50: rowsOf(p50.data),
            p95: rowsOf(p95.data),
            p99: rowsOf(p99.data),
          })
        : undefined,
    [by, requests.data, errors.data, p50.data, p95.data, p99.data],
  );
  return {
    queries,
    stats,
    pending: all.some((answer) => answer.isPending),
    fetching: all.some((answer) => answer.isFetching),
    error: all.find((answer) => answer.isError)?.error,
    refetch: () => all.forEach((answer) => void answer.refetch()),
  };
}

function ServiceChart({ org, project, range, metric, by, service }: { org: string; project: string; range: Range; metric: Metric; by: OperationField; service?: string }) {
  const query = serviceChartQuery(range, metric, by, service);
  const answer = useGql(org, project, query, { keepPrevious: true });
  const series = useMemo(() => {
    if (!answer.data) return undefined;
    const shape = aggregateShape(answer.data.query);
    const data = timeSeriesData(answer.data.data.results, shape, rangeBounds(answer.data.query.time_range ?? null, answer.dataUpdatedAt));
    // Spans without a service are "(no service)" in the legend as in the table below it.
    if (!service) data.series = data.series.map((line) => (line.label === NO_VALUE ? { ...line, label: NO_SERVICE } : line));
    return { shape, data };
  }, [answer.data, answer.dataUpdatedAt, service]);
  const title = `${metric === 'requests' ? 'Spans' : 'p95 duration (ms)'} per ${bucketOf(range)}, by ${service ? (by === 'name' ? 'span name' : 'op') : 'service'}`;
  return (
    <section className="panel" aria-labelledby="services-chart-title">
      <div className="row">
        <h2 id="services-chart-title" className="panel-title">
          {title}
        </h2>
        <span className="topbar-spacer" />
        <Link className="button button-small" to={explorePath(org, project, query)}>
          Open in Explore
        </Link>
      </div>
      {answer.isPending ? <Loading what="the chart" /> : null}
      {answer.isError ? <ErrorNotice error={answer.error} /> : null}
      {series && series.data.xs.length === 0 ? <p className="muted">No spans in this range to chart.</p> : null}
      {series && series.data.xs.length > 0 ? <LineChart data={series.data} shape={series.shape} /> : null}
    </section>
  );
}

function ServiceSection({ name, operations, by, range, org, project, onFocus, focused }: {
  name: string | null;
  operations: OperationStats[];
  by: OperationField;
  range: Range;
  org: string;
  project: string;
  onFocus: (service: string) => void;
  focused: boolean;
}) {
  const requests = operations.reduce((sum, operation) => sum + operation.requests, 0);
  const errors = operations.reduce((sum, operation) => sum + operation.errors, 0);
  const label = name ?? NO_SERVICE;
  const id = `service-${label.replace(/[^a-z0-9]+/gi, '-')}`;
  const tracesLink = (operation: string | null) => {
    const search = new URLSearchParams({ range });
    if (name) search.set('service', name);
    if (operation) {
      search.set(by === 'op' ? 'op' : 'name', operation);
      // Operations are of any span, most of them below a trace's root: the list matches traces holding such a span.
      search.set('match', 'any');
    }
    return `${tracesBase(org, project)}/traces?${search}`;
  };
  return (
    <section className="panel services-service" aria-labelledby={id}>
      <div className="row">
        <h2 id={id}>{label}</h2>
        <span className="topbar-spacer" />
        {name && !focused ? (
          <button type="button" className="button button-small" onClick={() => onFocus(name)}>
            Chart this service
          </button>
        ) : null}
      </div>
      <p className="muted services-service-summary">
        {requests.toLocaleString()} {requests === 1 ? 'span' : 'spans'}, {formatRate(errors, requests)} errors, {operations.length}{' '}
        {operations.length === 1 ? 'operation' : 'operations'}
      </p>
      <table className="grid services-table" aria-label={`Operations of ${label}`}>
        <thead>
          <tr>
            <th scope="col">{by === 'name' ? 'Operation (span name)' : 'Operation (op)'}</th>
            <th scope="col" className="numeric">
              Spans
            </th>
            <th scope="col" className="numeric">
              Errors
            </th>
            <th scope="col" className="numeric">
              Error rate
            </th>
            <th scope="col" className="numeric">
              p50
            </th>
            <th scope="col" className="numeric">
              p95
            </th>
            <th scope="col" className="numeric">
              p99
            </th>
          </tr>
        </thead>
        <tbody>
          {operations.map((operation) => {
            const rate = operation.requests > 0 ? operation.errors / operation.requests : 0;
            return (
              <tr key={operation.operation ?? ''}>
                <th scope="row">
                  <Link to={tracesLink(operation.operation)} title="Traces of this operation">
                    {operation.operation ?? '(none)'}
                  </Link>
                </th>
                <td className="numeric">{operation.requests.toLocaleString()}</td>
                <td className="numeric">{operation.errors.toLocaleString()}</td>
                <td className={`numeric${rate >= 0.05 ? ' services-rate-high' : ''}`}>{formatRate(operation.errors, operation.requests)}</td>
                <td className="numeric">{formatDuration(operation.p50)}</td>
                <td className="numeric">{formatDuration(operation.p95)}</td>
                <td className="numeric">{formatDuration(operation.p99)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}

export default function ServicesPage() {
  const { org = '', project = '' } = useParams();
  const [params, setParams] = useSearchParams();
  const range = readRange(params.get('range'), DEFAULT_RANGE);
  const by: OperationField = params.get('by') === 'op' ? 'op' : 'name';
  const metric: Metric = params.get('chart') === 'p95' ? 'p95' : 'requests';
  const service = params.get('service') || undefined;
  const { queries, stats, pending, fetching, error, refetch } = useOperationStats(org, project, range, by, service);
  const anySpans = useGql(org, project, 'from:spans | count', { enabled: Boolean(stats && stats.length === 0) });
  const base = tracesBase(org, project);

  const set = (key: string, value: string | undefined) =>
    setParams((current) => {
      const next = new URLSearchParams(current);
      if (value) next.set(key, value);
      else next.delete(key);
      return next;
    });

  const services = useMemo(() => {
    const groups = new Map<string | null, OperationStats[]>();
    for (const operation of stats ?? []) {
      const list = groups.get(operation.service) ?? [];
      list.push(operation);
      groups.set(operation.service, list);
    }
    return [...groups.entries()];
  }, [stats]);

  return (
    <div className="services-page">
      <header className="row">
        <h1>Services</h1>
        <span className="topbar-spacer" />
        <Link to={`${base}/traces`}>Traces</Link>
      </header>
      <form className="services-controls panel" aria-label="Services overview options" onSubmit={(event) => event.preventDefault()}>
        <label className="traces-filter">
          <span>Time range</span>
          <select aria-label="Time range" value={range} onChange={(event) => set('range', event.target.value === DEFAULT_RANGE ? undefined : event.target.value)}>
            {RANGES.map((option) => (
              <option key={option.value} value={option.value}>
                {option.label}
              </option>
            ))}
          </select>
        </label>
        <label className="traces-filter">
          <span>Operations are</span>
          <select aria-label="Operations are" value={by} onChange={(event) => set('by', event.target.value === 'op' ? 'op' : undefined)}>
            <option value="name">span names</option>
            <option value="op">ops (http.server, db…)</option>
          </select>
        </label>
        <label className="traces-filter">
          <span>Chart</span>
          <select aria-label="Chart" value={metric} onChange={(event) => set('chart', event.target.value === 'p95' ? 'p95' : undefined)}>
            <option value="requests">Spans</option>
            <option value="p95">p95 duration</option>
          </select>
        </label>
        {service ? (
          <p className="row" style={{ margin: 0 }}>
            <span>
              Service: <strong>{service}</strong>
            </span>
            <button type="button" className="button button-small" onClick={() => set('service', undefined)}>
              All services
            </button>
          </p>
        ) : null}
        {fetching && !pending ? (
          <span className="muted" role="status">
            <span className="spinner" aria-hidden="true" /> refreshing…
          </span>
        ) : null}
      </form>

      {error ? (
        <ErrorNotice
          error={error}
          next={
            <button type="button" className="button button-small" onClick={refetch}>
              Try again
            </button>
          }
        />
      ) : null}
      {pending && !error ? <Loading what="services" /> : null}
      {stats && stats.length === 0 ? (
        anySpans.data && Number(rowsOf(anySpans.data)[0]?.['value'] ?? 0) === 0 ? (
          <EmptyState title="No spans yet">
            <p>Services appear once this project receives spans. Point an OpenTelemetry exporter or a Sentry SDK with tracing at it.</p>
            <p>
              <Link to={`${base}/onboarding?sdk=opentelemetry`}>Set up OpenTelemetry</Link>
            </p>
          </EmptyState>
        ) : (
          <EmptyState title={service ? `No spans from ${service} in this range` : 'No spans in this range'}>
            <p>Choose a longer time range{service ? ' or all services' : ''}.</p>
            <div className="row" style={{ justifyContent: 'center' }}>
              {range !== '7d' ? (
                <button type="button" className="button" onClick={() => set('range', '7d')}>
                  Last 7 days
                </button>
              ) : null}
              {service ? (
                <button type="button" className="button" onClick={() => set('service', undefined)}>
                  All services
                </button>
              ) : null}
            </div>
          </EmptyState>
        )
      ) : null}
      {stats && stats.length > 0 ? (
        <>
          <ServiceChart org={org} project={project} range={range} metric={metric} by={by} service={service} />
          {services.map(([name, operations]) => (
            <ServiceSection
              key={name ?? ''}
              name={name}
              operations={operations}
              by={by}
              range={range}
              org={org}
              project={project}
              focused={service === name}
              onFocus={(focus) => set('service', focus)}
            />
          ))}
          <details className="services-gql">
            <summary>The GQL behind this page</summary>
            <ul>
              {Object.entries(queries).map(([name, query]) => (
                <li key={name}>
                  <Link className="mono" to={explorePath(org, project, query)}>
                    {query}
                  </Link>
                </li>
              ))}
            </ul>
          </details>
        </>
      ) : null}
    </div>
  );
}
