import { Link, useParams } from 'react-router';
import { ApiError } from '../../api/client';
import { EmptyState, ErrorNotice, Loading } from '../../components/States';
import type { Usage as UsageAnswer } from '../../api/types';
import { AI_SIGNALS, SIGNALS, useUsage, type Signal } from './hooks';

const SIGNAL_NAMES: Record<Signal, string> = {
  logs: 'Logs',
  events: 'Events',
  errors: 'Errors',
  spans: 'Spans',
  vitals: 'Web vitals',
  sessions: 'Sessions',
  ai_queries: 'AI queries',
  ai_prompt_tokens: 'AI chat tokens read',
  ai_completion_tokens: 'AI chat tokens written',
};

const number = new Intl.NumberFormat();
const signalName = (signal: Signal) => SIGNAL_NAMES[signal];
const limited = (limit: number | null | undefined): limit is number => typeof limit === 'number' && Number.isFinite(limit) && limit >= 0;
const shown = (limit: number | null | undefined, unit = '') => (limited(limit) ? `${number.format(limit)}${unit}` : 'unlimited');

function monthName(month: string): string {
  const [year, index] = month.split('-').map(Number);
  if (!year || !index) return month;
  return new Date(Date.UTC(year, index - 1, 1)).toLocaleDateString(undefined, { month: 'long', year: 'numeric', timeZone: 'UTC' });
}

export default function UsagePage() {
  const { org = '' } = useParams();
  const usage = useUsage(org);
  return (
    <>
      <h1>Plan and usage{usage.data ? <span className="muted"> · {usage.data.organization.name}</span> : null}</h1>
      {usage.isPending ? (
        <Loading what="plan and usage" />
      ) : usage.isError ? (
        <ErrorNotice
          error={usage.error}
          next={
            usage.error instanceof ApiError && usage.error.status === 404
              ? 'This server does not report usage yet, or the organization is not yours: pick another one above.'
              : 'Reload the page to try again.'
          }
        />
      ) : (
        <Usage answer={usage.data} org={org} />
      )}
    </>
  );
}

const REMOVABLE_FULL = 'The limit is reached: delete one you no longer use, or ask the operator for a larger plan.';
const MONTHLY_FULL = "This month's allowance is used: it renews on the 1st (UTC), or ask the operator for a larger plan.";

function Meter({ label, used, limit, full = REMOVABLE_FULL }: { label: string; used: number; limit: number | null | undefined; full?: string }) {
  const max = limited(limit) ? limit : undefined;
  const share = max ? Math.min(1, used / max) : 0;
  return (
    <div className="quota">
      <div className="row quota-head">
        <strong>{label}</strong>
        <span className="muted">
          {number.format(used)} of {shown(limit)}
        </span>
      </div>
      {max !== undefined ? (
        <div
          className={`meter${used >= max ? ' meter-full' : ''}`}
          role="meter"
          aria-label={label}
          aria-valuemin={0}
          aria-valuemax={max}
          aria-valuenow={used}
          aria-valuetext={`${used} of ${max}`}
        >
          <span style={{ width: `${Math.round(share * 100)}%` }} />
        </div>
      ) : null}
      {max !== undefined && used >= max ? <p className="field-hint">{full}</p> : null}
    </div>
  );
}

function Usage({ answer, org }: { answer: UsageAnswer; org: string }) {
  const { limits } = answer;
  const total = SIGNALS.reduce((sum, signal) => sum + (AI_SIGNALS.includes(signal) ? 0 : (answer.usage[signal] ?? 0)), 0);
  // The chat is billed by tokens, read and written alike (docs/api.md "AI usage").
  const chatTokens = (answer.usage.ai_prompt_tokens ?? 0) + (answer.usage.ai_completion_tokens ?? 0);
  return (
    <>
      <section className="panel" aria-labelledby="plan">
        <h2 id="plan" className="panel-title">
          Plan: <span className="badge badge-ok plan-badge">{answer.organization.plan}</span>
        </h2>
        <p className="muted">
          The plan is set by the operator of this deployment; there is no self-serve upgrade. To change it, ask them. Region{' '}
          <code>{answer.organization.region}</code>.
        </p>
        <dl className="stats">
          <div className="stat">
            <dt>API key requests per second</dt>
            <dd>{shown(limits.requests_per_second)}</dd>
          </div>
          <div className="stat">
            <dt>Dashboard requests per second</dt>
            <dd>{shown(limits.api_requests_per_second)}</dd>
          </div>
          <div className="stat">
            <dt>Retention</dt>
            <dd>{shown(limits.retention_days, ' days')}</dd>
          </div>
          <div className="stat">
            <dt>Projects</dt>
            <dd>{shown(limits.max_projects)}</dd>
          </div>
          <div className="stat">
            <dt>API keys</dt>
            <dd>{shown(limits.max_api_keys)}</dd>
          </div>
          <div className="stat">
            <dt>AI queries a month</dt>
            <dd>{shown(limits.ai_queries_per_month)}</dd>
          </div>
          <div className="stat">
            <dt>AI chat tokens a month</dt>
            <dd>{shown(limits.ai_tokens_per_month)}</dd>
          </div>
        </dl>
      </section>
      <section className="panel" aria-labelledby="quotas">
        <h2 id="quotas" className="panel-title">
          Quotas
        </h2>
        <div className="quotas">
          <Meter label="Projects" used={answer.projects.used} limit={answer.projects.limit ?? limits.max_projects} />
          <Meter label="API keys" used={answer.keys.used} limit={answer.keys.limit ?? limits.max_api_keys} />
          <Meter label="AI queries this month" used={answer.usage.ai_queries ?? 0} limit={limits.ai_queries_per_month} full={MONTHLY_FULL} />
          <Meter label="AI chat tokens this month" used={chatTokens} limit={limits.ai_tokens_per_month} full={MONTHLY_FULL} />
        </div>
      </section>
      <section className="panel" aria-labelledby="this-month">
        <h2 id="this-month" className="panel-title">
          {monthName(answer.month)}
        </h2>
        <p className="muted">
          What the whole organization has sent this month, per signal. Plan months run in UTC: this one began at midnight UTC on the 1st. Logs and
          events count when they are received; errors, spans, vitals and sessions by the time they carry, so one sent today about last month counts
          there, and one past its plan's retention no longer counts.
        </p>
        <dl className="stats">
          {SIGNALS.map((signal) => (
            <div className="stat" key={signal}>
              <dt>{signalName(signal)}</dt>
              <dd>{number.format(answer.usage[signal] ?? 0)}</dd>
            </div>
          ))}
        </dl>
        {total === 0 ? (
          <EmptyState title="Nothing received this month">
            <p>
              Open a project's <strong>Get started</strong> page to send your first log, event or error.
            </p>
          </EmptyState>
        ) : null}
        {answer.by_project.length > 0 ? (
          <table className="grid usage-table">
            <caption className="visually-hidden">Usage by project this month</caption>
            <thead>
              <tr>
                <th scope="col">Project</th>
                {SIGNALS.map((signal) => (
                  <th scope="col" key={signal} className="numeric">
                    {signalName(signal)}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {answer.by_project.map((project) => (
                <tr key={project.id}>
                  <th scope="row">
                    <Link to={`/orgs/${org}/projects/${project.id}/explore`}>{project.name}</Link>
                  </th>
                  {SIGNALS.map((signal) => (
                    <td key={signal} className="numeric">
                      {number.format(project.usage[signal] ?? 0)}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        ) : null}
      </section>
    </>
  );
}
