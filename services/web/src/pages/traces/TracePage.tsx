import { useCallback, useMemo, useState } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { CopyButton } from '../../components/CopyButton';
import { RelativeTime } from '../../components/RelativeTime';
import { EmptyState, ErrorNotice, Loading } from '../../components/States';
import { formatDuration } from '../../components/formats';
import { explorePath, rowsOf, tracesBase, useGql } from './hooks';
import { SpanDetails } from './SpanDetails';
import { buildWaterfall, traceErrorsQuery, traceLogsQuery, traceReplayId, traceSpansQuery, type SpanRow } from './traces';
import { Waterfall } from './Waterfall';
import './traces.css';

interface ErrorRow {
  timestamp: string;
  id: string;
  issue_id: string | null;
  type: string | null;
  value: string | null;
  level: string | null;
  span_id: string | null;
}

interface LogRow {
  timestamp: string;
  id: string;
  severity: string;
  message: string;
  span_id: string | null;
}

const SEVERITY_BADGES: Record<string, string> = { error: 'badge-danger', fatal: 'badge-danger', warn: 'badge-warn', warning: 'badge-warn' };

/** "+12.3 ms": a time relative to the trace's start. */
const offsetText = (iso: string, startMs: number) => {
  const at = Date.parse(iso) - startMs;
  return Number.isNaN(at) ? '' : `${at < 0 ? '−' : '+'}${formatDuration(Math.abs(at))}`;
};

/** The errors captured in the trace (`from:errors trace_id:…`), each linked to its issue. */
function TraceErrors({ org, project, traceId, startMs, spanIds, onSelectSpan }: {
  org: string;
  project: string;
  traceId: string;
  startMs: number;
  spanIds: ReadonlySet<string>;
  onSelectSpan: (spanId: string) => void;
}) {
  const query = traceErrorsQuery(traceId);
  const answer = useGql(org, project, query);
  const errors = rowsOf<ErrorRow>(answer.data);
  return (
    <section className="panel trace-side" aria-labelledby="trace-errors-title">
      <h2 id="trace-errors-title">Errors {answer.data ? <span className="muted">({errors.length})</span> : null}</h2>
      {answer.isPending ? <Loading what="the trace's errors" /> : null}
      {answer.isError ? <ErrorNotice error={answer.error} next={<button type="button" className="button button-small" onClick={() => void answer.refetch()}>Try again</button>} /> : null}
      {answer.data && errors.length === 0 ? (
        <p className="muted">No error events carry this trace's ID. Errors sent with the trace's context (Sentry SDKs do this) appear here.</p>
      ) : null}
      {errors.length > 0 ? (
        <ul className="trace-list" aria-label="Errors of the trace">
          {errors.map((error) => {
            const title = [error.type, error.value].filter(Boolean).join(': ') || '(no message)';
            return (
              <li key={error.id}>
                <div className="row nowrap">
                  <span className={`badge ${SEVERITY_BADGES[error.level ?? ''] ?? ''}`}>{error.level ?? 'error'}</span>
                  {error.issue_id ? (
                    <Link className="trace-list-main" to={`${tracesBase(org, project)}/issues/${encodeURIComponent(error.issue_id)}`} title="Open the issue">
                      {title}
                    </Link>
                  ) : (
                    <span className="trace-list-main">{title}</span>
                  )}
                </div>
                <div className="muted trace-list-meta">
                  <span className="mono">{offsetText(error.timestamp, startMs)}</span>
                  {error.span_id && spanIds.has(error.span_id) ? (
                    <button type="button" className="link-button" onClick={() => onSelectSpan(error.span_id!)} aria-label={`show its span: ${title}`}>
                      show its span
                    </button>
                  ) : null}
                  {error.issue_id ? null : <span>not grouped into an issue yet</span>}
                </div>
              </li>
            );
          })}
        </ul>
      ) : null}
      <p className="trace-side-foot">
        <Link to={explorePath(org, project, query)}>Open in Explore</Link>
      </p>
    </section>
  );
}

/** The logs written in the trace (`from:logs trace_id:…`), in time order; the selected span's logs stand out. */
function TraceLogs({ org, project, traceId, startMs, selected, spanIds, onSelectSpan }: {
  org: string;
  project: string;
  traceId: string;
  startMs: number;
  selected: string | null;
  spanIds: ReadonlySet<string>;
  onSelectSpan: (spanId: string) => void;
}) {
  const query = traceLogsQuery(traceId);
  const answer = useGql(org, project, query);
  const logs = rowsOf<LogRow>(answer.data);
  const [onlySelected, setOnlySelected] = useState(false);
  const shown = onlySelected && selected ? logs.filter((log) => log.span_id === selected) : logs;
  return (
    <section className="panel trace-side" aria-labelledby="trace-logs-title">
      <h2 id="trace-logs-title">Logs {answer.data ? <span className="muted">({logs.length === 1000 ? 'first 1,000' : logs.length})</span> : null}</h2>
      {answer.isPending ? <Loading what="the trace's logs" /> : null}
      {answer.isError ? <ErrorNotice error={answer.error} next={<button type="button" className="button button-small" onClick={() => void answer.refetch()}>Try again</button>} /> : null}
      {answer.data && logs.length === 0 ? (
        <p className="muted">No logs carry this trace's ID. Logs written inside a span by an OpenTelemetry logger, or sent with a <code>traceparent</code> header, appear here.</p>
      ) : null}
      {logs.length > 0 ? (
        <>
          <label className="choice">
            <input type="checkbox" checked={onlySelected} disabled={!selected} onChange={(event) => setOnlySelected(event.target.checked)} />
            <span>Only the selected span's logs</span>
          </label>
          <ol className="trace-list trace-logs" aria-label="Logs of the trace">
            {shown.map((log) => (
              <li key={log.id} className={selected && log.span_id === selected ? 'trace-list-selected' : undefined}>
                <div className="row nowrap">
                  <span className={`badge ${SEVERITY_BADGES[log.severity] ?? ''}`}>{log.severity}</span>
                  <span className="trace-list-main trace-log-message">{log.message}</span>
                </div>
                <div className="muted trace-list-meta">
                  <span className="mono">{offsetText(log.timestamp, startMs)}</span>
                  {log.span_id && spanIds.has(log.span_id) ? (
                    <button type="button" className="link-button" onClick={() => onSelectSpan(log.span_id!)} aria-label={`show its span: ${log.message.slice(0, 60)}`}>
                      show its span
                    </button>
                  ) : null}
                </div>
              </li>
            ))}
          </ol>
        </>
      ) : null}
      <p className="trace-side-foot">
        <Link to={explorePath(org, project, query)}>Open in Explore</Link>
      </p>
    </section>
  );
}

export default function TracePage() {
  const { org = '', project = '', trace = '' } = useParams();
  const traceId = trace.toLowerCase();
  const [params, setParams] = useSearchParams();
  const selected = params.get('span');
  const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(new Set());
  const query = traceSpansQuery(traceId);
  const answer = useGql(org, project, query);
  const spans = useMemo(() => rowsOf<SpanRow>(answer.data), [answer.data]);
  const waterfall = useMemo(() => buildWaterfall(spans), [spans]);
  const spanIds = useMemo(() => new Set(spans.map((span) => span.span_id)), [spans]);
  const errorsAnswer = useGql(org, project, traceErrorsQuery(traceId));
  const replayId = useMemo(() => traceReplayId(spans, rowsOf(errorsAnswer.data)), [spans, errorsAnswer.data]);
  const spansWithErrors = useMemo(
    () => new Set(rowsOf<ErrorRow>(errorsAnswer.data).flatMap((error) => (error.span_id ? [error.span_id] : []))),
    [errorsAnswer.data],
  );

  const select = useCallback(
    (spanId: string | null) =>
      setParams(
        (current) => {
          const next = new URLSearchParams(current);
          if (spanId) next.set('span', spanId);
          else next.delete('span');
          return next;
        },
        { replace: true },
      ),
    [setParams],
  );
  const toggle = useCallback(
    (spanId: string) =>
      setCollapsed((current) => {
        const next = new Set(current);
        if (next.has(spanId)) next.delete(spanId);
        else next.add(spanId);
        return next;
      }),
    [],
  );

  const root = waterfall.rows[0]?.span;
  const selectedRow = selected ? waterfall.rows.find((row) => row.span.span_id === selected) : undefined;
  const back = `${tracesBase(org, project)}/traces`;

  return (
    <div className="trace-page">
      <nav aria-label="Breadcrumb" className="trace-breadcrumb">
        <Link to={back}>Traces</Link> <span aria-hidden="true">›</span> <span className="mono">{traceId}</span>
      </nav>
      <header className="row trace-header">
        <h1>{root ? root.name : 'Trace'}</h1>
        <span className="topbar-spacer" />
        <CopyButton text={traceId} label="Copy trace ID" />
        {replayId ? (
          <Link className="button button-small" to={`${tracesBase(org, project)}/replays/${encodeURIComponent(replayId)}${spans[0] ? `?at=${encodeURIComponent(spans[0].timestamp)}` : ''}`}>
            Watch the replay
          </Link>
        ) : null}
        <Link className="button button-small" to={explorePath(org, project, query)}>
          Open spans in Explore
        </Link>
      </header>

      {answer.isPending ? <Loading what="the trace's spans" /> : null}
      {answer.isError ? (
        <ErrorNotice
          error={answer.error}
          next={
            <>
              Check the trace ID in the address, or go back to <Link to={back}>the traces list</Link>.
            </>
          }
        />
      ) : null}
      {answer.data && spans.length === 0 ? (
        <EmptyState title="No spans for this trace">
          <p>
            Nothing in this project's spans has the trace ID <span className="mono">{traceId}</span>. SDKs give errors and logs a trace
            ID even when they send no spans (tracing off, or sampled out); spans that were sent arrive a moment after the exporter sends
            them, and a trace older than the plan's retention is no longer kept.
          </p>
          <div className="row" style={{ justifyContent: 'center' }}>
            <button type="button" className="button" onClick={() => void answer.refetch()}>
              Look again
            </button>
            <Link className="button" to={back}>
              Browse traces
            </Link>
          </div>
        </EmptyState>
      ) : null}

      {spans.length > 0 ? (
        <>
          <dl className="stats trace-stats">
            <div className="stat">
              <dt>Started</dt>
              <dd>
                <RelativeTime iso={new Date(waterfall.startMs).toISOString()} />
              </dd>
            </div>
            <div className="stat">
              <dt>Duration</dt>
              <dd>{formatDuration(waterfall.durationMs)}</dd>
              {waterfall.rootDurationMs !== null && formatDuration(waterfall.rootDurationMs) !== formatDuration(waterfall.durationMs) ? (
                <dd className="trace-stat-note">root span {formatDuration(waterfall.rootDurationMs)}</dd>
              ) : null}
            </div>
            <div className="stat">
              <dt>Spans</dt>
              <dd>{spans.length === 10_000 ? 'first 10,000' : spans.length.toLocaleString()}</dd>
            </div>
            <div className="stat">
              <dt>Services</dt>
              <dd>{waterfall.serviceCount}</dd>
            </div>
            <div className="stat">
              <dt>Error spans</dt>
              <dd className={waterfall.errorCount > 0 ? 'trace-stat-error' : undefined}>{waterfall.errorCount}</dd>
            </div>
          </dl>
          <div className="trace-layout">
            <div className="trace-main">
              <section className="panel trace-waterfall" aria-labelledby="waterfall-title">
                <h2 id="waterfall-title" className="visually-hidden">
                  Waterfall
                </h2>
                <Waterfall
                  waterfall={waterfall}
                  selected={selected}
                  onSelect={(spanId) => select(spanId === selected ? null : spanId)}
                  collapsed={collapsed}
                  onToggle={toggle}
                  spansWithErrors={spansWithErrors}
                />
              </section>
              {selectedRow ? (
                <SpanDetails
                  row={selectedRow}
                  onClose={() => {
                    // The panel's Close goes with the panel: the focus returns to the span it showed, as after Escape.
                    const span = document.querySelector<HTMLElement>('.waterfall-span[aria-pressed="true"]');
                    select(null);
                    span?.focus();
                  }}
                />
              ) : (
                <p className="muted trace-hint">
                  Select a span to see its attributes and events. From the keyboard: <kbd>↑</kbd> <kbd>↓</kbd> move between spans, <kbd>←</kbd>{' '}
                  <kbd>→</kbd> fold and unfold, <kbd>Enter</kbd> selects.
                </p>
              )}
            </div>
            <aside className="trace-aside" aria-label="Errors and logs of the trace">
              <TraceErrors org={org} project={project} traceId={traceId} startMs={waterfall.startMs} spanIds={spanIds} onSelectSpan={select} />
              <TraceLogs
                org={org}
                project={project}
                traceId={traceId}
                startMs={waterfall.startMs}
                selected={selected}
                spanIds={spanIds}
                onSelectSpan={select}
              />
            </aside>
          </div>
        </>
      ) : null}
    </div>
  );
}
