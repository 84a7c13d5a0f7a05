import { formatDateTime, formatOffset } from '../../components/formats';
import type { Breadcrumb } from './queries';

/** "−1.25 s", "−1 h 12 min": how long before the event a breadcrumb was left ("+…" after it). */
function before(crumb: Breadcrumb, eventTime: number): string | null {
  if (!crumb.timestamp) return null;
  const time = Date.parse(crumb.timestamp);
  if (Number.isNaN(time) || Number.isNaN(eventTime)) return null;
  return formatOffset(time - eventTime);
}

function dataText(data: Record<string, unknown> | null | undefined): string | null {
  if (!data || Object.keys(data).length === 0) return null;
  return Object.entries(data)
    .map(([key, value]) => `${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(' · ');
}

/** What happened before the error, oldest first, as a timeline (at most the 50 the SDK kept). */
export function Breadcrumbs({ crumbs, eventTimestamp, fromLog = false }: { crumbs: Breadcrumb[]; eventTimestamp: string; fromLog?: boolean }) {
  if (crumbs.length === 0) {
    return (
      <p className="muted">
        {fromLog
          ? 'No breadcrumbs: they come from SDKs, and this error was made from a log (linked above).'
          : 'No breadcrumbs: the SDK recorded no clicks, navigations, requests or console messages before this error.'}
      </p>
    );
  }
  const eventTime = Date.parse(eventTimestamp);
  return (
    <ol className="crumbs" aria-label="Breadcrumbs, oldest first">
      {crumbs.map((crumb, index) => {
        const level = crumb.level ?? 'info';
        const offset = before(crumb, eventTime);
        const data = dataText(crumb.data);
        return (
          <li key={index} className={`crumb crumb-${level}`}>
            <div className="crumb-head">
              <span className="crumb-category">{crumb.category ?? crumb.type ?? 'default'}</span>
              {level !== 'info' ? <span className={`badge ${level === 'error' || level === 'fatal' ? 'badge-danger' : 'badge-warn'}`}>{level}</span> : null}
              {crumb.timestamp ? (
                <time className="crumb-time" dateTime={crumb.timestamp} title={formatDateTime(crumb.timestamp)}>
                  {offset ?? crumb.timestamp}
                </time>
              ) : null}
            </div>
            {crumb.message ? <p className="crumb-message mono">{crumb.message}</p> : null}
            {data ? <p className="crumb-data mono">{data}</p> : null}
          </li>
        );
      })}
    </ol>
  );
}
