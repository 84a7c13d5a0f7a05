import type { Dashboard, Panel, PanelInput } from '@tlm/api-schemas';
import { useId, useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { ApiError } from '../../api/client';
import { useGqlAnswer } from '../../api/gql';
import { ConfirmDialog } from '../../components/Dialog';
import { ErrorNotice, Loading, MissingOrError } from '../../components/States';
import { TimeRangeSelect, useTimeRangeParam } from '../../components/TimeRange';
import { useFocusRequest } from '../../components/useFocusRequest';
import { useTabTitle } from '../../components/useTabTitle';
import { AggregateResults } from '../explore/AggregateResults';
import { GqlEditor, type QueryError } from '../explore/GqlEditor';
import { explorePath } from '../explore/queryText';
import { ResultsTable } from '../explore/ResultsTable';
import { PanelWidthField } from './PanelWidthField';
import { useDashboard, useDashboardMutations } from './hooks';
import { defaultTitle, panelInputs, panelQuery, SAVED_RANGE } from './panels';
import './dashboards.css';

/** Beside the time ranges, a dashboard can run each panel's query over the range it names itself. */
const SAVED_CHOICE = [{ value: SAVED_RANGE, label: 'As each query says' }] as const;

/** Rows a search panel shows; the explorer has them all. */
const PANEL_ROWS = 50;

/** What a panel draws: its query's answer under the dashboard's range, as the explorer would draw it. */
function PanelBody({ org, project, query }: { org: string; project: string; query: string }) {
  const answer = useGqlAnswer(org, project, query);
  if (answer.isPending) return <Loading what="the panel" />;
  if (answer.isError) return <ErrorNotice error={answer.error} next="Edit the panel's query, or open it in the explorer to see where it stops." />;
  const { data } = answer.data.answer;
  if (data.results.length === 0) return <p className="muted dashboard-none">No rows matched in this range.</p>;
  if (data.mode === 'aggregate') return <AggregateResults answer={answer.data.answer} answeredAt={answer.dataUpdatedAt} compact />;
  return (
    <>
      <div className="dashboard-rows">
        <ResultsTable rows={data.results.slice(0, PANEL_ROWS)} org={org} project={project} label={`Rows of ${query}`} source={data.table} />
      </div>
      {data.results.length > PANEL_ROWS ? <p className="muted dashboard-more">The newest {PANEL_ROWS} rows; the explorer shows them all.</p> : null}
    </>
  );
}

/**
 * A refusal of a change in the dashboard's own words: a conflict says what happened (the page has read the dashboard
 * again), and a query's error loses the list index the API names it by (`panels[3].query: `).
 */
function shownError(error: unknown): unknown {
  if (!(error instanceof ApiError)) return error;
  if (error.status === 409) {
    return new ApiError(409, error.code, 'someone else changed this dashboard since it was opened: it now shows what they saved, so make the change again');
  }
  const message = error.message.replace(/^panels\[\d+\]\.[a-z]+: /, '');
  return message === error.message ? error : new ApiError(error.status, error.code, message, error.details);
}

/** The end of the dashboard's forms: the server's refusal when there is one, then submit and cancel. */
function FormEnd({ error, next, submit, disabled, onCancel }: { error: unknown; next: string; submit: string; disabled: boolean; onCancel: () => void }) {
  return (
    <>
      {error ? <ErrorNotice error={shownError(error)} next={next} /> : null}
      <div className="row">
        <button type="submit" className="button button-primary" disabled={disabled}>
          {submit}
        </button>
        <button type="button" className="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </>
  );
}

/** The form of a new or changed panel: a title, the query in the GQL editor and how wide it is. */
function PanelForm({
  org,
  project,
  panel,
  index,
  saving,
  error,
  onSave,
  onCancel,
}: {
  org: string;
  project: string;
  panel?: Panel;
  /** The panel's place in the list sent, which the server's refusal names. */
  index: number;
  saving: boolean;
  error: unknown;
  onSave: (panel: PanelInput) => void;
  onCancel: () => void;
}) {
  const [title, setTitle] = useState(panel?.title ?? '');
  const [query, setQuery] = useState(panel?.query ?? '');
  const [sent, setSent] = useState('');
  const [width, setWidth] = useState<1 | 2>(panel?.width ?? 1);
  const ids = useId();
  // The server names the panel and where its query stops; the editor underlines the place in the text that was sent,
  // when the refusal is about this panel's query.
  const refused =
    error instanceof ApiError && error.code === 'VALIDATION_ERROR' && error.message.startsWith(`panels[${index}].query:`) && typeof error.details?.['offset'] === 'number';
  const queryError: QueryError | null = refused ? { text: sent, offset: error.details!['offset'] as number, message: error.message } : null;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const text = query.trim();
    setSent(text);
    onSave({ ...(panel ? { id: panel.id } : {}), title: title.trim() || defaultTitle(text), query: text, width });
  };

  return (
    <form onSubmit={submit} className="dashboard-panel-form" aria-label={panel ? `Edit panel ${panel.title}` : 'New panel'}>
      <label className="field">
        <span>Title</span>
        <input type="text" maxLength={200} value={title} onChange={(event) => setTitle(event.target.value)} placeholder="The query, when left empty" />
      </label>
      <div className="field">
        <span id={`${ids}-query`}>Query</span>
        <GqlEditor org={org} project={project} value={query} onChange={setQuery} onRun={() => undefined} error={queryError} />
        <span className="field-hint">The dashboard's time range replaces the query's own, unless the range is "As each query says".</span>
      </div>
      <PanelWidthField value={width} onChange={setWidth} />
      <FormEnd error={error} next="Nothing was saved." submit={panel ? 'Save panel' : 'Add panel'} disabled={saving || query.trim() === ''} onCancel={onCancel} />
    </form>
  );
}

function PanelCard({
  org,
  project,
  panel,
  index,
  count,
  range,
  onEdit,
  onMove,
  onRemove,
  busy,
}: {
  org: string;
  project: string;
  panel: Panel;
  index: number;
  count: number;
  range: string;
  onEdit: () => void;
  onMove: (to: number) => void;
  onRemove: () => void;
  busy: boolean;
}) {
  const query = panelQuery(panel.query, range);
  const headingId = useId();
  return (
    <section className={`panel dashboard-panel${panel.width === 2 ? ' dashboard-panel-wide' : ''}`} aria-labelledby={headingId} data-panel-id={panel.id}>
      <header className="dashboard-panel-head">
        <h2 id={headingId} title={panel.query}>
          {panel.title}
        </h2>
        <div className="dashboard-panel-actions">
          <Link to={explorePath(org, project, query)} className="button button-small" aria-label={`Explore ${panel.title}`}>
            Explore
          </Link>
          <button type="button" className="button button-small" onClick={onEdit} aria-label={`Edit ${panel.title}`} data-action="edit">
            Edit
          </button>
          <button type="button" className="button button-small" disabled={busy || index === 0} onClick={() => onMove(index - 1)} aria-label={`Move ${panel.title} earlier`} data-action="earlier">
            ↑
          </button>
          <button type="button" className="button button-small" disabled={busy || index === count - 1} onClick={() => onMove(index + 1)} aria-label={`Move ${panel.title} later`} data-action="later">
            ↓
          </button>
          <button type="button" className="button button-small button-danger" disabled={busy} onClick={onRemove} aria-label={`Remove ${panel.title}`} data-action="remove">
            Remove
          </button>
        </div>
      </header>
      <code className="dashboard-query muted">{query}</code>
      <PanelBody org={org} project={project} query={query} />
    </section>
  );
}

/** The dashboard's name and description, changed in place. */
function DetailsForm({ dashboard, saving, error, onSave, onCancel }: { dashboard: Dashboard; saving: boolean; error: unknown; onSave: (name: string, description: string) => void; onCancel: () => void }) {
  const [name, setName] = useState(dashboard.name);
  const [description, setDescription] = useState(dashboard.description);
  return (
    <form
      className="panel"
      aria-label="Name and description"
      onSubmit={(event) => {
        event.preventDefault();
        onSave(name.trim(), description.trim());
      }}
    >
      <label className="field">
        <span>Name</span>
        <input type="text" required maxLength={200} value={name} onChange={(event) => setName(event.target.value)} />
      </label>
      <label className="field">
        <span>Description</span>
        <input type="text" maxLength={2000} value={description} onChange={(event) => setDescription(event.target.value)} />
      </label>
      <FormEnd error={error} next="Nothing was saved." submit="Save" disabled={saving || name.trim() === ''} onCancel={onCancel} />
    </form>
  );
}

type Editing = { kind: 'none' } | { kind: 'details' } | { kind: 'new-panel' } | { kind: 'panel'; id: string };

/** One dashboard: its panels under one time range (kept in the URL), and the forms that change it. */
export default function DashboardPage() {
  const { org = '', project = '', dashboard: id = '' } = useParams();
  const dashboard = useDashboard(org, project, id);
  const mutations = useDashboardMutations(org, project);
  const navigate = useNavigate();
  const [editing, setEditing] = useState<Editing>({ kind: 'none' });
  const [deleting, setDeleting] = useState(false);
  const list = `/orgs/${org}/projects/${project}/dashboards`;
  const { value: range, setRange } = useTimeRangeParam('24h', SAVED_CHOICE);
  const [removing, setRemoving] = useState<Panel | null>(null);
  const busy = mutations.update.isPending;
  // Once a change is drawn, focus goes to a moved panel's button in its new place, the control a closed form came
  // from, or the neighbour of a removed panel.
  const focusNext = useFocusRequest(!busy, dashboard.data);
  useTabTitle(dashboard.data?.name);

  if (dashboard.isPending) return <Loading what="the dashboard" />;
  if (dashboard.isError) {
    return (
      <MissingOrError error={dashboard.error} title="No such dashboard" next={<Link to={list}>Back to the dashboards</Link>}>
        <p>
          This project has no dashboard {id}: it may have been deleted. <Link to={list}>All dashboards</Link>
        </p>
      </MissingOrError>
    );
  }
  const current = dashboard.data;
  const panels = current.panels;
  const panelControl = (id: string, action: string) => `.dashboard [data-panel-id="${id}"] [data-action="${action}"]`;

  // Every change says which version it was made from, so one made on a copy someone else has changed is refused.
  const savePanels = (next: PanelInput[], thenFocus: string[]) =>
    mutations.update.mutate(
      { id: current.id, changes: { panels: next, updated_at: current.updated_at } },
      {
        onSuccess: () => {
          setEditing({ kind: 'none' });
          focusNext(thenFocus);
        },
      },
    );
  const move = (from: number, to: number) => {
    const next = panelInputs(panels);
    const [moved] = next.splice(from, 1);
    next.splice(to, 0, moved!);
    const id = panels[from]!.id;
    savePanels(next, [panelControl(id, to < from ? 'earlier' : 'later'), panelControl(id, to < from ? 'later' : 'earlier'), panelControl(id, 'edit')]);
  };
  const remove = (panel: Panel) => {
    const index = panels.indexOf(panel);
    const neighbour = panels[index + 1] ?? panels[index - 1];
    savePanels(
      panelInputs(panels).filter((kept) => kept.id !== panel.id),
      neighbour ? [panelControl(neighbour.id, 'remove')] : ['.dashboard [data-action="add-panel"]'],
    );
  };
  // A form opens with focus in its first field (the button that opened it is disabled or gone), and closes with
  // focus back where it was opened from; a refusal it showed goes with it.
  const startEditing = (next: Editing) => {
    mutations.update.reset();
    setEditing(next);
    focusNext(['.dashboard .dashboard-panel-form input', '.dashboard form[aria-label="Name and description"] input']);
  };
  const stopEditing = (thenFocus: string[]) => {
    mutations.update.reset();
    setEditing({ kind: 'none' });
    focusNext(thenFocus);
  };
  const formError = editing.kind === 'none' ? undefined : mutations.update.error;

  return (
    <div className="dashboard">
      <p className="muted">
        <Link to={list}>Dashboards</Link> / {current.name}
      </p>
      <header className="dashboard-header">
        <div>
          <h1>{current.name}</h1>
          {current.description ? <p className="muted dashboard-description">{current.description}</p> : null}
        </div>
        <div className="dashboard-toolbar">
          <TimeRangeSelect value={range} onChange={setRange} extra={SAVED_CHOICE} />
          <button type="button" className="button button-primary" onClick={() => startEditing({ kind: 'new-panel' })} disabled={editing.kind === 'new-panel'} data-action="add-panel">
            Add panel
          </button>
          <button type="button" className="button" onClick={() => startEditing({ kind: 'details' })} data-action="rename">
            Rename
          </button>
          <button type="button" className="button button-danger" onClick={() => setDeleting(true)}>
            Delete
          </button>
        </div>
      </header>

      {editing.kind === 'none' && mutations.update.isError ? <ErrorNotice error={shownError(mutations.update.error)} next="Nothing was saved." /> : null}
      {editing.kind === 'details' ? (
        <DetailsForm
          dashboard={current}
          saving={busy}
          error={formError}
          onSave={(name, description) =>
            mutations.update.mutate({ id: current.id, changes: { name, description, updated_at: current.updated_at } }, { onSuccess: () => stopEditing(['.dashboard [data-action="rename"]']) })
          }
          onCancel={() => stopEditing(['.dashboard [data-action="rename"]'])}
        />
      ) : null}
      {editing.kind === 'new-panel' ? (
        <section className="panel" aria-label="Add a panel">
          <PanelForm
            org={org}
            project={project}
            index={panels.length}
            saving={busy}
            error={formError}
            onSave={(panel) => savePanels([...panelInputs(panels), panel], ['.dashboard-grid > section:last-child [data-action="edit"]'])}
            onCancel={() => stopEditing(['.dashboard [data-action="add-panel"]'])}
          />
        </section>
      ) : null}

      {panels.length === 0 && editing.kind !== 'new-panel' ? (
        <div className="state state-empty">
          <h3>No panels yet</h3>
          <p>Add a panel with a GQL query, or run one in Explore and choose "Add to dashboard".</p>
        </div>
      ) : null}
      <div className="dashboard-grid">
        {panels.map((panel, index) =>
          editing.kind === 'panel' && editing.id === panel.id ? (
            <section key={panel.id} className={`panel dashboard-panel${panel.width === 2 ? ' dashboard-panel-wide' : ''}`} aria-label={`Edit ${panel.title}`}>
              <PanelForm
                org={org}
                project={project}
                panel={panel}
                index={index}
                saving={busy}
                error={formError}
                onSave={(changed) => savePanels(panelInputs(panels).map((kept) => (kept.id === panel.id ? changed : kept)), [panelControl(panel.id, 'edit')])}
                onCancel={() => stopEditing([panelControl(panel.id, 'edit')])}
              />
            </section>
          ) : (
            <PanelCard
              key={panel.id}
              org={org}
              project={project}
              panel={panel}
              index={index}
              count={panels.length}
              range={range}
              busy={busy}
              onEdit={() => startEditing({ kind: 'panel', id: panel.id })}
              onMove={(to) => move(index, to)}
              onRemove={() => setRemoving(panel)}
            />
          ),
        )}
      </div>

      <ConfirmDialog
        open={removing !== null}
        title={`Remove ${removing?.title ?? 'the panel'}?`}
        confirm="Remove panel"
        busy={busy}
        onConfirm={() => {
          if (removing) remove(removing);
          setRemoving(null);
        }}
        onClose={() => setRemoving(null)}
      >
        <p>The panel leaves this dashboard for everyone in the project; its query is not kept anywhere else.</p>
      </ConfirmDialog>
      <ConfirmDialog
        open={deleting}
        title={`Delete ${current.name}?`}
        confirm="Delete dashboard"
        busy={mutations.remove.isPending}
        error={mutations.remove.isError ? mutations.remove.error : undefined}
        onConfirm={() => mutations.remove.mutate(current.id, { onSuccess: () => navigate(list, { state: { deleted: current.name } }) })}
        onClose={() => setDeleting(false)}
      >
        <p>
          {panels.length === 0
            ? 'The dashboard goes for everyone in the project.'
            : `The dashboard and its ${panels.length === 1 ? 'panel go' : `${panels.length} panels go`} for everyone in the project; the data they read stays.`}
        </p>
      </ConfirmDialog>
    </div>
  );
}
