import type { AlertDelivery, AlertRule } from '@tlm/api-schemas';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { ConfirmDialog } from '../../components/Dialog';
import { RelativeTime } from '../../components/RelativeTime';
import { SecretValue } from '../../components/SecretValue';
import { EmptyState, ErrorNotice, Loading, MissingOrError } from '../../components/States';
import { useTabTitle } from '../../components/useTabTitle';
import { useAlertDeliveries, useAlertEvents, useAlertMutations, useAlertRule, type AlertEvent } from './hooks';
import { CHANNEL_LABEL, channelSummary, conditionText, formatRuleValue } from './status';
import { StatusBadge } from './StatusBadge';
import './alerts.css';

const MUTE_CHOICES = [
  { minutes: 30, label: '30 minutes' },
  { minutes: 60, label: '1 hour' },
  { minutes: 240, label: '4 hours' },
  { minutes: 1_440, label: '1 day' },
  { minutes: 10_080, label: '1 week' },
];

const DELIVERY_BADGE: Record<AlertDelivery['status'], string> = { sent: 'badge badge-ok', failed: 'badge badge-danger', pending: 'badge badge-warn' };

/** The receiver's answer in a line: its status and body, the error that kept it from answering, or nothing yet. */
function answerText(delivery: AlertDelivery): string {
  if (delivery.error) return delivery.error;
  if (delivery.response_status === null) return delivery.response_body ?? 'no answer yet';
  return `${delivery.response_status}${delivery.response_body ? ` ${delivery.response_body}` : ''}`;
}

function DeliveryTable({ deliveries, caption }: { deliveries: AlertDelivery[]; caption: string }) {
  return (
    <table className="grid alerts-deliveries">
      <caption className="visually-hidden">{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Notification</th>
          <th scope="col">Channel</th>
          <th scope="col">Status</th>
          <th scope="col">Attempts</th>
          <th scope="col">Answer</th>
          <th scope="col">When</th>
        </tr>
      </thead>
      <tbody>
        {deliveries.map((delivery) => (
          <tr key={delivery.id} data-delivery={delivery.id}>
            <td>{delivery.kind}</td>
            <td>
              {CHANNEL_LABEL[delivery.channel_type]} <span className="muted">{delivery.target}</span>
            </td>
            <td>
              <span className={DELIVERY_BADGE[delivery.status]}>{delivery.status}</span>
            </td>
            <td className="numeric">{delivery.attempts}</td>
            <td className="mono">{answerText(delivery)}</td>
            <td>
              <RelativeTime iso={delivery.updated_at} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The rule's alert events, newest first, each with the deliveries of its firing (trigger and resolve). */
function Timeline({ org, project, rule }: { org: string; project: string; rule: AlertRule }) {
  const events = useAlertEvents(org, project, rule.id);
  const deliveries = useAlertDeliveries(org, project, rule.id);
  if (events.isPending || deliveries.isPending) return <Loading what="the alert events" />;
  if (events.isError) return <ErrorNotice error={events.error} next="Reload the page." />;
  if (deliveries.isError) return <ErrorNotice error={deliveries.error} next="Reload the page." />;
  const tests = deliveries.data.filter((delivery) => delivery.kind === 'test');
  return (
    <>
      {events.events.length === 0 ? (
        <EmptyState title="This rule has not fired in the last 30 days">
          <p>An event is written when the condition holds, at most one per window while it keeps holding.</p>
        </EmptyState>
      ) : (
        <ol className="alerts-timeline" aria-label="Alert events">
          {events.events.map((event: AlertEvent) => {
            const ofEvent = deliveries.data.filter((delivery) => delivery.event_id === event.id);
            return (
              <li key={event.id}>
                <h3>
                  Fired with value {event.value} <span className="muted">(threshold {event.threshold}, {event.severity})</span>
                </h3>
                <p className="muted">
                  <RelativeTime iso={event.triggered_at} /> · {new Date(event.triggered_at).toLocaleString()}
                </p>
                {ofEvent.length === 0 ? (
                  <p className="muted">No notifications: the firing was already under way, or the rule has no channels.</p>
                ) : (
                  <DeliveryTable deliveries={ofEvent} caption={`Deliveries of the event of ${event.triggered_at}`} />
                )}
              </li>
            );
          })}
        </ol>
      )}
      {tests.length > 0 ? (
        <>
          <h3>Test notifications</h3>
          <DeliveryTable deliveries={tests} caption="Test notifications" />
        </>
      ) : null}
    </>
  );
}

/** The rule's channels with a send-test button each and, for webhooks, the secret that signs them. */
function Channels({ org, project, rule }: { org: string; project: string; rule: AlertRule }) {
  const mutations = useAlertMutations(org, project);
  const [result, setResult] = useState<{ index: number; delivery: AlertDelivery }>();
  if (rule.channels.length === 0) {
    return <p className="muted">No channels: firings are written as alert events only. Edit the rule to add e-mail, Slack, PagerDuty or a webhook.</p>;
  }
  return (
    <ul className="alerts-channels" aria-label="Channels">
      {rule.channels.map((channel, index) => (
        <li key={index}>
          <div className="row">
            <strong>{CHANNEL_LABEL[channel.type]}</strong>
            <span className="mono">{channelSummary(channel)}</span>
            <button
              type="button"
              className="button button-small"
              disabled={mutations.test.isPending}
              onClick={() => mutations.test.mutate({ id: rule.id, channel: index }, { onSuccess: (delivery) => setResult({ index, delivery }) })}
            >
              Send test to channel {index + 1}
            </button>
          </div>
          {channel.type === 'webhook' && channel.secret ? (
            <SecretValue label={`Signing secret of channel ${index + 1}`} value={channel.secret} copyLabel="Copy secret" hint="Each request's X-Tlm-Signature header is t=<seconds>,v1=<hex>: the HMAC-SHA256 of `<t>.<raw body>` with this secret. Recompute it before parsing the body, and refuse old times." />
          ) : null}
          {result?.index === index ? (
            <p role="status" className={result.delivery.status === 'sent' ? 'muted' : 'state state-error'}>
              Test {result.delivery.status}: {answerText(result.delivery)}
            </p>
          ) : null}
        </li>
      ))}
      {mutations.test.isError ? <ErrorNotice error={mutations.test.error} next="Reload the page and try again." /> : null}
    </ul>
  );
}

/** One rule: its status and condition, mute, its channels, and its alert events with their deliveries. */
export default function AlertRulePage() {
  const { org = '', project = '', rule: ruleId = '' } = useParams();
  const navigate = useNavigate();
  const rule = useAlertRule(org, project, ruleId);
  useTabTitle(rule.data?.name);
  const mutations = useAlertMutations(org, project);
  const [muteMinutes, setMuteMinutes] = useState(60);
  const [deleting, setDeleting] = useState(false);
  const list = `/orgs/${org}/projects/${project}/alerts`;

  if (rule.isPending) return <Loading what="the alert rule" />;
  if (rule.isError) {
    return (
      <MissingOrError error={rule.error} title="No such alert rule" next={<Link to={list}>Back to the alert rules</Link>}>
        <p>
          This project has no alert rule {ruleId}: it may have been deleted. <Link to={list}>All alert rules</Link>
        </p>
      </MissingOrError>
    );
  }
  const current = rule.data;
  const muted = current.muted_until !== null && Date.parse(current.muted_until) > Date.now();

  return (
    <>
      <p className="muted">
        <Link to={list}>Alerts</Link> / {current.name}
      </p>
      <div className="alerts-header">
        <h1>
          {current.name} <StatusBadge rule={current} />
        </h1>
        <div className="row">
          <Link className="button" to={`${list}/${current.id}/edit`}>
            Edit rule
          </Link>
          <button type="button" className="button button-danger" onClick={() => setDeleting(true)}>
            Delete rule
          </button>
        </div>
      </div>
      <section className="panel" aria-labelledby="rule-facts">
        <h2 id="rule-facts" className="visually-hidden">
          Rule
        </h2>
        <dl className="alerts-facts">
          <dt>Metric</dt>
          <dd className="mono">{current.metric}</dd>
          <dt>Fires when</dt>
          <dd>the value is {conditionText(current)}</dd>
          <dt>Severity</dt>
          <dd>{current.severity}</dd>
          <dt>Last value</dt>
          <dd>
            {current.last_value === null ? <span className="muted">no value</span> : formatRuleValue(current.last_value)} <span className="muted">(evaluated <RelativeTime iso={current.last_evaluated_at} />)</span>
          </dd>
          <dt>Firing since</dt>
          <dd>
            <RelativeTime iso={current.firing_since} fallback="not firing" />
          </dd>
        </dl>
        <div className="inline-form alerts-mute">
          {muted ? (
            <>
              <p>
                Muted until {new Date(current.muted_until!).toLocaleString()}: not evaluated, no one is notified.
              </p>
              <button type="button" className="button" disabled={mutations.mute.isPending} onClick={() => mutations.mute.mutate({ id: current.id, minutes: 0 })}>
                Unmute
              </button>
            </>
          ) : (
            <>
              <label className="field">
                <span>Mute for</span>
                <select value={muteMinutes} onChange={(event) => setMuteMinutes(Number(event.target.value))}>
                  {MUTE_CHOICES.map((choice) => (
                    <option key={choice.minutes} value={choice.minutes}>
                      {choice.label}
                    </option>
                  ))}
                </select>
              </label>
              <button type="button" className="button" disabled={mutations.mute.isPending} onClick={() => mutations.mute.mutate({ id: current.id, minutes: muteMinutes })}>
                Mute
              </button>
            </>
          )}
        </div>
        {mutations.mute.isError ? <ErrorNotice error={mutations.mute.error} next="Reload the page and try again." /> : null}
      </section>
      <section className="panel" aria-labelledby="channels-title">
        <h2 id="channels-title" className="panel-title">
          Channels
        </h2>
        <Channels org={org} project={project} rule={current} />
      </section>
      <section className="panel" aria-labelledby="events-title">
        <h2 id="events-title" className="panel-title">
          Alert events
        </h2>
        <Timeline org={org} project={project} rule={current} />
      </section>
      <ConfirmDialog
        open={deleting}
        title={`Delete rule "${current.name}"?`}
        confirm="Delete rule"
        busy={mutations.remove.isPending}
        error={mutations.remove.isError ? mutations.remove.error : undefined}
        onConfirm={() => mutations.remove.mutate(current.id, { onSuccess: () => navigate(list, { state: { deleted: current.name } }) })}
        onClose={() => setDeleting(false)}
      >
        <p>The rule stops being evaluated and its deliveries are deleted with it. Its alert events stay queryable in GQL.</p>
      </ConfirmDialog>
    </>
  );
}
