import { useMemo } from 'react';
import { Link, useParams } from 'react-router';
import { useGqlAnswer } from '../../api/gql';
import { LineChart } from '../../components/Charts';
import { rangeBounds, type AggregateShape } from '../../components/charts';
import { EmptyState, ErrorNotice, Loading } from '../../components/States';
import { NoneInRange, TimeRangeSelect, useTimeRangeParam } from '../../components/TimeRange';
import { adoptionSeries, formatShare, healthQueries, releaseHealth, type ReleaseHealth } from './health';
import './releases.css';

const count = new Intl.NumberFormat('en-US');
const adoptionFormat = new Intl.NumberFormat('en-US', { style: 'percent', maximumFractionDigits: 1 });

/** A crash-free share, coloured by how it compares with what teams usually aim for (99.5% and 98%). */
function Share({ share }: { share: number | null }) {
  const tone = share === null ? 'muted' : share >= 0.995 ? 'releases-ok' : share >= 0.98 ? 'releases-warn' : 'releases-bad';
  return <span className={tone}>{formatShare(share)}</span>;
}

function ReleasesTable({ rows }: { rows: ReleaseHealth[] }) {
  return (
    <table className="grid releases-table">
      <caption className="visually-hidden">Crash-free sessions and users, sessions and adoption of each release</caption>
      <thead>
        <tr>
          <th scope="col">Release</th>
          <th scope="col" className="numeric">
            Crash-free sessions
          </th>
          <th scope="col" className="numeric">
            Crash-free users
          </th>
          <th scope="col" className="numeric">
            Sessions
          </th>
          <th scope="col" className="numeric">
            Errored
          </th>
          <th scope="col" className="numeric">
            Crashed
          </th>
          <th scope="col" className="numeric">
            Users
          </th>
          <th scope="col">Adoption</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.release}>
            <th scope="row" className="releases-name">
              {row.release}
            </th>
            <td className="numeric">
              <Share share={row.crashFreeSessions} />
            </td>
            <td className="numeric">
              <Share share={row.crashFreeUsers} />
            </td>
            <td className="numeric">{count.format(row.sessions)}</td>
            <td className="numeric">{count.format(row.outcomes.errored)}</td>
            <td className="numeric">{count.format(row.outcomes.crashed)}</td>
            <td className="numeric">{count.format(row.users)}</td>
            <td>
              <div className="releases-adoption">
                <div
                  className="meter"
                  role="meter"
                  aria-label={`Adoption of ${row.release}`}
                  aria-valuemin={0}
                  aria-valuemax={100}
                  aria-valuenow={Math.round(row.adoption * 1000) / 10}
                  aria-valuetext={`${adoptionFormat.format(row.adoption)} of sessions`}
                >
                  <span style={{ width: `${row.adoption * 100}%` }} />
                </div>
                <span className="releases-adoption-value">{adoptionFormat.format(row.adoption)}</span>
              </div>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Adoption({ org, project, query, bucket }: { org: string; project: string; query: string; bucket: string }) {
  const answer = useGqlAnswer(org, project, query);
  const data = answer.data?.answer;
  const series = useMemo(() => (data ? adoptionSeries(data.data.results, bucket, rangeBounds(data.query.time_range ?? null, Date.now())) : undefined), [data, bucket]);
  const shape = useMemo<AggregateShape>(() => ({ func: 'sum', field: 'quantity', groupBy: ['release'], interval: bucket }), [bucket]);
  if (answer.isError) return <ErrorNotice error={answer.error} next="Reload the page, or pick another range." />;
  if (!series) return <Loading what="adoption over time" />;
  return (
    <LineChart
      data={series}
      shape={shape}
      label={`Line chart: share of sessions per release by time(${bucket}), in percent, ${series.series.length} ${series.series.length === 1 ? 'release' : 'releases'}`}
    />
  );
}

export default function ReleasesPage() {
  const { org = '', project = '' } = useParams();
  const { range, setRange } = useTimeRangeParam('24h');
  const queries = healthQueries(range.value, range.bucket);
  const sessions = useGqlAnswer(org, project, queries.sessions);
  const users = useGqlAnswer(org, project, queries.users);
  const crashedUsers = useGqlAnswer(org, project, queries.crashedUsers);
  const rows = useMemo(
    () => (sessions.data && users.data && crashedUsers.data ? releaseHealth(sessions.data.answer.data.results, users.data.answer.data.results, crashedUsers.data.answer.data.results) : undefined),
    [sessions.data, users.data, crashedUsers.data],
  );
  const error = sessions.error ?? users.error ?? crashedUsers.error;
  const empty = rows !== undefined && rows.length === 0;
  const anyAnswer = useGqlAnswer(org, project, 'from:sessions | sum(quantity) by release | top 1', { enabled: empty });
  const hasAny = anyAnswer.data ? anyAnswer.data.answer.data.results.length > 0 : undefined;
  const total = rows?.reduce((sum, row) => sum + row.sessions, 0) ?? 0;
  const crashed = rows?.reduce((sum, row) => sum + row.outcomes.crashed, 0) ?? 0;

  return (
    <div className="releases">
      <header className="releases-header">
        <h1>Releases</h1>
        <TimeRangeSelect value={range.value} onChange={setRange} />
      </header>
      <p className="muted releases-intro">
        Release health from the sessions your SDKs send: a session is crash-free unless it crashed, a user is crash-free when none of their sessions
        crashed.
      </p>
      {error ? (
        <ErrorNotice error={error} next="Reload the page to try again; if it keeps failing, check that the server is running." />
      ) : !rows ? (
        <Loading what="release health" />
      ) : empty ? (
        hasAny === undefined ? (
          <Loading what="whether this project has any sessions" />
        ) : hasAny ? (
          <NoneInRange what="sessions" range={range} onWiden={setRange} />
        ) : (
          <EmptyState title="No sessions yet">
            <p>
              Give <code>@sentry/browser</code> (or another Sentry SDK) a <code>release</code>, and it sends a session for each page
              load or request; sessions without a release are not kept.
            </p>
            <p>
              <Link to={`/orgs/${org}/projects/${project}/onboarding`}>Set up the project</Link> for the DSN and the snippets.
            </p>
          </EmptyState>
        )
      ) : (
        <>
          <dl className="stats releases-stats">
            <div className="stat">
              <dt>Releases</dt>
              <dd>{count.format(rows.length)}</dd>
            </div>
            <div className="stat">
              <dt>Sessions</dt>
              <dd>{count.format(total)}</dd>
            </div>
            <div className="stat">
              <dt>Crash-free sessions</dt>
              <dd>{formatShare(total > 0 ? 1 - crashed / total : null)}</dd>
            </div>
          </dl>
          <section className="panel" aria-labelledby="releases-list">
            <h2 id="releases-list" className="panel-title">
              By release
            </h2>
            <div className="releases-scroll">
              <ReleasesTable rows={rows} />
            </div>
          </section>
          <section className="panel" aria-labelledby="releases-adoption">
            <h2 id="releases-adoption" className="panel-title">
              Adoption
            </h2>
            <p className="muted releases-note">Each release's share of the sessions started in each {range.bucket}, in percent.</p>
            <Adoption org={org} project={project} query={queries.adoption} bucket={range.bucket} />
          </section>
        </>
      )}
    </div>
  );
}
