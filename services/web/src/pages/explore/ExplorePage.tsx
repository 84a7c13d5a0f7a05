import { useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { ApiError } from '../../api/client';
import { durationMs } from '../../components/charts';
import { EmptyState, ErrorNotice, Loading } from '../../components/States';
import { AddToDashboard } from '../dashboards/AddToDashboard';
import { AggregateResults } from './AggregateResults';
import { HistoryMenu, NaturalLanguageBox, SourcePicker, TimeRangePicker } from './Controls';
import { GqlEditor, type GqlEditorHandle, type QueryError } from './GqlEditor';
import { useGqlAnswer, useQueryHistory, useSourceHasRows, type TimedAnswer } from './hooks';
import { LiveTail } from './LiveTail';
import { MAX_SEARCH_ROWS, queryFromSearch, readSource, readTimeRange, schemaTermQuery, searchLimitReached, setTimeRange } from './queryText';
import { ResultsTable } from './ResultsTable';
import { SchemaSidebar } from './SchemaSidebar';

/** The place of a parse or plan error, when the API gives one (400 and some 422 answers). */
function queryErrorOf(error: unknown, text: string): QueryError | null {
  if (!(error instanceof ApiError) || error.code !== 'VALIDATION_ERROR') return null;
  const offset = error.details?.['offset'];
  return typeof offset === 'number' ? { text, offset, message: error.message } : null;
}

/** What a query that does not parse could have had where it stopped, and how GQL reads, under its error. */
function gqlHelp(error: unknown): ReactNode {
  if (!(error instanceof ApiError) || error.code !== 'VALIDATION_ERROR') return undefined;
  const expected = error.details?.['expected'];
  const choices = Array.isArray(expected) ? expected.filter((one): one is string => typeof one === 'string') : [];
  return (
    <>
      {choices.length > 0 ? <p>Expected there: {choices.length === 1 ? choices[0] : `${choices.slice(0, -1).join(', ')} or ${choices.at(-1)}`}.</p> : null}
      <p>
        GQL filters with <code>field:value</code> after a source and aggregates after a pipe, e.g.{' '}
        <code>from:events event_name:signup | count by time(1h)</code>. The Schema list beside the results names each source's fields.
      </p>
    </>
  );
}

const plural = (count: number, one: string) => `${count.toLocaleString()} ${count === 1 ? one : `${one}s`}`;

/** What came back: how many rows or groups, and how long it took. */
function Summary({ timed, stale }: { timed: TimedAnswer; stale: boolean }) {
  const { data } = timed.answer;
  const count =
    data.mode === 'search'
      ? plural(data.results.length, 'row')
      : data.total_groups > data.results.length
        ? `${plural(data.results.length, 'group')} of ${data.total_groups.toLocaleString()}`
        : plural(data.total_groups, 'group');
  const limit = searchLimitReached(data.mode, data.results.length, timed.answer.query.limit);
  return (
    <p className="explore-summary" role="status" aria-live="polite">
      <strong>{count}</strong> <span className="muted">from {data.table} in {timed.elapsedMs.toLocaleString()} ms</span>
      {limit === undefined ? null : limit < MAX_SEARCH_ROWS ? (
        <span className="muted">
          {' '}
          · the first {limit.toLocaleString()}, the query's limit: more may match (a limit of {Math.min(MAX_SEARCH_ROWS, limit * 10)} reads more)
        </span>
      ) : (
        <span className="muted"> · the first {limit.toLocaleString()}, the most a search reads: more may match, so narrow its conditions or time range</span>
      )}
      {stale ? (
        <span className="muted">
          {' '}
          · <span className="spinner" aria-hidden="true" /> running…
        </span>
      ) : null}
    </p>
  );
}

const WEEK_MS = 7 * 86_400_000;

/** Nothing came back: either the source holds nothing yet (set the project up) or the conditions matched nothing. */
function NoResults({ org, project, source, query, onWiden }: { org: string; project: string; source: string; query: string; onWiden: (text: string) => void }) {
  const hasRows = useSourceHasRows(org, project, source, true);
  if (hasRows.isPending) return <Loading what={`whether ${source} has any data`} />;
  if (hasRows.data === false) {
    return (
      <EmptyState title={`No ${source} yet`}>
        <p>Nothing has been sent to this project's {source} yet.</p>
        <p>
          <Link to={`/orgs/${org}/projects/${project}/onboarding`}>Set up the project</Link> to send logs, events and errors, then come back.
        </p>
      </EmptyState>
    );
  }
  // Only ranges wider than the query's own are offered: one as wide would do nothing, a narrower one find less.
  const range = readTimeRange(query);
  const widened = [
    ...(range.kind === 'between' || (range.kind === 'last' && (durationMs(range.duration) ?? Infinity) < WEEK_MS)
      ? [{ label: 'Last 7 days', text: setTimeRange(query, { kind: 'last', duration: '7d' }) }]
      : []),
    ...(range.kind === 'none' ? [] : [{ label: 'All retained data', text: setTimeRange(query, { kind: 'none' }) }]),
  ];
  return (
    <EmptyState title="No rows matched">
      <p>{widened.length > 0 ? 'Nothing in this time range matches the query. Widen the range or loosen the conditions.' : 'Nothing retained matches the query. Loosen its conditions.'}</p>
      {widened.length > 0 ? (
        <div className="row" style={{ justifyContent: 'center' }}>
          {widened.map((choice) => (
            <button key={choice.label} type="button" className="button" onClick={() => onWiden(choice.text)}>
              {choice.label}
            </button>
          ))}
        </div>
      ) : null}
    </EmptyState>
  );
}

export default function ExplorePage() {
  const { org = '', project = '' } = useParams();
  const [params, setParams] = useSearchParams();
  const urlQuery = queryFromSearch(params);
  const [draft, setDraft] = useState(urlQuery);
  const [tailOn, setTailOn] = useState(false);
  const editor = useRef<GqlEditorHandle>(null);
  const answer = useGqlAnswer(org, project, urlQuery);
  const { history, remember } = useQueryHistory(project);

  // The URL is the query: opening a link, Back and Forward all put its text in the editor.
  useEffect(() => setDraft(urlQuery), [urlQuery]);
  // A query someone ran or opened is remembered; the page's own first query, before anything was asked, is not.
  const asked = params.has('q');
  useEffect(() => {
    if (asked) remember(urlQuery);
  }, [asked, urlQuery, remember]);

  const { refetch } = answer;
  const run = useCallback(
    (text: string) => {
      setDraft(text);
      if (text === urlQuery) {
        remember(text);
        void refetch();
      } else setParams({ q: text });
    },
    [urlQuery, refetch, setParams, remember],
  );

  // A term of the query's own source goes into it; one of another source starts a query of that source.
  const insertSchemaTerm = (term: string, source: string) => {
    const started = schemaTermQuery(draft, term, source);
    if (started === undefined) editor.current?.insert(term);
    else {
      setDraft(started);
      editor.current?.focus();
    }
  };

  const current = answer.isPlaceholderData ? undefined : answer.data;
  const queryError = useMemo(() => (answer.isError ? queryErrorOf(answer.error, urlQuery) : null), [answer.isError, answer.error, urlQuery]);
  const tailable = current?.answer.query.source === 'logs' && current.answer.data.mode === 'search';
  const tailing = tailOn && tailable;
  const shown = answer.isError ? undefined : answer.data;

  return (
    <div className="explore">
      <div className="explore-main">
        <header className="explore-header">
          <h1>Explore</h1>
          <HistoryMenu history={history} onPick={run} />
        </header>
        <NaturalLanguageBox
          org={org}
          project={project}
          onQuery={(gql, valid) => (valid ? run(gql) : setDraft(gql))}
        />
        <section className="panel explore-query" aria-label="Query">
          <div className="row explore-controls">
            <SourcePicker text={draft} onPick={run} />
            <TimeRangePicker text={draft} onPick={run} />
          </div>
          <GqlEditor ref={editor} org={org} project={project} value={draft} onChange={setDraft} onRun={run} error={queryError} />
          <div className="row explore-run">
            <button type="button" className="button button-primary" onClick={() => run(draft)}>
              Run
            </button>
            <span className="muted explore-hint">
              <kbd>Ctrl</kbd>/<kbd>⌘</kbd>+<kbd>Enter</kbd> runs · completions appear as you type
            </span>
            <span className="topbar-spacer" />
            {/* What is added is the query that ran and drew these results, not an edit not yet run. */}
            <AddToDashboard org={org} project={project} query={urlQuery} disabled={!current || answer.isError || tailing || draft.trim() !== urlQuery.trim()} />
            <button
              type="button"
              className={`button ${tailing ? 'button-live' : ''}`}
              aria-pressed={tailing}
              disabled={!tailable}
              title={tailable ? 'Stream new logs that match this search' : 'Live tail follows from:logs searches (no count, no by)'}
              onClick={() => {
                // Stopping runs the search again, so the table holds what arrived while it was tailed.
                if (tailOn) void refetch();
                setTailOn(!tailOn);
              }}
            >
              Live tail
            </button>
          </div>
        </section>

        <section className="explore-results" aria-label="Results">
          {tailing ? (
            <LiveTail org={org} project={project} query={urlQuery} />
          ) : (
            <>
              {answer.isError ? <ErrorNotice error={answer.error} next={gqlHelp(answer.error)} /> : null}
              {answer.isPending ? <Loading what="results" /> : null}
              {shown ? (
                <>
                  <Summary timed={shown} stale={answer.isFetching} />
                  {shown.answer.data.results.length === 0 ? (
                    <NoResults
                      org={org}
                      project={project}
                      source={shown.answer.query.source ?? readSource(urlQuery) ?? 'logs'}
                      query={urlQuery}
                      onWiden={run}
                    />
                  ) : shown.answer.data.mode === 'search' ? (
                    <ResultsTable rows={shown.answer.data.results} org={org} project={project} label="Results" source={shown.answer.data.table} />
                  ) : (
                    <AggregateResults answer={shown.answer} answeredAt={answer.dataUpdatedAt} />
                  )}
                </>
              ) : null}
            </>
          )}
        </section>
      </div>
      <SchemaSidebar org={org} project={project} onInsert={insertSchemaTerm} />
    </div>
  );
}
