import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { RelativeTime } from '../../components/RelativeTime';
import { DeletedNotice, EmptyState, ErrorNotice, Loading } from '../../components/States';
import { useDashboardMutations, useDashboards } from './hooks';

/** The project's dashboards and a form for a new one. */
export default function DashboardsPage() {
  const { org = '', project = '' } = useParams();
  const dashboards = useDashboards(org, project);
  const base = `/orgs/${org}/projects/${project}`;

  return (
    <>
      <h1>Dashboards</h1>
      <DeletedNotice />
      <p className="muted">
        A dashboard keeps the queries you look at together: each panel is a GQL query drawn as the explorer draws it (a number, a chart or rows),
        all under one time range. Add panels here or from the explorer's "Add to dashboard".
      </p>
      <section className="panel" aria-labelledby="dashboards-list">
        <h2 id="dashboards-list" className="panel-title">
          This project's dashboards
        </h2>
        {dashboards.isPending ? (
          <Loading what="dashboards" />
        ) : dashboards.isError ? (
          <ErrorNotice error={dashboards.error} next="Reload the page." />
        ) : dashboards.data.length === 0 ? (
          <EmptyState title="No dashboards yet">
            <p>
              Create one below, or run a query in <Link to={`${base}/explore`}>Explore</Link> and add it to a new dashboard from there.
            </p>
          </EmptyState>
        ) : (
          <table className="grid" aria-label="Dashboards">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Description</th>
                <th scope="col" className="numeric">
                  Panels
                </th>
                <th scope="col">Changed</th>
              </tr>
            </thead>
            <tbody>
              {dashboards.data.map((dashboard) => (
                <tr key={dashboard.id}>
                  <td>
                    <Link to={`${base}/dashboards/${dashboard.id}`}>{dashboard.name}</Link>
                  </td>
                  <td className={dashboard.description ? undefined : 'muted'}>{dashboard.description || '—'}</td>
                  <td className="numeric">{dashboard.panels.length}</td>
                  <td>
                    <RelativeTime iso={dashboard.updated_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section className="panel">
        <CreateDashboardForm org={org} project={project} />
      </section>
    </>
  );
}

function CreateDashboardForm({ org, project }: { org: string; project: string }) {
  const { create } = useDashboardMutations(org, project);
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');

  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(
      { name: name.trim(), description: description.trim() },
      { onSuccess: (dashboard) => navigate(`/orgs/${org}/projects/${project}/dashboards/${dashboard.id}`) },
    );
  };

  return (
    <form onSubmit={submit} aria-labelledby="create-dashboard">
      <h2 id="create-dashboard" className="panel-title">
        Create a dashboard
      </h2>
      <label className="field">
        <span>Name</span>
        <input type="text" required maxLength={200} value={name} onChange={(event) => setName(event.target.value)} placeholder="Checkout health" />
      </label>
      <label className="field">
        <span>Description</span>
        <input type="text" maxLength={2000} value={description} onChange={(event) => setDescription(event.target.value)} placeholder="What it is for (optional)" />
      </label>
      {create.isError ? <ErrorNotice error={create.error} next="Nothing was created; correct what the message names and try again." /> : null}
      <button type="submit" className="button button-primary" disabled={create.isPending || name.trim() === ''}>
        Create dashboard
      </button>
    </form>
  );
}
