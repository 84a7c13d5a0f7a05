import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { useOrganization } from '../../api/hooks';
import { RelativeTime } from '../../components/RelativeTime';
import { DeletedNotice, EmptyState, ErrorNotice, Loading } from '../../components/States';
import { publicPageUrl, useCreateStatusPage, useStatusPages } from './hooks';
import { componentsFromText } from './components';

/** The organization's status pages and a form for a new one. */
export default function StatusPagesPage() {
  const { org = '' } = useParams();
  const organization = useOrganization(org);
  const pages = useStatusPages(org);

  return (
    <>
      <h1>Status pages{organization ? <span className="muted"> · {organization.name}</span> : null}</h1>
      <DeletedNotice />
      <p className="muted">
        A status page tells your users how your services are doing: each component's status, 90 days of uptime and the incidents you post. The
        public page needs no log-in and works without JavaScript.
      </p>
      <section className="panel" aria-labelledby="status-pages-list">
        <h2 id="status-pages-list" className="panel-title">
          Pages
        </h2>
        {pages.isPending ? (
          <Loading what="status pages" />
        ) : pages.isError ? (
          <ErrorNotice error={pages.error} next="Reload the page." />
        ) : pages.data.length === 0 ? (
          <EmptyState title="No status pages yet">
            <p>Create one below: a slug for its address, a title and the components it reports on.</p>
          </EmptyState>
        ) : (
          <table className="grid">
            <thead>
              <tr>
                <th scope="col">Title</th>
                <th scope="col">Public address</th>
                <th scope="col">Components</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {pages.data.map((page) => (
                <tr key={page.id}>
                  <td>
                    <Link to={`/orgs/${org}/status-pages/${page.slug}`}>{page.title}</Link>
                  </td>
                  <td>
                    <a href={publicPageUrl(page.slug)} target="_blank" rel="noreferrer">
                      /status/{page.slug}
                    </a>
                  </td>
                  <td>{page.components.map((component) => component.name).join(', ') || <span className="muted">none</span>}</td>
                  <td>
                    <RelativeTime iso={page.created_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section className="panel">
        <CreateStatusPageForm org={org} />
      </section>
    </>
  );
}

function CreateStatusPageForm({ org }: { org: string }) {
  const create = useCreateStatusPage(org);
  const navigate = useNavigate();
  const [slug, setSlug] = useState('');
  const [title, setTitle] = useState('');
  const [components, setComponents] = useState('');

  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(
      { slug: slug.trim(), title: title.trim(), components: componentsFromText(components) },
      { onSuccess: (page) => navigate(`/orgs/${org}/status-pages/${page.slug}`) },
    );
  };

  return (
    <form onSubmit={submit} aria-labelledby="create-status-page">
      <h2 id="create-status-page" className="panel-title">
        Create a status page
      </h2>
      <label className="field">
        <span>Title</span>
        <input type="text" required maxLength={200} value={title} onChange={(event) => setTitle(event.target.value)} placeholder="Acme status" />
      </label>
      <label className="field">
        <span>Slug</span>
        <input
          type="text"
          required
          pattern="[a-z0-9][a-z0-9\-]{1,62}"
          value={slug}
          onChange={(event) => setSlug(event.target.value)}
          placeholder="acme"
          aria-describedby="status-slug-hint"
        />
        <span id="status-slug-hint" className="field-hint">
          The page's address, /status/&lt;slug&gt;: 2 to 63 lowercase letters, digits and dashes. Slugs are unique across the service.
        </span>
      </label>
      <label className="field">
        <span>Components</span>
        <textarea rows={4} value={components} onChange={(event) => setComponents(event.target.value)} placeholder={'API\nDashboard\nIngest'} aria-describedby="status-components-hint" />
        <span id="status-components-hint" className="field-hint">
          One per line, as your users know them.
        </span>
      </label>
      {create.isError ? <ErrorNotice error={create.error} next="Check the slug (it may be taken) and try again." /> : null}
      <button type="submit" className="button button-primary" disabled={create.isPending}>
        Create status page
      </button>
    </form>
  );
}
