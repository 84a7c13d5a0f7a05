import type { Incident, IncidentImpactName, IncidentStatusName, StatusPage } from '@tlm/api-schemas';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { ConfirmDialog } from '../../components/Dialog';
import { RelativeTime } from '../../components/RelativeTime';
import { EmptyState, ErrorNotice, Loading, MissingOrError } from '../../components/States';
import { useTabTitle } from '../../components/useTabTitle';
import { componentsFromText, componentsToText } from './components';
import { publicPageUrl, useIncidents, useStatusPage, useStatusPageMutations } from './hooks';
import './status.css';

type Mutations = ReturnType<typeof useStatusPageMutations>;

const STATUS_LABEL: Record<IncidentStatusName, string> = { investigating: 'Investigating', identified: 'Identified', monitoring: 'Monitoring', resolved: 'Resolved' };
const IMPACT_LABEL: Record<IncidentImpactName, string> = {
  none: 'None (a notice)',
  minor: 'Minor (degraded performance)',
  major: 'Major (partial outage)',
  critical: 'Critical (major outage)',
};
// The label records name every value of the schemas' enums, so these lists are complete and in the API's order.
const INCIDENT_STATUSES = Object.keys(STATUS_LABEL) as IncidentStatusName[];
const INCIDENT_IMPACTS = Object.keys(IMPACT_LABEL) as IncidentImpactName[];

/** One status page: open incidents and post their updates, the incident history, and the page's title and components. */
export default function StatusPageAdminPage() {
  const { org = '', slug = '' } = useParams();
  const page = useStatusPage(org, slug);
  useTabTitle(page.data?.title);
  const incidents = useIncidents(org, slug);
  const mutations = useStatusPageMutations(org, slug);

  if (page.isPending) return <Loading what="the status page" />;
  if (page.isError) {
    const list = `/orgs/${org}/status-pages`;
    return (
      <MissingOrError error={page.error} title="No such status page" next={<Link to={list}>Back to the status pages</Link>}>
        <p>
          This organization has no status page at <code>{slug}</code>: it may have been deleted or renamed. <Link to={list}>All status pages</Link>
        </p>
      </MissingOrError>
    );
  }

  const open = (incidents.data ?? []).filter((incident) => incident.status !== 'resolved');
  const resolved = (incidents.data ?? []).filter((incident) => incident.status === 'resolved');
  return (
    <>
      <p className="muted">
        <Link to={`/orgs/${org}/status-pages`}>Status pages</Link> / {page.data.slug}
      </p>
      <div className="row status-admin-head">
        <h1>{page.data.title}</h1>
        <a className="button" href={publicPageUrl(page.data.slug)} target="_blank" rel="noreferrer">
          Open public page ↗
        </a>
      </div>
      <section className="panel">
        <OpenIncidentForm page={page.data} mutations={mutations} />
      </section>
      <section aria-labelledby="active-incidents">
        <h2 id="active-incidents">Active incidents</h2>
        {incidents.isPending ? (
          <Loading what="incidents" />
        ) : incidents.isError ? (
          <ErrorNotice error={incidents.error} next="Reload the page." />
        ) : open.length === 0 ? (
          <EmptyState title="No active incidents">
            <p>Every component shows as operational. Open an incident above when something goes wrong.</p>
          </EmptyState>
        ) : (
          open.map((incident) => <IncidentCard key={incident.id} incident={incident} mutations={mutations} />)
        )}
      </section>
      <section aria-labelledby="resolved-incidents">
        <h2 id="resolved-incidents">Resolved in the last 90 days</h2>
        {resolved.length === 0 ? <p className="muted">None.</p> : resolved.map((incident) => <IncidentCard key={incident.id} incident={incident} mutations={mutations} />)}
      </section>
      <PageSettings org={org} page={page.data} mutations={mutations} />
    </>
  );
}

function OpenIncidentForm({ page, mutations }: { page: StatusPage; mutations: Mutations }) {
  const [title, setTitle] = useState('');
  const [status, setStatus] = useState<IncidentStatusName>('investigating');
  const [impact, setImpact] = useState<IncidentImpactName>('minor');
  const [affected, setAffected] = useState<string[]>([]);
  const [message, setMessage] = useState('');

  const submit = (event: FormEvent) => {
    event.preventDefault();
    mutations.openIncident.mutate(
      { title: title.trim(), status, impact, components: affected, ...(message.trim() ? { message: message.trim() } : {}) },
      {
        onSuccess: () => {
          setTitle('');
          setMessage('');
          setAffected([]);
        },
      },
    );
  };

  return (
    <form onSubmit={submit} aria-labelledby="open-incident">
      <h2 id="open-incident" className="panel-title">
        Open an incident
      </h2>
      <label className="field">
        <span>Incident title</span>
        <input type="text" required maxLength={300} value={title} onChange={(event) => setTitle(event.target.value)} placeholder="Elevated API error rates" />
      </label>
      <div className="row status-selects">
        <label className="field">
          <span>Status</span>
          <select value={status} onChange={(event) => setStatus(event.target.value as IncidentStatusName)}>
            {INCIDENT_STATUSES.map((value) => (
              <option key={value} value={value}>
                {STATUS_LABEL[value]}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          <span>Impact</span>
          <select value={impact} onChange={(event) => setImpact(event.target.value as IncidentImpactName)}>
            {INCIDENT_IMPACTS.map((value) => (
              <option key={value} value={value}>
                {IMPACT_LABEL[value]}
              </option>
            ))}
          </select>
        </label>
      </div>
      <fieldset className="fieldset">
        <legend>Affected components</legend>
        {page.components.length === 0 ? <p className="field-hint">This page has no components; the incident affects the whole page.</p> : null}
        {page.components.map((component) => (
          <label className="choice" key={component.name}>
            <input
              type="checkbox"
              checked={affected.includes(component.name)}
              onChange={(event) =>
                setAffected((current) => (event.target.checked ? [...current, component.name] : current.filter((name) => name !== component.name)))
              }
            />
            <span>{component.name}</span>
          </label>
        ))}
        {page.components.length > 0 ? <p className="field-hint">None checked means every component.</p> : null}
      </fieldset>
      <label className="field">
        <span>First update (optional)</span>
        <textarea rows={3} maxLength={5_000} value={message} onChange={(event) => setMessage(event.target.value)} placeholder="We are looking into it." />
      </label>
      {mutations.openIncident.isError ? <ErrorNotice error={mutations.openIncident.error} next="Check the fields and try again." /> : null}
      <button type="submit" className="button button-primary" disabled={mutations.openIncident.isPending}>
        Open incident
      </button>
    </form>
  );
}

function IncidentCard({ incident, mutations }: { incident: Incident; mutations: Mutations }) {
  const newestFirst = [...incident.updates].reverse();
  const headingId = `incident-${incident.id}`;
  return (
    <article className={`panel status-incident impact-${incident.impact}`} aria-labelledby={headingId}>
      <div className="row status-incident-head">
        <h3 id={headingId}>{incident.title}</h3>
        <span className={`badge ${incident.status === 'resolved' ? 'badge-ok' : 'badge-warn'}`}>{STATUS_LABEL[incident.status]}</span>
        <span className="badge">{incident.impact} impact</span>
      </div>
      <p className="muted">
        {incident.components.length > 0 ? incident.components.join(', ') : 'All components'} · opened <RelativeTime iso={incident.created_at} />
        {incident.resolved_at ? (
          <>
            {' '}
            · resolved <RelativeTime iso={incident.resolved_at} />
          </>
        ) : null}
      </p>
      <ol className="status-updates" aria-label={`Updates of ${incident.title}`}>
        {newestFirst.map((update, index) => (
          <li key={`${update.at}-${index}`}>
            <strong>{STATUS_LABEL[update.status]}</strong> <RelativeTime iso={update.at} />
            {update.message ? <p>{update.message}</p> : null}
          </li>
        ))}
      </ol>
      {incident.status !== 'resolved' ? <PostUpdateForm incident={incident} mutations={mutations} /> : null}
    </article>
  );
}

function PostUpdateForm({ incident, mutations }: { incident: Incident; mutations: Mutations }) {
  const [status, setStatus] = useState<IncidentStatusName>(incident.status);
  const [message, setMessage] = useState('');
  const pending = mutations.postUpdate.isPending && mutations.postUpdate.variables?.id === incident.id;
  const failed = mutations.postUpdate.isError && mutations.postUpdate.variables?.id === incident.id;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    mutations.postUpdate.mutate({ id: incident.id, update: { status, message: message.trim() } }, { onSuccess: () => setMessage('') });
  };

  return (
    <form className="status-update-form" onSubmit={submit} aria-label={`Post an update to ${incident.title}`}>
      <label className="field">
        <span>New status</span>
        <select value={status} onChange={(event) => setStatus(event.target.value as IncidentStatusName)}>
          {INCIDENT_STATUSES.map((value) => (
            <option key={value} value={value}>
              {STATUS_LABEL[value]}
            </option>
          ))}
        </select>
      </label>
      <label className="field">
        <span>Message</span>
        <textarea rows={2} required maxLength={5_000} value={message} onChange={(event) => setMessage(event.target.value)} placeholder="What changed, and what comes next." />
      </label>
      {failed ? <ErrorNotice error={mutations.postUpdate.error} next="Check the message and try again." /> : null}
      <div className="row">
        <button type="submit" className="button button-primary" disabled={pending}>
          Post update
        </button>
        <button
          type="button"
          className="button"
          disabled={pending}
          onClick={() => mutations.postUpdate.mutate({ id: incident.id, update: { status: 'resolved', message: message.trim() || 'This incident has been resolved.' } })}
        >
          Resolve
        </button>
      </div>
    </form>
  );
}

function PageSettings({ org, page, mutations }: { org: string; page: StatusPage; mutations: Mutations }) {
  const navigate = useNavigate();
  const [title, setTitle] = useState(page.title);
  const [components, setComponents] = useState(componentsToText(page.components));
  const [deleting, setDeleting] = useState(false);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    mutations.update.mutate({ title: title.trim(), components: componentsFromText(components) });
  };

  return (
    <section className="panel" aria-labelledby="status-page-settings">
      <form onSubmit={submit}>
        <h2 id="status-page-settings" className="panel-title">
          Page settings
        </h2>
        <label className="field">
          <span>Page title</span>
          <input type="text" required maxLength={200} value={title} onChange={(event) => setTitle(event.target.value)} />
        </label>
        <label className="field">
          <span>Page components</span>
          <textarea rows={4} value={components} onChange={(event) => setComponents(event.target.value)} aria-describedby="status-edit-components-hint" />
          <span id="status-edit-components-hint" className="field-hint">
            One per line. Incidents keep the component names they were opened with.
          </span>
        </label>
        {mutations.update.isError ? <ErrorNotice error={mutations.update.error} next="Check the fields and try again." /> : null}
        {mutations.update.isSuccess ? (
          <p className="state state-ok" role="status">
            Saved.
          </p>
        ) : null}
        <div className="row">
          <button type="submit" className="button button-primary" disabled={mutations.update.isPending}>
            Save page
          </button>
          <button type="button" className="button button-danger" onClick={() => setDeleting(true)}>
            Delete page
          </button>
        </div>
      </form>
      <ConfirmDialog
        open={deleting}
        title={`Delete "${page.title}"?`}
        confirm="Delete page"
        busy={mutations.remove.isPending}
        error={mutations.remove.isError ? mutations.remove.error : undefined}
        onConfirm={() => mutations.remove.mutate(undefined, { onSuccess: () => navigate(`/orgs/${org}/status-pages`, { state: { deleted: page.title } }) })}
        onClose={() => setDeleting(false)}
      >
        <p>The public page and all its incidents are removed at once; this cannot be undone.</p>
      </ConfirmDialog>
    </section>
  );
}
