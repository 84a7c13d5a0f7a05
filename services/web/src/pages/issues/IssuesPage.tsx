import { useEffect, useId, useMemo, useState, type FormEvent } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { ApiError } from '../../api/client';
import { BreakableText } from '../../components/BreakableText';
import { LineChart } from '../../components/Charts';
import { RelativeTime } from '../../components/RelativeTime';
import { EmptyState, ErrorNotice, Loading } from '../../components/States';
import { onTabKey } from '../../components/tabs';
import { useFocusRequest } from '../../components/useFocusRequest';
import { useIssueAction, useIssues, useSparklines, type IssueAction } from './hooks';
import { LevelBadge } from './LevelBadge';
import { explorePath, filterErrorMessage, ISSUE_LIST_LIMIT, ISSUE_LIST_MAX_PAGE, ISSUE_SORTS, ISSUE_STATUSES, sparklines, type Issue, type IssueSort, type IssueStatus, type Sparkline } from './queries';
import './issues.css';

const TAB_LABELS: Record<IssueStatus, string> = { unresolved: 'Unresolved', regressed: 'Regressed', resolved: 'Resolved', ignored: 'Ignored' };

const SPARKLINE_SHAPE = { func: 'count', field: null, groupBy: [], interval: '1h' };

/** The state of the list in the URL: tab, sort and filter, so every view can be shared and reloaded. */
function useListState() {
  const [params, setParams] = useSearchParams();
  const status = (ISSUE_STATUSES as readonly string[]).includes(params.get('status') ?? '') ? (params.get('status') as IssueStatus) : 'unresolved';
  const sort = ISSUE_SORTS.some((candidate) => candidate.field === params.get('sort')) ? (params.get('sort') as IssueSort) : 'last_seen';
  const filter = params.get('filter') ?? '';
  const pageText = params.get('page') ?? '';
  const page = /^\d{1,3}$/.test(pageText) ? Math.min(Math.max(1, Number(pageText)), ISSUE_LIST_MAX_PAGE) : 1;
  const update = (changes: Record<string, string>) =>
    setParams((current) => {
      const next = new URLSearchParams(current);
      // Another tab, sort or filter lists other rows: it starts again at the first page.
      if (!('page' in changes)) next.delete('page');
      for (const [name, value] of Object.entries(changes)) {
        if (value === '' || (name === 'status' && value === 'unresolved') || (name === 'sort' && value === 'last_seen') || (name === 'page' && value === '1')) next.delete(name);
        else next.set(name, value);
      }
      return next;
    });
  return { status, sort, filter, page, update };
}

function IssueSparkline({ issue, data }: { issue: Issue; data: Sparkline | undefined }) {
  const values = data?.counts.get(issue.id);
  const total = values?.reduce((sum, value) => sum + value, 0) ?? 0;
  const series = useMemo(() => (data ? { xs: data.xs, series: [{ label: 'events', values: values ?? data.xs.map(() => 0) }] } : undefined), [data, values]);
  if (!series) return <span className="muted">…</span>;
  return (
    <LineChart
      data={series}
      shape={SPARKLINE_SHAPE}
      sparkline
      height={28}
      label={`${total.toLocaleString()} ${total === 1 ? 'event' : 'events'} in the last 24 hours`}
    />
  );
}

function Releases({ issue }: { issue: Issue }) {
  if (!issue.release_first && !issue.release_last) return <span className="muted">none</span>;
  if (issue.release_first === issue.release_last) return <code>{issue.release_first}</code>;
  return (
    <span className="issues-releases">
      <code title="first release">{issue.release_first ?? 'none'}</code> → <code title="last release">{issue.release_last ?? 'none'}</code>
    </span>
  );
}

function FilterForm({ value, onApply }: { value: string; onApply: (filter: string) => void }) {
  const [draft, setDraft] = useState(value);
  const hintId = useId();
  useEffect(() => setDraft(value), [value]);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onApply(draft.trim());
  };
  return (
    <form className="issues-filter" onSubmit={submit} role="search">
      <label className="explore-control issues-filter-label">
        <span>Filter with GQL conditions</span>
        <input
          type="search"
          value={draft}
          onChange={(event) => setDraft(event.target.value)}
          placeholder="level:error release_last:shop@1.4.0 checkout"
          aria-describedby={hintId}
          spellCheck={false}
        />
      </label>
      <button type="submit" className="button">
        Apply
      </button>
      {value ? (
        <button type="button" className="button" onClick={() => onApply('')}>
          Clear
        </button>
      ) : null}
      <span id={hintId} className="field-hint issues-filter-hint">
        A bare word searches the issues' text (<code>payment</code>); a field matches its whole value (<code>title:…</code>), or its start
        with <code>*</code> (<code>title:TypeError*</code>). Fields of <code>from:issues</code>: title, culprit, level, event_count, user_count,
        release_first, release_last, first_seen, last_seen…
      </span>
    </form>
  );
}

const DONE: Record<IssueAction['action'], string> = { resolve: 'Resolved', ignore: 'Ignored', unresolve: 'Unresolved' };

/** The changes that give issues back the status they had: resolved (in its release), ignored or unresolved. */
function undoOf(issues: Issue[]): { ids: string[]; action: IssueAction }[] {
  const groups = new Map<string, { ids: string[]; action: IssueAction }>();
  for (const issue of issues) {
    const action: IssueAction =
      issue.status === 'resolved' ? { action: 'resolve', release: issue.resolved_in_release } : issue.status === 'ignored' ? { action: 'ignore' } : { action: 'unresolve' };
    const key = JSON.stringify(action);
    const group = groups.get(key) ?? { ids: [], action };
    group.ids.push(issue.id);
    groups.set(key, group);
  }
  return [...groups.values()];
}

export default function IssuesPage() {
  const { org = '', project = '' } = useParams();
  const { status, sort, filter, page, update } = useListState();
  const list = useIssues(org, project, status, sort, filter, page);
  const ids = useMemo(() => (list.issues ?? []).map((issue) => issue.id), [list.issues]);
  const spark = useSparklines(org, project, ids);
  const sparkData = useMemo(() => (spark.rows ? sparklines(spark.rows, spark.dataUpdatedAt) : undefined), [spark.rows, spark.dataUpdatedAt]);
  const action = useIssueAction(org, project);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const tabsId = useId();

  // A selection belongs to the rows it was made on: another tab, sort or filter starts with none.
  useEffect(() => setSelected(new Set()), [status, sort, filter, page]);
  const shown = list.issues ?? [];
  const visibleSelected = shown.filter((issue) => selected.has(issue.id)).map((issue) => issue.id);
  const allSelected = shown.length > 0 && visibleSelected.length === shown.length;

  const toggle = (id: string) =>
    setSelected((current) => {
      const next = new Set(current);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  // What the last change did, said above the list with a way back: each issue returns to the status it had.
  const [done, setDone] = useState<{ text: string; undo: { ids: string[]; action: IssueAction }[] } | null>(null);
  useEffect(() => setDone(null), [status, sort, filter, page]);
  const focusNext = useFocusRequest(true, shown);
  // A row's action leaves focus on the next row's (the row itself leaves the tab); the last row's and the selection's
  // on the way back, once it is there.
  const act = (targets: string[], what: IssueAction, neighbour?: Issue) => {
    const changed = shown.filter((issue) => targets.includes(issue.id));
    action.mutate(
      { ids: targets, action: what },
      {
        onSuccess: () => {
          setDone({ text: `${DONE[what.action]} ${changed.length === 1 ? `"${changed[0]!.title}"` : `${changed.length} issues`}.`, undo: undoOf(changed) });
          if (!neighbour) focusNext(['.issues-done button']);
        },
      },
    );
    setSelected((current) => new Set([...current].filter((id) => !targets.includes(id))));
    if (neighbour) focusNext([`[data-issue-id="${neighbour.id}"] [data-row-action]`]);
  };
  const actOnRow = (issue: Issue, what: IssueAction) => {
    const index = shown.indexOf(issue);
    act([issue.id], what, shown[index + 1] ?? shown[index - 1]);
  };
  const actOnSelected = (what: IssueAction) => act(visibleSelected, what);

  const base = `/orgs/${org}/projects/${project}`;
  const filterError = list.isError && list.error instanceof ApiError && list.error.code === 'VALIDATION_ERROR' ? list.error : undefined;

  return (
    <div className="issues">
      <header className="issues-header">
        <h1>Issues</h1>
        <p className="muted">
          Errors grouped by fingerprint. Open an issue for its events, stack trace and breadcrumbs;{' '}
          <Link to={explorePath(org, project, list.query)}>open this list in the explorer</Link>.
        </p>
      </header>

      <div className="tabs" role="tablist" aria-label="Issue status">
        {ISSUE_STATUSES.map((candidate) => (
          <button
            key={candidate}
            type="button"
            role="tab"
            id={`${tabsId}-${candidate}`}
            aria-selected={candidate === status}
            aria-controls={`${tabsId}-panel`}
            tabIndex={candidate === status ? 0 : -1}
            onClick={() => update({ status: candidate })}
            onKeyDown={(event) =>
              onTabKey(event, ISSUE_STATUSES.indexOf(candidate), ISSUE_STATUSES.length, (to) => {
                update({ status: ISSUE_STATUSES[to]! });
                return `${tabsId}-${ISSUE_STATUSES[to]}`;
              })
            }
          >
            {TAB_LABELS[candidate]}
          </button>
        ))}
      </div>

      <section role="tabpanel" id={`${tabsId}-panel`} aria-labelledby={`${tabsId}-${status}`}>
        <div className="issues-controls">
          <FilterForm value={filter} onApply={(next) => update({ filter: next })} />
          <label className="explore-control">
            <span>Sort by</span>
            <select value={sort} onChange={(event) => update({ sort: event.target.value })}>
              {ISSUE_SORTS.map((candidate) => (
                <option key={candidate.field} value={candidate.field}>
                  {candidate.label}
                </option>
              ))}
            </select>
          </label>
        </div>

        <div className="issues-bulk" role="group" aria-label="Selected issues">
          <span className="muted" aria-live="polite">
            {visibleSelected.length > 0 ? `${visibleSelected.length} selected` : 'Select issues to change several at once'}
          </span>
          {status !== 'resolved' ? (
            <button type="button" className="button button-small" disabled={visibleSelected.length === 0} onClick={() => actOnSelected({ action: 'resolve' })}>
              Resolve selected
            </button>
          ) : null}
          {status !== 'ignored' ? (
            <button type="button" className="button button-small" disabled={visibleSelected.length === 0} onClick={() => actOnSelected({ action: 'ignore' })}>
              Ignore selected
            </button>
          ) : null}
          {status !== 'unresolved' ? (
            <button type="button" className="button button-small" disabled={visibleSelected.length === 0} onClick={() => actOnSelected({ action: 'unresolve' })}>
              Unresolve selected
            </button>
          ) : null}
          {done ? (
            <span className="issues-done" role="status">
              {done.text}{' '}
              <button
                type="button"
                className="button button-small"
                disabled={action.isPending}
                onClick={() => {
                  for (const back of done.undo) action.mutate(back);
                  setDone(null);
                  // The way back leaves with the message: focus goes to the first issue given back, once it is listed.
                  focusNext([`[data-issue-id="${done.undo[0]!.ids[0]}"] [data-row-action]`, '.issues-bulk button']);
                }}
              >
                Undo
              </button>
            </span>
          ) : null}
          {list.isFetching && !list.isPending ? (
            <span className="muted">
              <span className="spinner" aria-hidden="true" /> updating…
            </span>
          ) : null}
        </div>

        {action.isError ? <ErrorNotice error={action.error} next="The list shows each issue's status as the server has it; try again." /> : null}

        {list.isPending ? (
          <Loading what="issues" />
        ) : list.isError ? (
          <ErrorNotice
            error={filterError ? new ApiError(filterError.status, filterError.code, filterErrorMessage(filterError.message, status, filter), filterError.details) : list.error}
            next={
              filterError ? (
                <>
                  The filter is not GQL the issues source reads (<code>level:error</code>, <code>event_count &gt; 10</code>, free text).{' '}
                  <button type="button" className="button button-small" onClick={() => update({ filter: '' })}>
                    Clear the filter
                  </button>
                </>
              ) : (
                'Reload the page; if it keeps failing, check that the server is running.'
              )
            }
          />
        ) : shown.length === 0 ? (
          page > 1 ? (
            <EmptyState title={`No ${status} issues on page ${page}`}>
              <p>The list is shorter than that now.</p>
              <button type="button" className="button" onClick={() => update({ page: '1' })}>
                First page
              </button>
            </EmptyState>
          ) : filter ? (
            <EmptyState title={`No ${status} issues match the filter`}>
              <p>Loosen the conditions, or look under another tab.</p>
              <button type="button" className="button" onClick={() => update({ filter: '' })}>
                Clear the filter
              </button>
            </EmptyState>
          ) : status === 'unresolved' ? (
            <EmptyState title="No unresolved issues">
              <p>
                Errors sent by a Sentry SDK or our client are grouped into issues here. If none has arrived yet,{' '}
                <Link to={`${base}/onboarding`}>set up the project</Link> and throw a test error.
              </p>
            </EmptyState>
          ) : (
            <EmptyState title={`No ${status} issues`}>
              <p>
                {status === 'regressed'
                  ? 'An issue regresses when an error arrives after it was resolved (in another release).'
                  : status === 'resolved'
                    ? 'Issues you resolve move here; one that happens again comes back as regressed.'
                    : 'Issues you ignore move here and stay out of the other tabs.'}
              </p>
            </EmptyState>
          )
        ) : (
          <>
            <table className="grid issues-table" aria-label={`${TAB_LABELS[status]} issues`}>
              <thead>
                <tr>
                  <th scope="col" className="issues-check">
                    <input
                      type="checkbox"
                      aria-label="Select all issues"
                      checked={allSelected}
                      onChange={() => setSelected(allSelected ? new Set() : new Set(shown.map((issue) => issue.id)))}
                    />
                  </th>
                  <th scope="col">Issue</th>
                  <th scope="col" className="issues-wide-only">Last 24 hours</th>
                  <th scope="col" className="numeric" aria-sort={sort === 'event_count' ? 'descending' : undefined}>
                    Events
                  </th>
                  <th scope="col" className="numeric issues-wide-only" aria-sort={sort === 'user_count' ? 'descending' : undefined}>
                    Users
                  </th>
                  <th scope="col" className="issues-wide-only">First seen</th>
                  <th scope="col" aria-sort={sort === 'last_seen' ? 'descending' : undefined}>
                    Last seen
                  </th>
                  <th scope="col" className="issues-wide-only">Releases</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {shown.map((issue) => (
                  <tr key={issue.id} aria-label={issue.title} className={selected.has(issue.id) ? 'issues-row-selected' : undefined} data-issue-id={issue.id}>
                    <td className="issues-check">
                      <input type="checkbox" aria-label={`Select ${issue.title}`} checked={selected.has(issue.id)} onChange={() => toggle(issue.id)} />
                    </td>
                    <td className="issues-title-cell">
                      <Link to={`${base}/issues/${issue.id}`} className="issues-title">
                        <BreakableText text={issue.title} />
                      </Link>
                      <div className="issues-meta">
                        <LevelBadge level={issue.level} />
                        <span className="muted mono">#{issue.short_id}</span>
                        <span className="muted issues-culprit" title={issue.culprit}>
                          {issue.culprit || 'no culprit'}
                        </span>
                      </div>
                    </td>
                    <td className="issues-spark issues-wide-only">
                      <IssueSparkline issue={issue} data={sparkData} />
                    </td>
                    <td className="numeric">{issue.event_count.toLocaleString()}</td>
                    <td className="numeric issues-wide-only">{issue.user_count.toLocaleString()}</td>
                    <td className="nowrap-cell issues-wide-only">
                      <RelativeTime iso={issue.first_seen} />
                    </td>
                    <td className="nowrap-cell">
                      <RelativeTime iso={issue.last_seen} />
                    </td>
                    <td className="issues-wide-only">
                      <Releases issue={issue} />
                    </td>
                    <td>
                      {issue.status === 'resolved' || issue.status === 'ignored' ? (
                        <button type="button" className="button button-small" aria-label={`Unresolve ${issue.title}`} onClick={() => actOnRow(issue, { action: 'unresolve' })} data-row-action>
                          Unresolve
                        </button>
                      ) : (
                        <button type="button" className="button button-small" aria-label={`Resolve ${issue.title}`} onClick={() => actOnRow(issue, { action: 'resolve' })} data-row-action>
                          Resolve
                        </button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            <nav className="row issues-pages" aria-label="Pages of issues">
              <span className="muted issues-count">
                {page === 1 && !list.hasNext
                  ? `${shown.length} ${status} ${shown.length === 1 ? 'issue' : 'issues'}.`
                  : `${status[0]!.toUpperCase()}${status.slice(1)} issues ${((page - 1) * ISSUE_LIST_LIMIT + 1).toLocaleString()}–${((page - 1) * ISSUE_LIST_LIMIT + shown.length).toLocaleString()}${list.hasNext ? ', more on the next page' : ''}.`}
                {page === ISSUE_LIST_MAX_PAGE && shown.length === ISSUE_LIST_LIMIT ? ' The list ends here; narrow it down with a filter.' : ''}
              </span>
              {page > 1 || list.hasNext ? (
                <>
                  <button type="button" className="button button-small" disabled={page === 1} onClick={() => update({ page: String(page - 1) })}>
                    ← Previous page
                  </button>
                  <span aria-current="page">Page {page}</span>
                  <button type="button" className="button button-small" disabled={!list.hasNext} onClick={() => update({ page: String(page + 1) })}>
                    Next page →
                  </button>
                </>
              ) : null}
            </nav>
          </>
        )}
      </section>
    </div>
  );
}
