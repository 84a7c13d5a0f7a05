import { useCallback, useId, useMemo, useRef, useState } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { EmptyState, Loading, MissingOrError } from '../../components/States';
import { formatDuration } from '../../components/formats';
import { FLAME_COLOURS, FlameGraph, type FlameGraphHandle, type SearchResult } from './FlameGraph';
import { chunkBodyPath, formatCount, shortId, useProfileBody } from './hooks';
import { callTree, profileThreads, readSentryProfile, sampledDurationMs, topFunctions, type FunctionTime, type SentryProfileChunk } from './profileTree';
import './profiles.css';

const percent = new Intl.NumberFormat('en-US', { style: 'percent', maximumFractionDigits: 1 });

function Metadata({ chunk }: { chunk: SentryProfileChunk }) {
  const duration = sampledDurationMs(chunk);
  const items: [string, string | null, boolean?][] = [
    ['Profiler', chunk.profiler_id ?? null, true],
    ['Release', chunk.release || null, true],
    ['Environment', chunk.environment || null],
    ['Platform', chunk.platform || null],
    ['Duration', duration === null ? null : formatDuration(duration)],
    ['Samples', formatCount(chunk.profile.samples.length)],
  ];
  return (
    <dl className="stats profile-stats">
      {items.map(([term, value, mono]) => (
        <div className="stat" key={term}>
          <dt>{term}</dt>
          <dd className={mono ? 'mono' : undefined} title={value ?? undefined}>
            {value ?? <span className="muted">none</span>}
          </dd>
        </div>
      ))}
    </dl>
  );
}

/** The functions that ran themselves the longest: where the time went, whoever called them. */
function TopFunctions({ functions, threadTotal, onHighlight }: { functions: FunctionTime[]; threadTotal: number; onHighlight: (name: string) => void }) {
  if (functions.length === 0) return <p className="muted">No function ran in this thread's samples: every sample was idle.</p>;
  return (
    <table className="grid profile-functions">
      <caption className="visually-hidden">Top functions by self time</caption>
      <thead>
        <tr>
          <th scope="col">Function</th>
          <th scope="col">Where</th>
          <th scope="col" className="numeric">
            Self time
          </th>
          <th scope="col" className="numeric">
            Self samples
          </th>
          <th scope="col" className="numeric">
            Total time
          </th>
        </tr>
      </thead>
      <tbody>
        {functions.map((entry) => (
          <tr key={`${entry.name}\u0000${entry.file ?? ''}`}>
            <th scope="row">
              <button type="button" className="profile-function" onClick={() => onHighlight(entry.name)} title="Highlight it in the flame graph">
                <span className="profile-swatch" style={{ background: entry.inApp ? FLAME_COLOURS.inApp : FLAME_COLOURS.other }} aria-hidden="true" />
                {entry.name}
              </button>
              {entry.inApp ? <span className="visually-hidden"> (in-app)</span> : null}
            </th>
            <td className="mono profile-where" title={entry.file ?? undefined}>
              {entry.file ? `${entry.file}${entry.line !== null ? `:${entry.line}` : ''}` : <span className="muted">engine</span>}
            </td>
            <td className="numeric">
              {formatDuration(entry.selfMs)} <span className="muted">{threadTotal > 0 ? percent.format(entry.selfSamples / threadTotal) : ''}</span>
            </td>
            <td className="numeric">{formatCount(entry.selfSamples)}</td>
            <td className="numeric">{formatDuration(entry.totalMs)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Profile({ chunk, rawLink }: { chunk: SentryProfileChunk; rawLink: string }) {
  const [params, setParams] = useSearchParams();
  const ids = useId();
  const threads = useMemo(() => profileThreads(chunk), [chunk]);
  const threadId = threads.some((thread) => thread.id === params.get('thread')) ? params.get('thread')! : (threads[0]?.id ?? '');
  const thread = threads.find((candidate) => candidate.id === threadId);
  const tree = useMemo(() => callTree(chunk, threadId), [chunk, threadId]);
  const functions = useMemo(() => topFunctions(chunk, threadId), [chunk, threadId]);
  const search = params.get('search') ?? '';
  const [searchResult, setSearchResult] = useState<SearchResult | null>(null);
  const [zoomed, setZoomed] = useState(false);
  const flame = useRef<FlameGraphHandle>(null);

  const setParam = useCallback(
    (name: string, value: string) =>
      setParams(
        (current) => {
          const next = new URLSearchParams(current);
          if (value) next.set(name, value);
          else next.delete(name);
          return next;
        },
        { replace: name === 'search' },
      ),
    [setParams],
  );

  if (threads.length === 0) {
    return (
      <EmptyState title="This profile has no samples">
        <p>
          The profiler sent the chunk without samples, so there is nothing to draw. <a href={rawLink}>Open the raw body</a> to see what it holds.
        </p>
      </EmptyState>
    );
  }

  return (
    <>
      {chunk.client_sdk?.name ? (
        <p className="muted profile-sdk">
          Sent by {chunk.client_sdk.name}
          {chunk.client_sdk.version ? ` ${chunk.client_sdk.version}` : ''}
        </p>
      ) : null}
      <Metadata chunk={chunk} />
      <section className="panel" aria-labelledby={`${ids}-flame`}>
        <div className="profile-section-head">
          <h2 id={`${ids}-flame`} className="panel-title">
            Flame graph
          </h2>
          <ul className="profile-legend" aria-label="Colours">
            <li>
              <span className="profile-swatch" style={{ background: FLAME_COLOURS.inApp }} aria-hidden="true" /> in-app
            </li>
            <li>
              <span className="profile-swatch" style={{ background: FLAME_COLOURS.other }} aria-hidden="true" /> libraries and the engine
            </li>
            <li>
              <span className="profile-swatch" style={{ background: FLAME_COLOURS.highlight }} aria-hidden="true" /> matches the search
            </li>
          </ul>
        </div>
        <div className="profile-controls">
          <label className="profiles-filter">
            <span>Thread</span>
            <select value={threadId} onChange={(event) => setParam('thread', event.target.value)}>
              {threads.map((candidate) => (
                <option key={candidate.id} value={candidate.id}>
                  {candidate.name} ({formatCount(candidate.samples)} {candidate.samples === 1 ? 'sample' : 'samples'})
                </option>
              ))}
            </select>
          </label>
          <label className="profiles-filter profile-search">
            <span>Search functions</span>
            <input type="search" value={search} placeholder="a function name" onChange={(event) => setParam('search', event.target.value)} />
          </label>
          <button type="button" className="button" disabled={!zoomed} onClick={() => flame.current?.resetZoom()}>
            Reset zoom
          </button>
          <p className="profile-search-result muted" role="status">
            {searchResult
              ? searchResult.frames === 0
                ? `No frame matches “${search.trim()}”.`
                : `${formatCount(searchResult.frames)} ${searchResult.frames === 1 ? 'frame matches' : 'frames match'}: ${formatCount(searchResult.samples)} of ${formatCount(searchResult.total)} samples (${percent.format(searchResult.total ? searchResult.samples / searchResult.total : 0)})`
              : 'Click a frame (or Enter on it; the arrows move between frames) to zoom into it, Escape to zoom out; hover it for its file, samples and time.'}
          </p>
        </div>
        <FlameGraph
          tree={tree}
          search={search}
          label={`Flame graph of thread ${thread?.name ?? threadId}: callers below, the functions they called above, each as wide as its share of ${formatCount(tree.value)} samples`}
          onSearchResult={setSearchResult}
          onZoom={setZoomed}
          ref={flame}
        />
      </section>
      <section className="panel" aria-labelledby={`${ids}-top`}>
        <h2 id={`${ids}-top`} className="panel-title">
          Top functions by self time
        </h2>
        <p className="muted profile-note">
          Time a function spent running itself, not in the functions it called, summed over every caller (each sample counts the time to the
          thread's next one). Click a function to highlight it in the flame graph.
        </p>
        <div className="profiles-scroll">
          <TopFunctions functions={functions} threadTotal={tree.value} onHighlight={(name) => setParam('search', name)} />
        </div>
      </section>
    </>
  );
}

export default function ProfilePage() {
  const { org = '', project = '', chunk: chunkId = '' } = useParams();
  const body = useProfileBody(org, project, chunkId);
  const read = useMemo(() => (body.data === undefined ? undefined : readSentryProfile(body.data)), [body.data]);
  const rawLink = chunkBodyPath(org, project, chunkId);
  const list = `/orgs/${encodeURIComponent(org)}/projects/${encodeURIComponent(project)}/profiles`;

  return (
    <div className="profile">
      <p className="profile-breadcrumb">
        <Link to={list}>← Profiles</Link>
      </p>
      <header className="profile-header">
        <h1>
          Profile chunk <span className="mono" title={chunkId}>{shortId(chunkId)}</span>
        </h1>
        {body.isError ? null : (
          <a className="button button-small" href={rawLink} download={`profile-${chunkId}.json`}>
            Download the raw body
          </a>
        )}
      </header>
      {body.isError ? (
        <MissingOrError error={body.error} title="No such profile" next={<Link to={list}>Go back to the list of profiles.</Link>}>
          <p>
            No profile chunk {chunkId} is stored in this project inside its plan's retention. <Link to={list}>All profiles</Link>
          </p>
        </MissingOrError>
      ) : !read ? (
        <Loading what="the profile" />
      ) : !read.ok ? (
        <EmptyState title="This profile format cannot be drawn">
          <p>
            The flame graph reads Sentry's continuous-profiling sample format v2 (<code>profile_chunk</code>); {read.reason}. The chunk is stored as
            it was sent: <a href={rawLink} download={`profile-${chunkId}.json`}>download the raw body</a> to read it with the profiler's own tools.
          </p>
        </EmptyState>
      ) : (
        <Profile chunk={read.chunk} rawLink={rawLink} />
      )}
    </div>
  );
}
