import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { useOrganization, useProjects } from '../../api/hooks';
import type { Project, QuotaDetails } from '../../api/types';
import { QuotaDialog, quotaDetails } from '../../components/QuotaDialog';
import { RecentlyDeleted } from '../../components/RecentlyDeleted';
import { RelativeTime } from '../../components/RelativeTime';
import { EmptyState, ErrorNotice, Loading } from '../../components/States';
import { useCreateProject, useDeletedProjects, useRestoreProject } from './hooks';

export default function ProjectsPage() {
  const { org = '' } = useParams();
  const organization = useOrganization(org);
  const projects = useProjects(org);
  return (
    <>
      <h1>Projects{organization ? <span className="muted"> · {organization.name}</span> : null}</h1>
      <section className="panel" aria-labelledby="projects-list">
        <h2 id="projects-list" className="panel-title">
          Active projects
        </h2>
        {projects.isPending ? (
          <Loading what="projects" />
        ) : projects.isError ? (
          <ErrorNotice error={projects.error} next="Reload the page; if this organization is not yours, pick another one above." />
        ) : projects.data.length === 0 ? (
          <EmptyState title="No projects yet">
            <p>A project holds the logs, events, errors and traces of one application. Create one below to get its keys and setup snippets.</p>
          </EmptyState>
        ) : (
          <ProjectTable org={org} projects={projects.data} />
        )}
      </section>
      <CreateProject org={org} />
      <DeletedProjects org={org} />
    </>
  );
}

function ProjectTable({ org, projects }: { org: string; projects: Project[] }) {
  return (
    <table className="grid">
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Created</th>
          <th scope="col">DSN id</th>
          <th scope="col">
            <span className="visually-hidden">Links</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {projects.map((project) => (
          <tr key={project.id}>
            <td>
              <Link to={`/orgs/${org}/projects/${project.id}/explore`}>{project.name}</Link>
            </td>
            <td>
              <RelativeTime iso={project.created_at} />
            </td>
            <td className="mono">{project.dsn_id}</td>
            <td>
              <div className="row">
                <Link to={`/orgs/${org}/projects/${project.id}/explore`} aria-label={`Explore ${project.name}`}>
                  Explore
                </Link>
                <Link to={`/orgs/${org}/projects/${project.id}/onboarding`} aria-label={`Set up ${project.name}`}>
                  Set up
                </Link>
                <Link to={`/orgs/${org}/projects/${project.id}/settings`} aria-label={`Settings of ${project.name}`}>
                  Settings
                </Link>
              </div>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function CreateProject({ org }: { org: string }) {
  const [name, setName] = useState('');
  const [quota, setQuota] = useState<QuotaDetails>();
  const create = useCreateProject(org);
  const navigate = useNavigate();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(name.trim(), {
      onSuccess: (project) => navigate(`/orgs/${org}/projects/${project.id}/onboarding`),
      onError: (error) => setQuota(quotaDetails(error)),
    });
  };
  return (
    <section className="panel" aria-labelledby="create-project">
      <h2 id="create-project" className="panel-title">
        Create project
      </h2>
      <form onSubmit={submit} className="inline-form">
        <label className="field">
          <span>Project name</span>
          <input type="text" required maxLength={200} value={name} onChange={(event) => setName(event.target.value)} placeholder="checkout-service" />
        </label>
        <button type="submit" className="button button-primary" disabled={create.isPending || !name.trim()}>
          {create.isPending ? 'Creating…' : 'Create project'}
        </button>
      </form>
      {create.isError && !quotaDetails(create.error) ? <ErrorNotice error={create.error} next="Check the name and try again." /> : null}
      <QuotaDialog details={quota} what="projects" title="Project limit reached" onClose={() => setQuota(undefined)} />
    </section>
  );
}

function DeletedProjects({ org }: { org: string }) {
  const deleted = useDeletedProjects(org);
  const restore = useRestoreProject(org);
  return (
    <RecentlyDeleted
      what="projects"
      intro={<p className="muted">Deleted projects can be restored for 30 days, with the keys their deletion revoked. After that they and their data are gone.</p>}
      list={deleted}
      empty="No project was deleted in the last 30 days."
      restore={restore}
      variables={(project, force) => ({ project: project.id, force })}
      quotaWhat="projects"
      quotaTitle={(project) => (project ? `Restoring ${project.name} goes past the project limit` : 'Project limit reached')}
    />
  );
}
