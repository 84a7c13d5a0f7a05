import type { ExportFormatName, ExportJob } from '@tlm/api-schemas';
import { useState, type FormEvent } from 'react';
import { useParams, useSearchParams } from 'react-router';
import { useOrganization, useProject } from '../../api/hooks';
import { formatDateTime } from '../../components/formats';
import { RelativeTime } from '../../components/RelativeTime';
import { EmptyState, ErrorNotice, Loading } from '../../components/States';
import { SOURCES } from '../explore/queryText';
import { useExports, useStartExport } from './hooks';

const FORMAT_LABEL: Record<ExportFormatName, { name: string; description: string }> = {
  csv: { name: 'CSV', description: 'one row per result, for spreadsheets' },
  json: { name: 'JSON', description: 'an array of result objects' },
  gdpr_zip: { name: 'GDPR ZIP', description: "everything the project holds: one JSON-lines file per source and the project's details" },
};
// The label record names every format of the schema's enum, so this list is complete.
const EXPORT_FORMATS = Object.keys(FORMAT_LABEL) as ExportFormatName[];
const STATUS_BADGE: Record<ExportJob['status'], string> = { queued: 'badge', running: 'badge badge-warn', done: 'badge badge-ok', failed: 'badge badge-danger' };

function byteSize(bytes: number | null): string {
  if (bytes === null) return '—';
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** What an export holds: its query, a whole source, or (a GDPR ZIP) every source. */
function ExportContents({ job }: { job: ExportJob }) {
  if (job.format === 'gdpr_zip') return <span>every source</span>;
  if (job.query) {
    return (
      <code className="exports-query" title={job.query}>
        {job.query}
      </code>
    );
  }
  // An export given neither a query nor a source holds the logs.
  return <span>all of {job.source ?? 'logs'}</span>;
}

/** Start exports of the project's data and download them when they are done. */
export default function ExportsPage() {
  const { org = '', project = '' } = useParams();
  const projectQuery = useProject(org, project);
  const jobs = useExports(org, project);

  return (
    <>
      <h1>Exports{projectQuery.data ? <span className="muted"> · {projectQuery.data.name}</span> : null}</h1>
      <p className="muted">
        An export runs in the background and keeps its file for download. Download links work without logging in for an hour after the list shows
        them; reload the page for a fresh link.
      </p>
      <section className="panel">
        <StartExportForm org={org} project={project} />
      </section>
      <section className="panel" aria-labelledby="exports-list">
        <h2 id="exports-list" className="panel-title">
          Exports
        </h2>
        {jobs.isPending ? (
          <Loading what="exports" />
        ) : jobs.isError ? (
          <ErrorNotice error={jobs.error} next="Reload the page." />
        ) : jobs.data.length === 0 ? (
          <EmptyState title="No exports yet">
            <p>Start one above; it shows here with its progress.</p>
          </EmptyState>
        ) : (
          <table className="grid">
            <thead>
              <tr>
                <th scope="col">Started</th>
                <th scope="col">Format</th>
                <th scope="col">Data</th>
                <th scope="col">Status</th>
                <th scope="col" className="numeric">
                  Rows
                </th>
                <th scope="col" className="numeric">
                  Size
                </th>
                <th scope="col">Finished</th>
                <th scope="col">File</th>
              </tr>
            </thead>
            <tbody>
              {jobs.data.map((job) => (
                <tr key={job.id}>
                  <td>
                    <RelativeTime iso={job.created_at} />
                  </td>
                  <td>{FORMAT_LABEL[job.format].name}</td>
                  <td>
                    <ExportContents job={job} />
                  </td>
                  <td>
                    <span className={STATUS_BADGE[job.status]}>
                      {job.status === 'queued' || job.status === 'running' ? <span className="spinner" aria-hidden="true" /> : null} {job.status}
                    </span>
                    {job.error ? <div className="field-hint">{job.error}</div> : null}
                  </td>
                  <td className="numeric">{job.rows ?? '—'}</td>
                  <td className="numeric">{byteSize(job.size)}</td>
                  <td>
                    <RelativeTime iso={job.finished_at} fallback="—" />
                  </td>
                  <td>
                    {job.download_url ? (
                      <a className="button button-small" href={job.download_url} download aria-label={`Download the ${FORMAT_LABEL[job.format].name} export of ${formatDateTime(job.created_at)}`}>
                        Download
                      </a>
                    ) : job.status === 'done' && job.format === 'gdpr_zip' ? (
                      <span className="muted">organization owners only</span>
                    ) : (
                      <span className="muted">—</span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </>
  );
}

function StartExportForm({ org, project }: { org: string; project: string }) {
  const [params] = useSearchParams();
  const start = useStartExport(org, project);
  // A GDPR ZIP is an owner's to start (docs/decisions.md "GDPR"); members see why it is off.
  const owner = useOrganization(org)?.role === 'owner';
  const [format, setFormat] = useState<ExportFormatName>('csv');
  const [what, setWhat] = useState<'query' | 'source'>('query');
  const [query, setQuery] = useState(params.get('q') ?? 'from:logs last:24h');
  const [source, setSource] = useState('logs');
  const [started, setStarted] = useState(false);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setStarted(false);
    const body = format === 'gdpr_zip' ? { format } : what === 'query' ? { format, query: query.trim() } : { format, source };
    start.mutate(body, { onSuccess: () => setStarted(true) });
  };

  return (
    <form onSubmit={submit} aria-labelledby="start-export">
      <h2 id="start-export" className="panel-title">
        Start an export
      </h2>
      <fieldset className="fieldset">
        <legend>Format</legend>
        {EXPORT_FORMATS.map((value) => (
          <label className="choice" key={value}>
            <input
              type="radio"
              name="export-format"
              value={value}
              checked={format === value}
              disabled={value === 'gdpr_zip' && !owner}
              onChange={() => setFormat(value)}
            />
            <span>
              <strong>{FORMAT_LABEL[value].name}</strong> <span className="muted">{FORMAT_LABEL[value].description}</span>
              {value === 'gdpr_zip' && !owner ? <span className="muted"> (organization owners only)</span> : null}
            </span>
          </label>
        ))}
      </fieldset>
      {format === 'gdpr_zip' ? null : (
        <fieldset className="fieldset">
          <legend>Rows</legend>
          <label className="choice">
            <input type="radio" name="export-what" value="query" checked={what === 'query'} onChange={() => setWhat('query')} />
            <span>The answer of a GQL query</span>
          </label>
          {what === 'query' ? (
            <label className="field">
              <span>GQL query</span>
              <input type="text" className="mono" required maxLength={16_384} value={query} onChange={(event) => setQuery(event.target.value)} />
              <span className="field-hint">A search exports its rows (up to the server's export limit); an aggregate exports its groups.</span>
            </label>
          ) : null}
          <label className="choice">
            <input type="radio" name="export-what" value="source" checked={what === 'source'} onChange={() => setWhat('source')} />
            <span>Every row of a source, within retention</span>
          </label>
          {what === 'source' ? (
            <label className="field">
              <span>Source</span>
              <select value={source} onChange={(event) => setSource(event.target.value)}>
                {SOURCES.map((candidate) => (
                  <option key={candidate.name} value={candidate.name}>
                    {candidate.name} — {candidate.rows}
                  </option>
                ))}
              </select>
            </label>
          ) : null}
        </fieldset>
      )}
      {start.isError ? <ErrorNotice error={start.error} next="Check the query in the explorer, then try again." /> : null}
      {started ? (
        <p className="state state-ok" role="status">
          Export started; it shows below with its progress.
        </p>
      ) : null}
      <button type="submit" className="button button-primary" disabled={start.isPending}>
        Start export
      </button>
    </form>
  );
}
