import { useMemo } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { LineChart } from '../../components/Charts';
import { localDaySeries, rangeBounds, timeSeriesData } from '../../components/charts';
import { BreakableText } from '../../components/BreakableText';
import { CopyButton } from '../../components/CopyButton';
import { formatDateTime } from '../../components/formats';
import { RelativeTime } from '../../components/RelativeTime';
import { EmptyState, ErrorNotice, Loading } from '../../components/States';
import { useFocusRequest } from '../../components/useFocusRequest';
import { useMenu } from '../../components/useMenu';
import { useTabTitle } from '../../components/useTabTitle';
import { Breadcrumbs } from './Breadcrumbs';
import { useIssue, useIssueAction, useIssueChart, useIssueEvent, useIssueEvents, useReleases, useTraceSpanCount, type IssueAction } from './hooks';
import { LevelBadge } from './LevelBadge';
import {
  CHART_RANGES,
  chainOf,
  explorePath,
  logIdOf,
  logQuery,
  releaseNames,
  replayIdOf,
  traceSpansQuery,
  type ChartRange,
  type ErrorEvent,
  type Issue,
} from './queries';
import { StackTrace } from './StackTrace';
import './issues.css';

const STATUS_TONE: Record<string, string> = { unresolved: 'badge-warn', regressed: 'badge-danger', resolved: 'badge-ok', ignored: '' };

/** Resolve in a release: the project's releases, busiest first, one click each. */
function ReleaseMenu({ org, project, onPick, disabled }: { org: string; project: string; onPick: (release: string) => void; disabled: boolean }) {
  const releases = useReleases(org, project);
  const names = releaseNames(releases.releases ?? []);
  const menu = useMenu();
  if (disabled) {
    return (
      <button type="button" className="button" disabled>
        Resolve in release ▾
      </button>
    );
  }
  return (
    <details ref={menu} className="issue-release-menu">
      <summary className="button">Resolve in release ▾</summary>
      <ul aria-label="Releases">
        {releases.isPending ? (
          <li>
            <Loading what="releases" />
          </li>
        ) : releases.isError ? (
          <li>
            <ErrorNotice error={releases.error} />
          </li>
        ) : names.length === 0 ? (
          <li>
            <p className="muted">No error of this project names a release. Set <code>release</code> in the SDK's options to resolve issues in one.</p>
          </li>
        ) : (
          names.map((release) => (
            <li key={release}>
              <button
                type="button"
                onClick={(event) => {
                  event.currentTarget.closest('details')?.removeAttribute('open');
                  onPick(release);
                }}
              >
                <code>{release}</code>
              </button>
            </li>
          ))
        )}
      </ul>
    </details>
  );
}

function IssueHeader({ issue, org, project }: { issue: Issue; org: string; project: string }) {
  const action = useIssueAction(org, project);
  const busy = action.isPending;
  // The button pressed is disabled once its status is the issue's (or, for a release, its menu closes): focus goes
  // on to the first action still open.
  const focusNext = useFocusRequest(!busy, issue.status);
  const act = (what: IssueAction) =>
    action.mutate({ ids: [issue.id], action: what }, { onSuccess: () => focusNext(['.issue-actions > button', '.issue-actions summary']) });
  return (
    <header className="panel">
      <div className="issue-head">
        <div>
          <h1>
            <BreakableText text={issue.title} />
          </h1>
          <div className="issue-sub">
            <LevelBadge level={issue.level} />
            <span className={`badge ${STATUS_TONE[issue.status] ?? ''}`} aria-label={`Status: ${issue.status}`}>
              {issue.status}
            </span>
            <span className="mono">#{issue.short_id}</span>
            <span className="mono issue-culprit" title="culprit">
              {issue.culprit || 'no culprit'}
            </span>
          </div>
        </div>
        <div className="issue-actions" role="group" aria-label="Issue actions">
          <button type="button" className="button button-primary" disabled={busy || (issue.status === 'resolved' && !issue.resolved_in_release)} onClick={() => act({ action: 'resolve' })}>
            Resolve
          </button>
          <ReleaseMenu org={org} project={project} disabled={busy} onPick={(release) => act({ action: 'resolve', release })} />
          <button type="button" className="button" disabled={busy || issue.status === 'ignored'} onClick={() => act({ action: 'ignore' })}>
            Ignore
          </button>
          <button type="button" className="button" disabled={busy || issue.status === 'unresolved'} onClick={() => act({ action: 'unresolve' })}>
            Unresolve
          </button>
        </div>
      </div>
      {issue.status === 'resolved' ? (
        <p className="issue-status-note muted">
          {issue.resolved_in_release ? (
            <>
              Resolved in <code>{issue.resolved_in_release}</code>: an error of another release makes it regressed.
            </>
          ) : (
            'Resolved: the next error of this issue, in any release, makes it regressed.'
          )}
        </p>
      ) : issue.status === 'ignored' ? (
        <p className="issue-status-note muted">Ignored: hidden from the other tabs of the issue list until you unresolve it.</p>
      ) : issue.status === 'regressed' ? (
        <p className="issue-status-note muted">Regressed: it happened again after it was resolved.</p>
      ) : null}
      {action.isError ? <ErrorNotice error={action.error} next="The status shown is the server's; try again." /> : null}
      <dl className="issue-stats" style={{ marginTop: '1rem' }}>
        <div>
          <dt>Events</dt>
          <dd>{issue.event_count.toLocaleString()}</dd>
        </div>
        <div>
          <dt>Users</dt>
          <dd>{issue.user_count.toLocaleString()}</dd>
        </div>
        <div>
          <dt>First seen</dt>
          <dd>
            <RelativeTime iso={issue.first_seen} />
          </dd>
        </div>
        <div>
          <dt>Last seen</dt>
          <dd>
            <RelativeTime iso={issue.last_seen} />
          </dd>
        </div>
        <div>
          <dt>First release</dt>
          <dd>{issue.release_first ? <code>{issue.release_first}</code> : <span className="muted">none</span>}</dd>
        </div>
        <div>
          <dt>Last release</dt>
          <dd>{issue.release_last ? <code>{issue.release_last}</code> : <span className="muted">none</span>}</dd>
        </div>
        <div>
          <dt>Fingerprint</dt>
          <dd className="mono" title={issue.fingerprint}>
            {issue.fingerprint.slice(0, 12)}
          </dd>
        </div>
      </dl>
    </header>
  );
}

function EventsChart({ org, project, issueId, range, onRange }: { org: string; project: string; issueId: string; range: ChartRange; onRange: (range: ChartRange) => void }) {
  const chart = useIssueChart(org, project, issueId, range);
  const answer = chart.answer;
  const { localDays } = CHART_RANGES.find((candidate) => candidate.range === range)!;
  const data = useMemo(() => {
    if (!answer) return undefined;
    if (localDays > 0) {
      const series = localDaySeries(answer.data.results, chart.dataUpdatedAt, localDays, 'events');
      return { shape: { func: 'count', field: null, groupBy: [], interval: '1d' }, series: series.series[0]!.values.some((value) => value) ? series : { xs: [], series: [] } };
    }
    const shape = { func: 'count', field: null, groupBy: [], interval: answer.query.interval ?? '1h' };
    const series = timeSeriesData(answer.data.results, shape, rangeBounds(answer.query.time_range, chart.dataUpdatedAt));
    return { shape, series: { ...series, series: series.series.map((line) => ({ ...line, label: 'events' })) } };
  }, [answer, chart.dataUpdatedAt, localDays]);
  return (
    <section className="panel" aria-labelledby="issue-chart">
      <div className="issue-section-head">
        <h2 id="issue-chart">Events over time</h2>
        <div className="row" role="group" aria-label="Chart range">
          {CHART_RANGES.map((candidate) => (
            <button
              key={candidate.range}
              type="button"
              className="button button-small"
              aria-pressed={candidate.range === range}
              onClick={() => onRange(candidate.range)}
            >
              {candidate.label}
            </button>
          ))}
        </div>
      </div>
      {chart.isPending ? (
        <Loading what="the chart" />
      ) : chart.isError ? (
        <ErrorNotice error={chart.error} next="Reload the page to try again." />
      ) : !data || data.series.xs.length === 0 ? (
        <p className="muted">No events in this range. Choose a longer range.</p>
      ) : (
        <LineChart data={data.series} shape={data.shape} height={180} label={`Events of this issue, ${CHART_RANGES.find((candidate) => candidate.range === range)!.label.toLowerCase()}`} />
      )}
    </section>
  );
}

function KeyValues({ values, empty }: { values: [string, unknown][]; empty: string }) {
  const shown = values.filter(([, value]) => value !== null && value !== undefined && value !== '');
  if (shown.length === 0) return <p className="muted">{empty}</p>;
  return (
    <dl className="kv">
      {shown.map(([key, value]) => (
        <div key={key} style={{ display: 'contents' }}>
          <dt>{key}</dt>
          <dd>{typeof value === 'string' ? value : JSON.stringify(value)}</dd>
        </div>
      ))}
    </dl>
  );
}

function EventLinks({ event, org, project }: { event: ErrorEvent; org: string; project: string }) {
  const base = `/orgs/${org}/projects/${project}`;
  const replay = replayIdOf(event);
  const log = logIdOf(event);
  // An SDK names a trace whether or not its spans are sent: the trace's links wait until some have arrived.
  const spans = useTraceSpanCount(org, project, event.trace_id ?? null);
  if (!event.trace_id && !replay && !log) return null;
  return (
    <ul className="issue-event-links" aria-label="Related">
      {event.trace_id && spans === 0 ? (
        <li className="muted">
          Trace <code>{event.trace_id}</code>: none of its spans were received (the SDK sends them when tracing is on).
        </li>
      ) : event.trace_id ? (
        <>
          <li>
            <Link to={`${base}/traces/${event.trace_id}`}>Open the trace</Link>
          </li>
          <li>
            <Link to={explorePath(org, project, traceSpansQuery(event.trace_id))}>The trace's spans in the explorer</Link>
          </li>
        </>
      ) : null}
      {replay ? (
        <li>
          <Link to={`${base}/replays/${encodeURIComponent(replay)}?at=${encodeURIComponent(event.timestamp)}`}>Watch the replay at this error</Link>{' '}
          <CopyButton text={replay} label="Copy replay id" />
        </li>
      ) : null}
      {log ? (
        <li>
          <Link to={explorePath(org, project, logQuery(log))}>The log this error was made from</Link>
        </li>
      ) : null}
    </ul>
  );
}

function EventPanel({ org, project, issueId, eventId, onEvent }: { org: string; project: string; issueId: string; eventId: string | null; onEvent: (id: string | null) => void }) {
  const list = useIssueEvents(org, project, issueId);
  const current = useIssueEvent(org, project, issueId, eventId);
  const event = current.event;
  const events = list.events ?? [];
  const position = event ? events.findIndex((candidate) => candidate.id === event.id) : -1;
  const newer = position > 0 ? events[position - 1] : undefined;
  const older = position >= 0 && position < events.length - 1 ? events[position + 1] : undefined;
  const chain = event ? chainOf(event) : [];
  // Errors the log scanner made of error logs: no SDK sent them, so advice about SDKs does not apply.
  const fromLog = event ? logIdOf(event) !== null : false;
  const sdk = event ? [event.extra['sdk.name'], event.extra['sdk.version']].filter(Boolean).join(' ') : '';

  return (
    <div className="issue-layout">
      <div>
        <section className="panel" aria-labelledby="issue-event">
          <div className="issue-section-head">
            <h2 id="issue-event">{eventId ? 'Event' : 'Latest event'}</h2>
            <nav className="issue-event-nav" aria-label="Events of this issue">
              {position >= 0 ? (
                <span className="muted">
                  {(position + 1).toLocaleString()} of {events.length.toLocaleString()}
                  {events.length >= 1000 ? '+' : ''}, newest first
                </span>
              ) : null}
              <button type="button" className="button button-small" disabled={!older} onClick={() => older && onEvent(older.id)}>
                ← Older
              </button>
              <button type="button" className="button button-small" disabled={!newer} onClick={() => newer && onEvent(newer === events[0] ? null : newer.id)}>
                Newer →
              </button>
              <button type="button" className="button button-small" disabled={position === 0 || !eventId} onClick={() => onEvent(null)}>
                Latest
              </button>
            </nav>
          </div>
          {current.isPending ? (
            <Loading what="the event" />
          ) : current.isError ? (
            <ErrorNotice error={current.error} next="Reload the page to try again." />
          ) : !event ? (
            <EmptyState title={eventId ? 'No such event in this issue' : 'No events kept for this issue'}>
              <p>
                {eventId
                  ? 'The event may be older than the plan keeps, or belong to another issue.'
                  : "Its events are older than the plan's retention; new ones will show here."}
              </p>
              {eventId ? (
                <button type="button" className="button" onClick={() => onEvent(null)}>
                  Show the latest event
                </button>
              ) : null}
            </EmptyState>
          ) : (
            <>
              <p className="muted">
                <span className="mono">{event.id}</span> · <RelativeTime iso={event.timestamp} /> · {formatDateTime(event.timestamp)}
                {current.isFetching ? (
                  <>
                    {' '}
                    · <span className="spinner" aria-hidden="true" />
                  </>
                ) : null}
              </p>
              <EventLinks event={event} org={org} project={project} />

              <div className="issue-exception">
                <h3 className="issue-exception-type">{event.type || 'Message'}</h3>
                <p className="issue-exception-value mono">{event.value}</p>
                {chain.length > 0 ? (
                  <>
                    <h4 style={{ margin: '0.75rem 0 0.25rem' }}>Chained exceptions</h4>
                    <ol className="issue-chain" aria-label="Chained exceptions, nearest first">
                      {chain.map((link, index) => (
                        <li key={index}>
                          <span className="muted">{link.relation === 'context' ? 'raised while handling' : 'caused by'}</span>{' '}
                          <strong>{link.type || 'Error'}</strong>: <span className="mono">{link.value}</span>
                        </li>
                      ))}
                    </ol>
                  </>
                ) : null}
              </div>

              <section aria-labelledby="issue-stack">
                <h3 id="issue-stack">Stack trace</h3>
                <StackTrace frames={event.frames} fromLog={fromLog} />
              </section>

              <section aria-labelledby="issue-crumbs" style={{ marginTop: '1.25rem' }}>
                <h3 id="issue-crumbs">Breadcrumbs</h3>
                <Breadcrumbs crumbs={event.breadcrumbs} eventTimestamp={event.timestamp} fromLog={fromLog} />
              </section>
            </>
          )}
        </section>
      </div>
      {event ? (
        <aside className="issue-side" aria-label="Event details">
          <section className="panel" aria-labelledby="issue-context">
            <h2 id="issue-context">Context</h2>
            <KeyValues
              values={[
                ['release', event.release],
                ['environment', event.environment],
                ['level', event.level],
                ['platform', event.platform],
                ['SDK', sdk],
                ['mechanism', event.source],
                ['url', event.extra['request.url']],
                ['trace', event.trace_id],
              ]}
              empty={fromLog ? 'The log had no release or environment property.' : 'The SDK sent no release, environment or SDK name.'}
            />
          </section>
          <section className="panel" aria-labelledby="issue-user">
            <h2 id="issue-user">User</h2>
            <KeyValues
              values={Object.entries(event.user)}
              empty={
                fromLog
                  ? 'No user: a log names one in its distinct_id, $distinct_id or user.id property.'
                  : 'No user: set one with Sentry.setUser() to count users.'
              }
            />
          </section>
          <section className="panel" aria-labelledby="issue-tags">
            <h2 id="issue-tags">Tags</h2>
            <KeyValues values={Object.entries(event.tags).sort(([a], [b]) => a.localeCompare(b))} empty="No tags on this event." />
          </section>
        </aside>
      ) : null}
    </div>
  );
}

export default function IssuePage() {
  const { org = '', project = '', issue: issueId = '' } = useParams();
  const [params, setParams] = useSearchParams();
  const eventId = params.get('event');
  const range = (CHART_RANGES.some((candidate) => candidate.range === params.get('range')) ? params.get('range') : '24h') as ChartRange;
  const issue = useIssue(org, project, issueId);
  useTabTitle(issue.issue?.title);
  const listPath = `/orgs/${org}/projects/${project}/issues`;
  const set = (name: string, value: string | null) =>
    setParams((current) => {
      const next = new URLSearchParams(current);
      if (value === null) next.delete(name);
      else next.set(name, value);
      return next;
    });

  return (
    <div className="issue">
      <Link to={listPath} className="issue-back">
        ← Issues
      </Link>
      {issue.isPending ? (
        <Loading what="the issue" />
      ) : issue.isError ? (
        <ErrorNotice error={issue.error} next={<Link to={listPath}>Back to the issue list</Link>} />
      ) : !issue.issue ? (
        <EmptyState title="No such issue in this project">
          <p>It may belong to another project, or its last event is older than the plan keeps.</p>
          <Link to={listPath}>Back to the issue list</Link>
        </EmptyState>
      ) : (
        <>
          <IssueHeader issue={issue.issue} org={org} project={project} />
          <EventsChart org={org} project={project} issueId={issueId} range={range} onRange={(next) => set('range', next === '24h' ? null : next)} />
          <EventPanel org={org} project={project} issueId={issueId} eventId={eventId} onEvent={(id) => set('event', id)} />
        </>
      )}
    </div>
  );
}
