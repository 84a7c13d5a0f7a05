import { Link, useParams } from 'react-router';
import { RelativeTime } from '../../components/RelativeTime';
import { DeletedNotice, EmptyState, ErrorNotice, Loading } from '../../components/States';
import { useAlertRules } from './hooks';
import { CHANNEL_LABEL, conditionText, formatRuleValue } from './status';
import { StatusBadge } from './StatusBadge';
import './alerts.css';

/** The project's alert rules with their status, condition, channels and last value; each opens its page. */
export default function AlertsPage() {
  const { org = '', project = '' } = useParams();
  const rules = useAlertRules(org, project);
  const base = `/orgs/${org}/projects/${project}/alerts`;

  return (
    <>
      <div className="alerts-header">
        <h1>Alerts</h1>
        <Link className="button button-primary" to={`${base}/new`}>
          New alert rule
        </Link>
      </div>
      <DeletedNotice />
      <p className="muted alerts-intro">
        A rule evaluates a GQL metric over its window every minute. Its channels hear once when it starts firing and once when it recovers.
      </p>
      {rules.isPending ? (
        <Loading what="alert rules" />
      ) : rules.isError ? (
        <ErrorNotice error={rules.error} next="Reload the page; if it persists, check that the server is running." />
      ) : rules.data.length === 0 ? (
        <EmptyState title="No alert rules yet">
          <p>Create a rule to be told when a metric, such as the count of error logs, crosses a threshold.</p>
          <Link className="button button-primary" to={`${base}/new`}>
            New alert rule
          </Link>
        </EmptyState>
      ) : (
        <table className="grid alerts-table">
          <thead>
            <tr>
              <th scope="col">Rule</th>
              <th scope="col">Status</th>
              <th scope="col">Condition</th>
              <th scope="col">Severity</th>
              <th scope="col">Channels</th>
              <th scope="col" className="numeric">
                Last value
              </th>
              <th scope="col">Last fired</th>
            </tr>
          </thead>
          <tbody>
            {rules.data.map((rule) => (
              <tr key={rule.id}>
                <td>
                  <Link to={`${base}/${rule.id}`}>{rule.name}</Link>
                  <div className="mono alerts-metric">{rule.metric}</div>
                </td>
                <td>
                  <StatusBadge rule={rule} />
                </td>
                <td className="nowrap">{conditionText(rule)}</td>
                <td>{rule.severity}</td>
                <td>{rule.channels.length === 0 ? <span className="muted">none</span> : rule.channels.map((channel) => CHANNEL_LABEL[channel.type]).join(', ')}</td>
                <td className="numeric">{rule.last_value === null ? <span className="muted">no value</span> : formatRuleValue(rule.last_value)}</td>
                <td>
                  <RelativeTime iso={rule.last_triggered_at} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
