import { useEffect, useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { afterSuccess, useProject } from '../../api/hooks';
import type { Project } from '../../api/types';
import { Dialog } from '../../components/Dialog';
import { ErrorNotice, Loading } from '../../components/States';
import { BrowserLogsChoice } from './BrowserLogsChoice';
import { useDeleteProject, useUpdateProject } from './hooks';

export default function SettingsPage() {
  const { org = '', project = '' } = useParams();
  const query = useProject(org, project);
  return (
    <>
      <h1>Project settings{query.data ? <span className="muted"> · {query.data.name}</span> : null}</h1>
      {query.isPending ? (
        <Loading what="the project" />
      ) : query.isError ? (
        <ErrorNotice error={query.error} next={<Link to={`/orgs/${org}/projects`}>Back to the projects page</Link>} />
      ) : (
        <>
          <ProjectName org={org} project={query.data} />
          <BrowserLogs org={org} project={query.data} />
          <DeleteProject org={org} project={query.data} />
        </>
      )}
    </>
  );
}

function ProjectName({ org, project }: { org: string; project: Project }) {
  const [name, setName] = useState(project.name);
  const update = useUpdateProject(org, project.id);
  useEffect(() => setName(project.name), [project.name]);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    update.mutate({ name: name.trim() });
  };
  return (
    <section className="panel" aria-labelledby="project-name">
      <h2 id="project-name" className="panel-title">
        Name
      </h2>
      <form onSubmit={submit} className="inline-form">
        <label className="field">
          <span>Project name</span>
          <input type="text" required maxLength={200} value={name} onChange={(event) => setName(event.target.value)} />
        </label>
        <button type="submit" className="button button-primary" disabled={update.isPending || !name.trim() || name.trim() === project.name}>
          {update.isPending ? 'Saving…' : 'Save name'}
        </button>
        {update.isSuccess && name.trim() === project.name ? (
          <span className="muted" role="status">
            Saved.
          </span>
        ) : null}
      </form>
      {update.isError ? <ErrorNotice error={update.error} next="Check the name and try again." /> : null}
      <p className="muted">
        DSN id <code>{project.dsn_id}</code> · project id <code>{project.id}</code>
      </p>
    </section>
  );
}

function BrowserLogs({ org, project }: { org: string; project: Project }) {
  return (
    <section className="panel" aria-labelledby="browser-logs">
      <h2 id="browser-logs" className="panel-title">
        Browser logs
      </h2>
      <BrowserLogsChoice
        org={org}
        project={project}
        hint="Public keys (the ones in browsers and apps) can send logs only when this is on; otherwise their logs are refused with 403. They can always send events, errors and traces. Turn it on when your front end sends logs, knowing anyone who reads your page can use its public key."
      />
    </section>
  );
}

function DeleteProject({ org, project }: { org: string; project: Project }) {
  const [confirming, setConfirming] = useState(false);
  const remove = useDeleteProject(org, project.id);
  const navigate = useNavigate();
  return (
    <section className="panel danger-zone" aria-labelledby="delete-project">
      <h2 id="delete-project" className="panel-title">
        Delete project
      </h2>
      <p>
        Deleting the project revokes its API keys at once. It can be restored for 30 days from the Projects page, under "Recently deleted"; after
        that, it and its data are gone.
      </p>
      <button type="button" className="button button-danger" onClick={() => setConfirming(true)}>
        Delete project
      </button>
      <Dialog open={confirming} title={`Delete project "${project.name}"?`} onClose={() => setConfirming(false)}>
        <p>
          Its keys are revoked at once, so nothing more is received. You can restore it, with those keys, for 30 days from the Projects page,
          under "Recently deleted".
        </p>
        {remove.isError ? <ErrorNotice error={remove.error} next="Try again, or reload the page." /> : null}
        <div className="row dialog-actions">
          <button
            type="button"
            className="button button-danger"
            disabled={remove.isPending}
            onClick={() => afterSuccess(remove.mutateAsync(), () => navigate(`/orgs/${org}/projects`))}
          >
            {remove.isPending ? 'Deleting…' : 'Delete this project'}
          </button>
          <button type="button" className="button" onClick={() => setConfirming(false)}>
            Cancel
          </button>
        </div>
      </Dialog>
    </section>
  );
}
