import { Link } from 'react-router';
import { relativeTime, useNow } from '../../components/RelativeTime';
import { ErrorNotice } from '../../components/States';
import { explorePath } from '../explore/queryText';
import { tracesBase } from '../traces/hooks';
import { latestQuery, rowQuery, useFirstRow, type Source } from './hooks';

const NAMES: Record<Source, string> = { logs: 'log', events: 'event', errors: 'error' };

/** Polls logs, events and errors every 2 s and says when the first of each arrives, with a link to it (an error's: its issue). */
export function WaitingForData({ org, project }: { org: string; project: string }) {
  return (
    <ul className="arrivals">
      {(['logs', 'events', 'errors'] as const).map((source) => (
        <Arrival key={source} org={org} project={project} source={source} />
      ))}
    </ul>
  );
}

function Arrival({ org, project, source }: { org: string; project: string; source: Source }) {
  const row = useFirstRow(org, project, source);
  const now = useNow(1_000);
  const name = NAMES[source];
  const explore = explorePath(org, project, row.data?.id ? rowQuery(source, row.data.id) : latestQuery(source));
  if (row.isError) {
    return (
      <li>
        <ErrorNotice error={row.error} next={`Checking for ${source} failed; it is tried again every few seconds.`} />
      </li>
    );
  }
  if (!row.data) {
    return (
      <li className="waiting">
        <span role="status">
          <span className="spinner" aria-hidden="true" /> Waiting for the first {name}…
        </span>
      </li>
    );
  }
  return (
    <li>
      <span className="received" role="status">
        ✓ First {name} received {row.data.received_at ? relativeTime(row.data.received_at, now) : 'just now'}
      </span>{' '}
      {/* An error is read on its issue's page, with its stack trace; logs and events in the explorer. */}
      {row.data.issue_id ? (
        <Link to={`${tracesBase(org, project)}/issues/${encodeURIComponent(row.data.issue_id)}`}>See its issue</Link>
      ) : (
        <Link to={explore}>See it in the explorer</Link>
      )}
    </li>
  );
}
