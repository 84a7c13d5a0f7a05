import type { IncidentRow, IncidentUpdate, StatusPageRow } from '@tlm/metadata-store';
import { UPTIME_WINDOW_DAYS, snapshotJson, uptimeDays, uptimePercent, type ComponentStatus, type PageStatus, type UptimeDay } from './status';

/**
 * The public status page as server-rendered HTML: no script at all, so it works with JavaScript off and a page
 * without scripts cannot run one that slipped into an incident's text. Styles are inline (one `<style>` element).
 */

/** Escapes text for HTML element content and double-quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

const PAGE_HEADLINE: Record<PageStatus, string> = {
  operational: 'All systems operational',
  degraded: 'Degraded performance',
  partial_outage: 'Partial outage',
  major_outage: 'Major outage',
};
const COMPONENT_LABEL: Record<ComponentStatus, string> = {
  operational: 'Operational',
  degraded_performance: 'Degraded performance',
  partial_outage: 'Partial outage',
  major_outage: 'Major outage',
};
const DAY_LABEL: Record<PageStatus, string> = {
  operational: 'No incidents',
  degraded: 'Degraded performance',
  partial_outage: 'Partial outage',
  major_outage: 'Major outage',
};
const INCIDENT_STATUS: Record<IncidentUpdate['status'], string> = {
  investigating: 'Investigating',
  identified: 'Identified',
  monitoring: 'Monitoring',
  resolved: 'Resolved',
};

/** Days a phone's screen shows of the bars, as Atlassian Statuspage does: 90 bars there would be hairlines. */
const NARROW_DAYS = 30;

const STYLE = `
:root{color-scheme:light dark;--bg:#f7f8fa;--panel:#fff;--text:#1d2330;--muted:#5d6675;--line:#dde1e7;
--ok:#2f9e5b;--degraded:#d9a400;--partial:#e8762b;--major:#d23f3f;--none:#c9ced6;
--ok-text:#1e7a45;--degraded-text:#8a6a00;--partial-text:#b3541a;--major-text:#b42d2d}
@media (prefers-color-scheme:dark){:root{--bg:#14171c;--panel:#1d2128;--text:#e6e9ee;--muted:#9aa3b0;--line:#323844;--none:#3a404b;
--ok-text:#5cc98a;--degraded-text:#e6bf3d;--partial-text:#f0955a;--major-text:#f07070}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--text);font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{max-width:860px;margin:0 auto;padding:32px 20px 48px}
h1{font-size:1.6rem;margin:0 0 20px}
h2{font-size:1.15rem;margin:32px 0 12px}
h3{font-size:1rem;margin:0}
.panel{background:var(--panel);border:1px solid var(--line);border-radius:8px;padding:16px 20px;margin-bottom:12px}
.overall{color:#fff;font-weight:600;font-size:1.1rem;border:0}
.overall.operational{background:#1e7a45}.overall.degraded{background:#8a6a00}
.overall.partial_outage{background:#b3541a}.overall.major_outage{background:#b42d2d}
.component-head{display:flex;justify-content:space-between;gap:12px;align-items:baseline}
.status{font-weight:600}
.status.operational{color:var(--ok-text)}.status.degraded_performance{color:var(--degraded-text)}
.status.partial_outage{color:var(--partial-text)}.status.major_outage{color:var(--major-text)}
.bars{display:flex;gap:2px;height:34px;margin:10px 0 4px;padding:0;list-style:none}
.bars li{flex:1;border-radius:2px;background:var(--ok)}
.bars li.degraded{background:var(--degraded)}.bars li.partial_outage{background:var(--partial)}
.bars li.major_outage{background:var(--major)}.bars li.no_data{background:var(--line)}
.bars-legend{display:flex;justify-content:space-between;color:var(--muted);font-size:.8rem}.bars-legend .narrow{display:none}
@media (max-width:600px){.bars li:nth-child(-n+${UPTIME_WINDOW_DAYS - NARROW_DAYS}){display:none}.bars-legend .wide{display:none}.bars-legend .narrow{display:inline}}
.incident.impact-minor{border-left:4px solid var(--degraded)}.incident.impact-major{border-left:4px solid var(--partial)}
.incident.impact-critical{border-left:4px solid var(--major)}.incident.impact-none{border-left:4px solid var(--none)}
.meta{color:var(--muted);font-size:.85rem}
.updates{list-style:none;margin:10px 0 0;padding:0}
.updates li{padding:8px 0;border-top:1px solid var(--line)}
.updates li p{margin:2px 0 0;white-space:pre-wrap}
.empty{color:var(--muted)}
footer{margin-top:40px;color:var(--muted);font-size:.85rem}
`;

const time = (at: Date | string) =>
  `${new Date(at).toLocaleString('en-GB', { timeZone: 'UTC', day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit', hour12: false })} UTC`;
/** Two decimals at most, trailing zeros dropped; short of 100 never shows as 100 (99.999 reads 99.99%). */
const percent = (value: number) => `${value < 100 ? Math.min(Number(value.toFixed(2)), 99.99) : 100}%`;

function htmlDocument(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

function barTitle(day: UptimeDay): string {
  if (day.level === 'no_data' || day.percent === null) return `${day.date} · No data: the page did not exist yet`;
  const what = day.incidents.length > 0 ? `${DAY_LABEL[day.level]}: ${day.incidents.join('; ')}` : DAY_LABEL[day.level];
  return `${day.date} · ${percent(day.percent)} uptime · ${what}`;
}

function componentHtml(name: string, status: ComponentStatus, incidents: IncidentRow[], now: Date, since: Date): string {
  const days = uptimeDays(incidents, name, now, UPTIME_WINDOW_DAYS, since);
  const ownIncidents = incidents.filter((incident) => incident.components.length === 0 || incident.components.includes(name));
  const bars = days.map((day) => `<li class="${day.level}" title="${escapeHtml(barTitle(day))}"></li>`).join('');
  return `<section class="panel component" aria-label="${escapeHtml(name)}">
<div class="component-head"><h3>${escapeHtml(name)}</h3><span class="status ${status}">${COMPONENT_LABEL[status]}</span></div>
<ol class="bars" aria-label="Uptime of ${escapeHtml(name)}, last ${UPTIME_WINDOW_DAYS} days">${bars}</ol>
<div class="bars-legend"><span><span class="wide">${UPTIME_WINDOW_DAYS} days ago</span><span class="narrow">${NARROW_DAYS} days ago</span></span><span>${percent(uptimePercent(ownIncidents, now, UPTIME_WINDOW_DAYS, since))} uptime</span><span>Today</span></div>
</section>`;
}

function updatesHtml(incident: IncidentRow): string {
  const newestFirst = [...incident.updates].sort((a, b) => Date.parse(b.at) - Date.parse(a.at));
  return `<ol class="updates">${newestFirst
    .map(
      (update) =>
        `<li><strong>${INCIDENT_STATUS[update.status]}</strong> <time class="meta" datetime="${escapeHtml(update.at)}">${time(update.at)}</time>${
          update.message ? `<p>${escapeHtml(update.message)}</p>` : ''
        }</li>`,
    )
    .join('')}</ol>`;
}

function incidentHtml(incident: IncidentRow): string {
  const affected = incident.components.length > 0 ? incident.components.join(', ') : 'All components';
  const span = incident.resolved_at ? `${time(incident.created_at)} – ${time(incident.resolved_at)}` : `Since ${time(incident.created_at)}`;
  return `<article class="panel incident impact-${incident.impact}">
<h3>${escapeHtml(incident.title)}</h3>
<p class="meta">${INCIDENT_STATUS[incident.status]} · ${escapeHtml(incident.impact)} impact · ${escapeHtml(affected)} · ${span}</p>
${updatesHtml(incident)}
</article>`;
}

/** The whole page; `incidents` are those open now or resolved within the uptime window, as listIncidentsSince gives. */
export function statusPageHtml(page: StatusPageRow, incidents: IncidentRow[], now: Date): string {
  const snapshot = snapshotJson(page, incidents, now);
  const open = incidents.filter((incident) => incident.status !== 'resolved');
  const history = incidents
    .filter((incident) => incident.status === 'resolved')
    .sort((a, b) => (b.resolved_at?.getTime() ?? 0) - (a.resolved_at?.getTime() ?? 0));
  const components =
    snapshot.components.length > 0
      ? snapshot.components.map((component) => componentHtml(component.name, component.status, incidents, now, page.created_at)).join('\n')
      : '<p class="empty">This page lists no components.</p>';
  return htmlDocument(
    page.title,
    `<h1>${escapeHtml(page.title)}</h1>
<p class="panel overall ${snapshot.status}">${PAGE_HEADLINE[snapshot.status]}</p>
<section aria-labelledby="active-title">
<h2 id="active-title">Active incidents</h2>
${open.length > 0 ? open.map(incidentHtml).join('\n') : '<p class="empty">No active incidents.</p>'}
</section>
<section aria-labelledby="components-title">
<h2 id="components-title">Components</h2>
${components}
</section>
<section aria-labelledby="history-title">
<h2 id="history-title">Incident history</h2>
${history.length > 0 ? history.map(incidentHtml).join('\n') : `<p class="empty">No incidents resolved in the last ${UPTIME_WINDOW_DAYS} days.</p>`}
</section>
<footer>Times in UTC. Uptime counts the time outside major and critical incidents.</footer>`,
  );
}

export function notFoundHtml(): string {
  return htmlDocument(
    'Status page not found',
    `<h1>Status page not found</h1>
<p class="panel">No status page lives at this address. Check the link you followed; the page may have been renamed or removed.</p>`,
  );
}
