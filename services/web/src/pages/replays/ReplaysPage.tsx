import { useQuery } from '@tanstack/react-query';
import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { api } from '../../api/client';
import { keys, projectPath } from '../../api/hooks';
import { RelativeTime } from '../../components/RelativeTime';
import { EmptyState, ErrorNotice, Loading } from '../../components/States';
import { formatDuration } from '../../components/formats';
import { rowsOf, tracesBase, useGql } from '../traces/hooks';
import { deviceOf, errorCountsOf, errorCountsQueries, REPLAY_LIST_LIMIT, replayDurationMs, type ReplaySession } from './replays';
import './replays.css';

/** The project's replay sessions, newest first, optionally of one person (`GET …/replay/sessions`). */
function useReplaySessions(org: string, project: string, distinctId: string | undefined) {
  return useQuery({
    queryKey: [...keys.project(org, project), 'replays', distinctId ?? ''],
    queryFn: ({ signal }) =>
      api.get<{ sessions: ReplaySession[] }>(`${projectPath(org, project)}/replay/sessions`, { query: { limit: REPLAY_LIST_LIMIT, distinct_id: distinctId }, signal }),
  });
}

function UserFilter({ value, onChange }: { value: string; onChange: (value: string) => void }) {
  const [text, setText] = useState(value);
  useEffect(() => setText(value), [value]);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onChange(text.trim());
  };
  return (
    <form className="row replays-filter" onSubmit={submit} aria-label="Filter replays">
      <label>
        <span>User (distinct id)</span>
        <input type="search" value={text} placeholder="user-42" onChange={(event) => setText(event.target.value)} />
      </label>
      <button type="submit" className="button">
        Apply
      </button>
      {value ? (
        <button type="button" className="button" onClick={() => onChange('')}>
          Clear
        </button>
      ) : null}
    </form>
  );
}

export default function ReplaysPage() {
  const { org = '', project = '' } = useParams();
  const [params, setParams] = useSearchParams();
  const navigate = useNavigate();
  const distinctId = params.get('user') || undefined;
  const sessions = useReplaySessions(org, project, distinctId);
  const list = useMemo(() => sessions.data?.sessions ?? [], [sessions.data]);
  const ids = list.map((session) => session.session_id);
  const oldest = list.reduce<string | undefined>((min, session) => (session.started_at && (!min || session.started_at < min) ? session.started_at : min), undefined);
  const [byTag, byContext] = errorCountsQueries(ids, oldest ?? new Date(0).toISOString());
  const tagged = useGql(org, project, byTag!, { enabled: ids.length > 0 });
  const withContext = useGql(org, project, byContext!, { enabled: ids.length > 0 });
  const counted = tagged.isSuccess && withContext.isSuccess;
  const errorsByReplay = useMemo(() => errorCountsOf([rowsOf(tagged.data), rowsOf(withContext.data)]), [tagged.data, withContext.data]);
  const base = `${tracesBase(org, project)}/replays`;

  return (
    <div className="replays-page">
      <header className="row">
        <h1>Replays</h1>
      </header>
      <section className="panel" aria-label="Filters">
        <UserFilter value={distinctId ?? ''} onChange={(user) => setParams(user ? { user } : {})} />
      </section>
      <section aria-label="Replays list">
        {sessions.isPending ? <Loading what="replays" /> : null}
        {sessions.isError ? <ErrorNotice error={sessions.error} /> : null}
        {sessions.isSuccess && list.length === 0 ? (
          distinctId ? (
            <EmptyState title="No replays of this user">
              <p>No replay session names the user {distinctId}.</p>
            </EmptyState>
          ) : (
            <EmptyState title="No replays yet">
              <p>
                Turn on session replay in the browser: <code>replayIntegration()</code> of the Sentry SDK, or <code>replay: true</code> of{' '}
                <code>@tlm/client/browser</code>. Recordings show up here as their first chunk arrives.
              </p>
              <p>
                <Link to={`${tracesBase(org, project)}/onboarding`}>Set up a browser SDK</Link>
              </p>
            </EmptyState>
          )
        ) : null}
        {list.length > 0 ? (
          <>
            <p className="muted" role="status">
              {list.length === REPLAY_LIST_LIMIT ? `The newest ${REPLAY_LIST_LIMIT} replays` : `${list.length} ${list.length === 1 ? 'replay' : 'replays'}`}, newest first
            </p>
            <table className="grid replays-table" aria-label="Replays">
              <thead>
                <tr>
                  <th scope="col">User</th>
                  <th scope="col">First URL</th>
                  <th scope="col">Started</th>
                  <th scope="col" className="numeric">
                    Duration
                  </th>
                  <th scope="col" className="numeric">
                    Errors
                  </th>
                  <th scope="col">Device</th>
                </tr>
              </thead>
              <tbody>
                {list.map((session) => {
                  const to = `${base}/${encodeURIComponent(session.session_id)}`;
                  const errors = errorsByReplay.get(session.session_id) ?? (counted ? 0 : undefined);
                  return (
                    <tr key={session.session_id} onClick={() => navigate(to)}>
                      <td>
                        <Link to={to} onClick={(event) => event.stopPropagation()}>
                          {session.distinct_id ?? <span className="muted">anonymous</span>}
                        </Link>
                      </td>
                      <td className="replays-url" title={session.url ?? undefined}>
                        {session.url ?? <span className="muted">—</span>}
                      </td>
                      <td>
                        <RelativeTime iso={session.started_at} fallback="unknown" />
                      </td>
                      <td className="numeric">{formatDuration(replayDurationMs(session))}</td>
                      <td className={`numeric${errors ? ' replays-errors' : ''}`}>{errors === undefined ? <span className="muted">…</span> : errors.toLocaleString()}</td>
                      <td className="muted">{deviceOf(session) ?? '—'}</td>
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
