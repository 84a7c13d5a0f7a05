import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { api } from '../../api/client';
import { keys, projectPath } from '../../api/hooks';
import { CopyButton } from '../../components/CopyButton';
import { RelativeTime } from '../../components/RelativeTime';
import { EmptyState, Loading, MissingOrError } from '../../components/States';
import { rowsOf, tracesBase, useGql } from '../traces/hooks';
import { ReplayPlayer } from './ReplayPlayer';
import { chunkEvents, deviceOf, replayErrorsQuery, type RecordedEvent, type ReplayDetail, type ReplayError } from './replays';
import './replays.css';

/**
 * The recording's events, chunk after chunk in `seq` order: the player starts on the first and takes each next one
 * as it arrives. A chunk that cannot be read is skipped and named, so one bad chunk does not hide the rest.
 */
function useStreamedEvents(org: string, project: string, detail: ReplayDetail | undefined) {
  const [events, setEvents] = useState<RecordedEvent[]>([]);
  const [loading, setLoading] = useState(true);
  const [failed, setFailed] = useState<number[]>([]);
  useEffect(() => {
    if (!detail) return;
    const aborted = new AbortController();
    setEvents([]);
    setFailed([]);
    setLoading(true);
    void (async () => {
      for (const chunk of detail.chunks) {
        try {
          const response = await fetch(`${projectPath(org, project)}/replay/sessions/${encodeURIComponent(detail.session_id)}/chunks/${chunk.seq}`, {
            credentials: 'same-origin',
            signal: aborted.signal,
          });
          if (!response.ok) throw new Error(`chunk ${chunk.seq} answered ${response.status}`);
          const more = await chunkEvents(await response.arrayBuffer());
          if (aborted.signal.aborted) return;
          // Appended as they come: the player hands the Replayer each new chunk's events, which it files in time order.
          setEvents((previous) => [...previous, ...more]);
        } catch {
          if (aborted.signal.aborted) return;
          setFailed((previous) => [...previous, chunk.seq]);
        }
      }
      setLoading(false);
    })();
    return () => aborted.abort();
  }, [org, project, detail]);
  return { events, loading, failed };
}

export default function ReplayPage() {
  const { org = '', project = '', replay = '' } = useParams();
  const [params] = useSearchParams();
  const detail = useQuery({
    queryKey: [...keys.project(org, project), 'replay', replay],
    queryFn: ({ signal }) => api.get<ReplayDetail>(`${projectPath(org, project)}/replay/sessions/${encodeURIComponent(replay)}`, { signal }),
    staleTime: 60_000,
  });
  const { events, loading, failed } = useStreamedEvents(org, project, detail.data);
  const errors = useGql(org, project, replayErrorsQuery(replay, detail.data?.started_at ?? null), { enabled: detail.isSuccess });
  const base = tracesBase(org, project);
  const at = Date.parse(params.get('at') ?? '');
  const openAt = Number.isFinite(at) ? at : undefined;

  if (detail.isPending) return <Loading what="the replay" />;
  if (detail.isError) {
    return (
      <MissingOrError error={detail.error} title="No such replay">
        <p>
          No replay {replay} is stored in this project inside its plan's retention. <Link to={`${base}/replays`}>All replays</Link>
        </p>
      </MissingOrError>
    );
  }
  const session = detail.data;
  const properties = session.properties ?? {};
  const release = typeof properties['release'] === 'string' ? properties['release'] : null;

  return (
    <div className="replay-page">
      <header className="row">
        <h1>Replay</h1>
        <code className="muted">{session.session_id}</code>
        <CopyButton text={session.session_id} label="Copy replay id" />
        <span className="topbar-spacer" />
        <Link to={`${base}/replays`}>All replays</Link>
      </header>
      <dl className="replay-facts">
        <div>
          <dt>User</dt>
          <dd>
            {session.distinct_id ? <Link to={`${base}/replays?user=${encodeURIComponent(session.distinct_id)}`}>{session.distinct_id}</Link> : 'anonymous'}
          </dd>
        </div>
        <div>
          <dt>Started</dt>
          <dd>
            <RelativeTime iso={session.started_at} fallback="unknown" />
          </dd>
        </div>
        <div>
          <dt>First URL</dt>
          <dd className="replay-url">{session.url ?? '—'}</dd>
        </div>
        <div>
          <dt>Device</dt>
          <dd>{deviceOf(session) ?? '—'}</dd>
        </div>
        {release ? (
          <div>
            <dt>Release</dt>
            <dd>{release}</dd>
          </div>
        ) : null}
        <div>
          <dt>Chunks</dt>
          <dd>{session.chunks.length.toLocaleString()}</dd>
        </div>
      </dl>
      {session.chunks.length === 0 ? (
        <EmptyState title="No recording yet">
          <p>The session is known but none of its recording has arrived. Chunks show up here as the browser sends them.</p>
        </EmptyState>
      ) : (
        <ReplayPlayer events={events} loading={loading} errors={rowsOf<ReplayError>(errors.data)} issueBase={`${base}/issues`} openAt={openAt} />
      )}
      {failed.length > 0 ? (
        <p className="state state-warn" role="alert">
          {failed.length === 1 ? `Chunk ${failed[0]} could not be read and is left out.` : `Chunks ${failed.join(', ')} could not be read and are left out.`}
        </p>
      ) : null}
    </div>
  );
}
