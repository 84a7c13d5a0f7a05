import { useEffect, useId, useMemo, useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { RelativeTime } from '../../components/RelativeTime';
import { EmptyState, ErrorNotice, Loading } from '../../components/States';
import { formatDuration } from '../../components/formats';
import { explorePath, rowsOf, tracesBase, useGql } from './hooks';
import { matchingTraceIds, matchingTracesQuery, RANGES, readRange, rootsOfTracesQuery, rootsQuery, spanCountQuery, type Range, type TraceFilters } from './traces';
import './traces.css';

interface RootRow {
  timestamp: string;
  trace_id: string;
  span_id: string;
  name: string;
  service: string | null;
  op: string | null;
  status: string;
  duration_ms: number;
}

const DEFAULT_RANGE: Range = '24h';

const numberParam = (value: string | null) => {
  if (value === null || value.trim() === '') return undefined;
  const number = Number(value);
  return Number.isFinite(number) && number >= 0 ? number : undefined;
};

/** The filters as the URL holds them (`?service=&op=&name=&status=&min=&max=&range=`). */
function filtersOf(params: URLSearchParams): TraceFilters {
  const status = params.get('status');
  return {
    service: params.get('service') || undefined,
    op: params.get('op') || undefined,
    name: params.get('name') || undefined,
    status: status === 'ok' || status === 'error' ? status : undefined,
    minMs: numberParam(params.get('min')),
    maxMs: numberParam(params.get('max')),
    range: readRange(params.get('range'), DEFAULT_RANGE),
  };
}

/** The values of one field of root spans (or of any span) in the last 7 days, busiest first, for a filter's choices. */
function useFieldValues(org: string, project: string, field: 'service' | 'op', anySpan: boolean) {
  const answer = useGql(org, project, `from:spans${anySpan ? '' : ' -parent_span_id:*'} last:7d | count by ${field} | limit 200`);
  return useMemo(
    () => rowsOf(answer.data).flatMap((row) => (typeof row[field] === 'string' && row[field] ? [row[field] as string] : [])),
    [answer.data, field],
  );
}

function Filters({ org, project, filters, anySpan, onChange }: {
  org: string;
  project: string;
  filters: TraceFilters;
  anySpan: boolean;
  onChange: (next: Partial<Record<string, string>>) => void;
}) {
  const services = useFieldValues(org, project, 'service', anySpan);
  const ops = useFieldValues(org, project, 'op', anySpan);
  const [name, setName] = useState(filters.name ?? '');
  const [min, setMin] = useState(filters.minMs?.toString() ?? '');
  const [max, setMax] = useState(filters.maxMs?.toString() ?? '');
  useEffect(() => setName(filters.name ?? ''), [filters.name]);
  useEffect(() => setMin(filters.minMs?.toString() ?? ''), [filters.minMs]);
  useEffect(() => setMax(filters.maxMs?.toString() ?? ''), [filters.maxMs]);
  // A maximum below the minimum matches no trace: the browser holds the form back (the max field's own minimum), a note
  // says why, and a choice in a select keeps the durations the list already has.
  const inverted = min.trim() !== '' && max.trim() !== '' && Number(max) < Number(min);
  const rangeHintId = useId();
  const durations = inverted ? { min: filters.minMs?.toString() ?? '', max: filters.maxMs?.toString() ?? '' } : { min: min.trim(), max: max.trim() };
  // A choice in a select applies what is typed in the other fields too, as Apply does.
  const apply = (next: Partial<Record<string, string>> = {}) => onChange({ name: name.trim(), ...durations, ...next });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    apply();
  };
  const withCurrent = (values: string[], current: string | undefined) => (current && !values.includes(current) ? [current, ...values] : values);
  return (
    <form className="traces-filters" onSubmit={submit} aria-label="Filter traces">
      <label className="traces-filter">
        <span>Conditions on</span>
        <select aria-label="Conditions on" value={anySpan ? 'any' : ''} onChange={(event) => apply({ match: event.target.value })}>
          <option value="">the root span</option>
          <option value="any">any span of the trace</option>
        </select>
      </label>
      <label className="traces-filter">
        <span>Service</span>
        <select aria-label="Service" value={filters.service ?? ''} onChange={(event) => apply({ service: event.target.value })}>
          <option value="">Any service</option>
          {withCurrent(services, filters.service).map((service) => (
            <option key={service} value={service}>
              {service}
            </option>
          ))}
        </select>
      </label>
      <label className="traces-filter">
        <span>Operation (op)</span>
        <select aria-label="Operation (op)" value={filters.op ?? ''} onChange={(event) => apply({ op: event.target.value })}>
          <option value="">Any operation</option>
          {withCurrent(ops, filters.op).map((op) => (
            <option key={op} value={op}>
              {op}
            </option>
          ))}
        </select>
      </label>
      <label className="traces-filter">
        <span>Name contains</span>
        <input type="search" value={name} placeholder="GET /checkout" onChange={(event) => setName(event.target.value)} />
      </label>
      <label className="traces-filter">
        <span>Status</span>
        <select aria-label="Status" value={filters.status ?? ''} onChange={(event) => apply({ status: event.target.value })}>
          <option value="">Any status</option>
          <option value="ok">ok</option>
          <option value="error">error</option>
        </select>
      </label>
      <label className="traces-filter">
        <span>Min duration (ms)</span>
        <input type="number" min={0} step="any" inputMode="decimal" value={min} onChange={(event) => setMin(event.target.value)} />
      </label>
      <label className="traces-filter">
        <span>Max duration (ms)</span>
        <input
          type="number"
          min={min.trim() !== '' && Number(min) > 0 ? min : 0}
          step="any"
          inputMode="decimal"
          value={max}
          aria-invalid={inverted || undefined}
          aria-describedby={inverted ? rangeHintId : undefined}
          onChange={(event) => setMax(event.target.value)}
        />
      </label>
      {inverted ? (
        <p id={rangeHintId} className="field-hint field-warn traces-filter-hint" role="alert">
          The maximum duration is below the minimum: no trace lasts both.
        </p>
      ) : null}
      <label className="traces-filter">
        <span>Time range</span>
        <select aria-label="Time range" value={filters.range} onChange={(event) => apply({ range: event.target.value })}>
          {RANGES.map((range) => (
            <option key={range.value} value={range.value}>
              {range.label}
            </option>
          ))}
        </select>
      </label>
      <button type="submit" className="button button-primary">
        Apply
      </button>
    </form>
  );
}

/** Spans per trace from a `count by trace_id` answer. */
function countsByTrace(rows: Record<string, unknown>[]): Map<string, number> {
  return new Map(rows.map((row) => [String(row['trace_id']), Number(row['value'] ?? 0)]));
}

export default function TracesPage() {
  const { org = '', project = '' } = useParams();
  const [params, setParams] = useSearchParams();
  const navigate = useNavigate();
  const filters = useMemo(() => filtersOf(params), [params]);
  const anySpan = params.get('match') === 'any';
  // Conditions on any span: first the traces holding a matching span, then their root spans.
  const matchingQuery = matchingTracesQuery(filters);
  const matching = useGql(org, project, matchingQuery, { enabled: anySpan, keepPrevious: true });
  const matchingIds = useMemo(() => matchingTraceIds(rowsOf(matching.data)), [matching.data]);
  const noMatches = anySpan && matching.isSuccess && matchingIds.length === 0;
  const query = anySpan ? rootsOfTracesQuery(matchingIds, filters.range) : rootsQuery(filters);
  const rootsAnswer = useGql(org, project, query, { keepPrevious: true, enabled: !anySpan || matchingIds.length > 0 });
  const answer = anySpan
    ? {
        isPending: matching.isPending || (!noMatches && rootsAnswer.isPending),
        isError: matching.isError || rootsAnswer.isError,
        error: matching.error ?? rootsAnswer.error,
        isSuccess: noMatches || (matching.isSuccess && rootsAnswer.isSuccess),
        isFetching: matching.isFetching || rootsAnswer.isFetching,
      }
    : rootsAnswer;
  const shownQuery = anySpan
    ? `${matchingQuery}\nthen: from:spans -parent_span_id:* trace_id in [the ${matchingIds.length.toLocaleString()} newest traces above] last:${filters.range} | sort timestamp desc | limit 100`
    : query;
  const roots = useMemo(() => (noMatches ? [] : rowsOf<RootRow>(rootsAnswer.data)), [noMatches, rootsAnswer.data]);
  const traceIds = useMemo(() => [...new Set(roots.map((root) => root.trace_id))], [roots]);
  const counts = useGql(org, project, spanCountQuery(traceIds, filters.range), { enabled: traceIds.length > 0 });
  const errorCounts = useGql(org, project, spanCountQuery(traceIds, filters.range, true), { enabled: traceIds.length > 0 });
  const spanCounts = useMemo(() => countsByTrace(rowsOf(counts.data)), [counts.data]);
  const errorsByTrace = useMemo(() => countsByTrace(rowsOf(errorCounts.data)), [errorCounts.data]);
  const anySpans = useGql(org, project, 'from:spans | count', { enabled: answer.isSuccess && roots.length === 0 });
  const longest = Math.max(1, ...roots.map((root) => Number(root.duration_ms) || 0));
  const base = tracesBase(org, project);

  const change = (next: Partial<Record<string, string>>) =>
    setParams((current) => {
      const updated = new URLSearchParams(current);
      for (const [key, value] of Object.entries(next)) {
        if (value) updated.set(key, value);
        else updated.delete(key);
      }
      return updated;
    });
  const filtered = ['service', 'op', 'name', 'status', 'min', 'max'].some((key) => params.get(key));

  return (
    <div className="traces-page">
      <header className="row">
        <h1>Traces</h1>
        <span className="topbar-spacer" />
        {/* The overview covers the same range as the list it is opened from. */}
        <Link to={`${base}/services?range=${filters.range}`}>Services overview</Link>
      </header>
      <section className="panel" aria-label="Filters">
        <Filters org={org} project={project} filters={filters} anySpan={anySpan} onChange={change} />
        <div className="traces-gql">
          <span className="muted">GQL</span>
          <pre aria-label="GQL query of the list">{shownQuery}</pre>
          <Link className="button button-small" to={explorePath(org, project, anySpan ? matchingQuery : query)}>
            Open in Explore
          </Link>
        </div>
      </section>

      <section aria-label="Traces list">
        {answer.isPending ? <Loading what="traces" /> : null}
        {answer.isError ? <ErrorNotice error={answer.error} next="Change or clear the filters above; the query they write is shown under them." /> : null}
        {answer.isSuccess && roots.length === 0 ? (
          anySpans.data && Number(rowsOf(anySpans.data)[0]?.['value'] ?? 0) === 0 ? (
            <EmptyState title="No traces yet">
              <p>This project has received no spans. Point an OpenTelemetry exporter or a Sentry SDK with tracing at it, then come back.</p>
              <p>
                <Link to={`${base}/onboarding?sdk=opentelemetry`}>Set up OpenTelemetry</Link>
              </p>
            </EmptyState>
          ) : (
            <EmptyState title="No traces match">
              <p>
                {anySpan ? 'No trace in this time range has a span that matches the filters.' : 'No root span in this time range matches the filters.'} Widen
                the range or clear the filters{anySpan ? '' : ', or put the conditions on any span of the trace'}.
              </p>
              <div className="row" style={{ justifyContent: 'center' }}>
                {filters.range !== '7d' ? (
                  <button type="button" className="button" onClick={() => change({ range: '7d' })}>
                    Last 7 days
                  </button>
                ) : null}
                {!anySpan && filtered ? (
                  <button type="button" className="button" onClick={() => change({ match: 'any' })}>
                    Conditions on any span
                  </button>
                ) : null}
                {filtered ? (
                  <button type="button" className="button" onClick={() => setParams(filters.range === DEFAULT_RANGE ? {} : { range: filters.range })}>
                    Clear filters
                  </button>
                ) : null}
              </div>
            </EmptyState>
          )
        ) : null}
        {roots.length > 0 ? (
          <>
            <p className="muted" role="status">
              {roots.length === 100 ? 'The newest 100 traces' : `${roots.length} ${roots.length === 1 ? 'trace' : 'traces'}`}, newest first
              {answer.isFetching ? ' · refreshing…' : ''}
            </p>
            <table className="grid traces-table" aria-label="Traces">
              <thead>
                <tr>
                  <th scope="col">Root span</th>
                  <th scope="col">Service</th>
                  <th scope="col" className="numeric" title="The root span's duration">
                    Duration
                  </th>
                  <th scope="col" className="numeric traces-wide-only">
                    Spans
                  </th>
                  <th scope="col" className="numeric traces-wide-only">
                    Errors
                  </th>
                  <th scope="col">Started</th>
                </tr>
              </thead>
              <tbody>
                {roots.map((root) => {
                  const to = `${base}/traces/${root.trace_id}`;
                  const errors = errorsByTrace.get(root.trace_id) ?? (errorCounts.isSuccess ? 0 : undefined);
                  const spans = spanCounts.get(root.trace_id);
                  return (
                    <tr key={`${root.trace_id}/${root.span_id}`} onClick={() => navigate(to)}>
                      <td>
                        <Link to={to} onClick={(event) => event.stopPropagation()}>
                          {root.name}
                        </Link>
                        {root.op ? <span className="muted"> · {root.op}</span> : null}
                        {root.status === 'error' ? <> <span className="badge badge-danger">error</span></> : null}
                      </td>
                      <td>{root.service ?? <span className="muted">—</span>}</td>
                      <td className="numeric">
                        <span className="traces-duration">
                          <span className="traces-duration-bar" style={{ width: `${Math.max(2, ((Number(root.duration_ms) || 0) / longest) * 80)}px` }} aria-hidden="true" />
                          {formatDuration(root.duration_ms)}
                        </span>
                      </td>
                      <td className="numeric traces-wide-only">{spans === undefined ? <span className="muted">…</span> : spans.toLocaleString()}</td>
                      <td className={`numeric traces-wide-only${errors ? ' traces-errors' : ''}`}>{errors === undefined ? <span className="muted">…</span> : errors.toLocaleString()}</td>
                      <td>
                        <RelativeTime iso={root.timestamp} />
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </>
        ) : null}
      </section>
    </div>
  );
}
