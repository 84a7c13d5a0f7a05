import { useMemo } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { RelativeTime } from '../../components/RelativeTime';
import { EmptyState, ErrorNotice, Loading } from '../../components/States';
import { formatDuration } from '../../components/formats';
import { chunkDurationMs, formatBytes, formatCount, MAX_CHUNKS, shortId, useProfileChunks, type ChunkFilters, type ProfileChunk } from './hooks';
import './profiles.css';

/** The newest chunks the list shows. */
const LIST_LIMIT = 100;

const startFormat = new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false });

/** Each value with how many of the chunks have it, most first. */
function choices(chunks: ProfileChunk[], field: 'profiler_id' | 'release'): { value: string; chunks: number }[] {
  const counts = new Map<string, number>();
  for (const chunk of chunks) {
    const value = chunk[field];
    if (value) counts.set(value, (counts.get(value) ?? 0) + 1);
  }
  return [...counts].map(([value, count]) => ({ value, chunks: count })).sort((a, b) => b.chunks - a.chunks || a.value.localeCompare(b.value));
}

function Filters({ all, filters, onChange }: { all: ProfileChunk[]; filters: ChunkFilters; onChange: (name: 'profiler' | 'release', value: string) => void }) {
  const profilers = useMemo(() => choices(all, 'profiler_id'), [all]);
  const releases = useMemo(() => choices(all, 'release'), [all]);
  // A value from the URL that the newest chunks lack (an older profiler) stays choosable.
  const withCurrent = (list: { value: string; chunks: number }[], current: string | undefined) =>
    current && !list.some((choice) => choice.value === current) ? [{ value: current, chunks: 0 }, ...list] : list;
  const plural = (count: number) => (count === 0 ? 'older' : `${formatCount(count)} ${count === 1 ? 'chunk' : 'chunks'}`);
  return (
    <form className="profiles-filters" aria-label="Filter profile chunks" onSubmit={(event) => event.preventDefault()}>
      <label className="profiles-filter">
        <span>Profiler</span>
        <select value={filters.profilerId ?? ''} onChange={(event) => onChange('profiler', event.target.value)}>
          <option value="">All profilers</option>
          {withCurrent(profilers, filters.profilerId).map((choice) => (
            <option key={choice.value} value={choice.value}>
              {shortId(choice.value)} ({plural(choice.chunks)})
            </option>
          ))}
        </select>
      </label>
      <label className="profiles-filter">
        <span>Release</span>
        <select value={filters.release ?? ''} onChange={(event) => onChange('release', event.target.value)}>
          <option value="">All releases</option>
          {withCurrent(releases, filters.release).map((choice) => (
            <option key={choice.value} value={choice.value}>
              {choice.value} ({plural(choice.chunks)})
            </option>
          ))}
        </select>
      </label>
    </form>
  );
}

function ChunksTable({ chunks, chunkLink }: { chunks: ProfileChunk[]; chunkLink: (chunk: ProfileChunk) => string }) {
  return (
    <table className="grid profiles-table">
      <caption className="visually-hidden">Profile chunks, newest first</caption>
      <thead>
        <tr>
          <th scope="col">Started</th>
          <th scope="col" className="numeric">
            Duration
          </th>
          <th scope="col">Profiler</th>
          <th scope="col">Release</th>
          <th scope="col">Environment</th>
          <th scope="col">Platform</th>
          <th scope="col" className="numeric">
            Samples
          </th>
          <th scope="col" className="numeric">
            Size
          </th>
        </tr>
      </thead>
      <tbody>
        {chunks.map((chunk) => (
          <tr key={chunk.chunk_id}>
            <th scope="row" className="profiles-started">
              <Link to={chunkLink(chunk)} title={`Open the profile of chunk ${chunk.chunk_id}`}>
                {startFormat.format(new Date(chunk.started_at))}
              </Link>{' '}
              <span className="muted">
                <RelativeTime iso={chunk.started_at} />
              </span>
            </th>
            <td className="numeric">{formatDuration(chunkDurationMs(chunk))}</td>
            <td className="mono" title={chunk.profiler_id}>
              {shortId(chunk.profiler_id)}
            </td>
            <td className="mono">{chunk.release ?? <span className="muted">none</span>}</td>
            <td>{chunk.environment ?? <span className="muted">none</span>}</td>
            <td>{chunk.platform ?? <span className="muted">unknown</span>}</td>
            <td className="numeric">{formatCount(chunk.sample_count)}</td>
            <td className="numeric">{formatBytes(chunk.size_bytes)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** How to send profiles, for a project that has none yet. */
function NoProfiles({ setup }: { setup: string }) {
  return (
    <EmptyState title="No profiles yet">
      <p>Profiles arrive as chunks from a profiler running in your app:</p>
      <ul className="profiles-how">
        <li>
          <code>@sentry/browser</code>: add <code>browserProfilingIntegration()</code> with <code>profileSessionSampleRate: 1</code>, and serve
          your pages with the header <code>Document-Policy: js-profiling</code>;
        </li>
        <li>
          <code>@sentry/node</code>, <code>sentry-sdk</code> for Python and other Sentry SDKs: turn on continuous profiling
          (<code>profileSessionSampleRate</code>, <code>profile_session_sample_rate</code>);
        </li>
        <li>
          any other profiler: send its JSON to <code>POST /v1/profiles/chunks?profiler_id=…</code> with the project's key.
        </li>
      </ul>
      <p>
        <Link to={setup}>Set up the project</Link> for the DSN and the keys.
      </p>
    </EmptyState>
  );
}

export default function ProfilesPage() {
  const { org = '', project = '' } = useParams();
  const [params, setParams] = useSearchParams();
  const filters: ChunkFilters = { profilerId: params.get('profiler') || undefined, release: params.get('release') || undefined };
  const filtered = Boolean(filters.profilerId || filters.release);
  // The newest chunks of every profiler and release give the filters their choices.
  const all = useProfileChunks(org, project, {}, MAX_CHUNKS);
  const chunks = useProfileChunks(org, project, filters, LIST_LIMIT);
  const base = `/orgs/${encodeURIComponent(org)}/projects/${encodeURIComponent(project)}`;

  const change = (name: 'profiler' | 'release', value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set(name, value);
    else next.delete(name);
    setParams(next);
  };
  const error = all.error ?? chunks.error;

  return (
    <div className="profiles">
      <header className="profiles-header">
        <h1>Profiles</h1>
      </header>
      <p className="muted profiles-intro">
        Profile chunks from your apps' profilers, newest first: each holds the call stacks sampled during a stretch of time. Open one for its flame
        graph and the functions that took the most time.
      </p>
      {error ? (
        <ErrorNotice error={error} next="Reload the page to try again; if it keeps failing, check that the server is running." />
      ) : !all.data || !chunks.data ? (
        <Loading what="profile chunks" />
      ) : all.data.length === 0 ? (
        <NoProfiles setup={`${base}/onboarding`} />
      ) : (
        <>
          <Filters all={all.data} filters={filters} onChange={change} />
          {chunks.data.length === 0 ? (
            <EmptyState title="No chunks match these filters">
              <p>No chunk of this profiler was sent with this release. Choose another profiler or release, or show every chunk.</p>
              <div className="row" style={{ justifyContent: 'center' }}>
                <button type="button" className="button" onClick={() => setParams(new URLSearchParams())}>
                  Show every chunk
                </button>
              </div>
            </EmptyState>
          ) : (
            <section className="panel profiles-list" aria-labelledby="profiles-chunks">
              <h2 id="profiles-chunks" className="panel-title">
                {filtered ? 'Matching chunks' : 'Chunks'}{' '}
                <span className="muted profiles-count">
                  {formatCount(chunks.data.length)}
                  {chunks.data.length === LIST_LIMIT ? `, the newest ${LIST_LIMIT}` : ''}
                </span>
              </h2>
              <div className="profiles-scroll">
                <ChunksTable chunks={chunks.data} chunkLink={(chunk) => `${base}/profiles/${encodeURIComponent(chunk.chunk_id)}`} />
              </div>
            </section>
          )}
        </>
      )}
    </div>
  );
}
