import type { Dashboard } from '@tlm/api-schemas';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { Dialog } from '../../components/Dialog';
import { ErrorNotice, Loading } from '../../components/States';
import { PanelWidthField } from './PanelWidthField';
import { useDashboardMutations, useDashboards } from './hooks';
import { defaultTitle, panelInputs } from './panels';

const NEW = '__new';

/** The explorer's "Add to dashboard": the query that ran becomes a panel of a dashboard, an existing one or a new one. */
export function AddToDashboard({ org, project, query, disabled }: { org: string; project: string; query: string; disabled: boolean }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" className="button" disabled={disabled} onClick={() => setOpen(true)} title={disabled ? 'Run the query first: the query that ran is what a panel shows' : undefined}>
        Add to dashboard
      </button>
      <Dialog open={open} title="Add to a dashboard" onClose={() => setOpen(false)}>
        <AddForm org={org} project={project} query={query} onClose={() => setOpen(false)} />
      </Dialog>
    </>
  );
}

function AddForm({ org, project, query, onClose }: { org: string; project: string; query: string; onClose: () => void }) {
  const dashboards = useDashboards(org, project);
  const { create, update } = useDashboardMutations(org, project);
  const [target, setTarget] = useState<string | undefined>(undefined);
  const [name, setName] = useState('');
  const [title, setTitle] = useState(defaultTitle(query));
  const [width, setWidth] = useState<1 | 2>(/\btime\(/.test(query) ? 2 : 1);
  const [added, setAdded] = useState<Dashboard | undefined>(undefined);

  if (dashboards.isPending) return <Loading what="dashboards" />;
  if (dashboards.isError) return <ErrorNotice error={dashboards.error} next="Close this and try again." />;
  const chosen = target ?? dashboards.data[0]?.id ?? NEW;
  const saving = create.isPending || update.isPending;
  const error = create.error ?? update.error;

  if (added) {
    return (
      <>
        <p role="status">
          Added to <strong>{added.name}</strong>.
        </p>
        <div className="row">
          <Link className="button button-primary" to={`/orgs/${org}/projects/${project}/dashboards/${added.id}`}>
            Open the dashboard
          </Link>
          <button type="button" className="button" onClick={onClose}>
            Close
          </button>
        </div>
      </>
    );
  }

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const panel = { title: title.trim() || defaultTitle(query), query, width };
    if (chosen === NEW) {
      create.mutate({ name: name.trim(), panels: [panel] }, { onSuccess: setAdded });
      return;
    }
    const dashboard = dashboards.data.find((candidate) => candidate.id === chosen)!;
    update.mutate({ id: dashboard.id, changes: { panels: [...panelInputs(dashboard.panels), panel], updated_at: dashboard.updated_at } }, { onSuccess: setAdded });
  };

  return (
    <form onSubmit={submit}>
      <p className="muted">
        <code>{query}</code>
      </p>
      <label className="field">
        <span>Dashboard</span>
        <select value={chosen} onChange={(event) => setTarget(event.target.value)}>
          {dashboards.data.map((dashboard) => (
            <option key={dashboard.id} value={dashboard.id}>
              {dashboard.name} ({dashboard.panels.length} {dashboard.panels.length === 1 ? 'panel' : 'panels'})
            </option>
          ))}
          <option value={NEW}>A new dashboard…</option>
        </select>
      </label>
      {chosen === NEW ? (
        <label className="field">
          <span>Name of the new dashboard</span>
          <input type="text" required maxLength={200} value={name} onChange={(event) => setName(event.target.value)} placeholder="Checkout health" />
        </label>
      ) : null}
      <label className="field">
        <span>Panel title</span>
        <input type="text" maxLength={200} value={title} onChange={(event) => setTitle(event.target.value)} />
      </label>
      <PanelWidthField value={width} onChange={setWidth} />
      {error ? <ErrorNotice error={error} next="Nothing was added." /> : null}
      <div className="row">
        <button type="submit" className="button button-primary" disabled={saving || (chosen === NEW && name.trim() === '')}>
          Add panel
        </button>
        <button type="button" className="button" onClick={onClose}>
          Cancel
        </button>
      </div>
    </form>
  );
}
