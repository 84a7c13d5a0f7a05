import { useId, useState, type FormEvent } from 'react';
import { useProjects } from '../../api/hooks';
import { Dialog } from '../../components/Dialog';
import { ErrorNotice } from '../../components/States';
import { useGdprErase, useGdprExport } from './hooks';

/** GDPR: the organization's export (owners), and erasure of one person's data from a project. */
export function DataRights({ org }: { org: string }) {
  const exporter = useGdprExport(org);
  const projects = useProjects(org);
  const erase = useGdprErase(org);
  const [project, setProject] = useState('');
  const [distinctId, setDistinctId] = useState('');
  const [confirming, setConfirming] = useState(false);
  const projectId = useId();
  const chosen = project || projects.data?.[0]?.id || '';
  const submit = (event: FormEvent) => {
    event.preventDefault();
    erase.reset();
    setConfirming(true);
  };
  return (
    <section className="panel" aria-labelledby="org-gdpr">
      <h2 id="org-gdpr" className="panel-title">
        Personal data (GDPR)
      </h2>
      <h3>Export</h3>
      <p>
        A JSON file with your profile, the organization and its plan, its projects (deleted ones too), its API keys' metadata (never their values)
        and how many events, logs and alert rules it holds.
      </p>
      <button type="button" className="button" disabled={exporter.isPending} onClick={() => exporter.mutate()}>
        {exporter.isPending ? 'Exporting…' : 'Export organization data'}
      </button>
      {exporter.isSuccess ? (
        <span className="muted" role="status">
          {' '}
          Export downloaded.
        </span>
      ) : null}
      {exporter.isError ? <ErrorNotice error={exporter.error} next="Try again in a moment." /> : null}

      <h3>Erase a person</h3>
      <p>
        Removes every event, log, error (with its attachments) and replay of one person, named by the <code>distinct_id</code> your app sends, from
        a project. This cannot be undone.
      </p>
      {projects.data?.length === 0 ? (
        <p className="muted">This organization has no project yet, so there is nobody to erase.</p>
      ) : (
        <form onSubmit={submit} className="inline-form">
          <div className="field">
            <label htmlFor={projectId}>Project</label>
            <select id={projectId} value={chosen} onChange={(event) => setProject(event.target.value)} disabled={!projects.data?.length}>
              {(projects.data ?? []).map((candidate) => (
                <option key={candidate.id} value={candidate.id}>
                  {candidate.name}
                </option>
              ))}
            </select>
          </div>
          <label className="field">
            <span>Person's distinct_id</span>
            <input type="text" required maxLength={400} value={distinctId} onChange={(event) => setDistinctId(event.target.value)} />
          </label>
          <button type="submit" className="button button-danger" disabled={!chosen || !distinctId.trim()}>
            Erase…
          </button>
        </form>
      )}
      {erase.isSuccess ? (
        <p className="state state-ok" role="status">
          Erased {erase.data.distinct_id}:{' '}
          {Object.entries(erase.data.removed)
            .map(([what, count]) => `${count} ${what.replace(/_/g, ' ')}`)
            .join(', ')}
          .
        </p>
      ) : null}
      <Dialog open={confirming} title={`Erase every record of "${distinctId.trim()}"?`} onClose={() => setConfirming(false)}>
        <p>Their events, logs, errors and replays in this project are removed for good.</p>
        {erase.isError ? <ErrorNotice error={erase.error} next="Try again, or reload the page." /> : null}
        <div className="row dialog-actions">
          <button
            type="button"
            className="button button-danger"
            disabled={erase.isPending}
            onClick={() => erase.mutate({ project: chosen, distinctId: distinctId.trim() }, { onSuccess: () => setConfirming(false) })}
          >
            {erase.isPending ? 'Erasing…' : 'Erase this person'}
          </button>
          <button type="button" className="button" onClick={() => setConfirming(false)}>
            Cancel
          </button>
        </div>
      </Dialog>
    </section>
  );
}
