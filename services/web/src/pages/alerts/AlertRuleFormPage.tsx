import type { AlertChannel, AlertChannelTypes, AlertPreviewBody, AlertRule } from '@tlm/api-schemas';
import { useEffect, useId, useMemo, useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { ApiError } from '../../api/client';
import { LineChart } from '../../components/Charts';
import { ErrorNotice, Loading, MissingOrError } from '../../components/States';
import { useFocusRequest } from '../../components/useFocusRequest';
import { NaturalLanguageBox } from '../explore/Controls';
import { fieldQueryError, GqlEditor } from '../explore/GqlEditor';
import { useAlertChannelTypes, useAlertMutations, useAlertPreview, useAlertRule } from './hooks';
import { CHANNEL_LABEL, CHANNEL_TYPES, COMPARATORS, COMPARATOR_SYMBOL, SEVERITIES } from './status';
import './alerts.css';

/** A channel as the form edits it: every field of every type, so switching the type keeps what was typed. */
interface ChannelDraft {
  type: AlertChannel['type'];
  url: string;
  to: string;
  routing_key: string;
  /** A webhook's secret as stored; sent back unchanged so it is kept. */
  secret?: string;
}

interface RuleDraft {
  name: string;
  metric: string;
  comparator: AlertRule['comparator'];
  threshold: string;
  window_minutes: string;
  severity: AlertRule['severity'];
  enabled: boolean;
  channels: ChannelDraft[];
}

const EMPTY_RULE: RuleDraft = {
  name: '',
  metric: 'from:logs severity:error | count',
  comparator: 'gt',
  threshold: '',
  window_minutes: '5',
  severity: 'warning',
  enabled: true,
  channels: [],
};

const COMPARATOR_WORDS: Record<AlertRule['comparator'], string> = { gt: 'above', gte: 'at or above', lt: 'below', lte: 'at or below' };
const COMPARE: Record<AlertRule['comparator'], (value: number, threshold: number) => boolean> = {
  gt: (value, threshold) => value > threshold,
  gte: (value, threshold) => value >= threshold,
  lt: (value, threshold) => value < threshold,
  lte: (value, threshold) => value <= threshold,
};

function draftOf(rule: AlertRule): RuleDraft {
  return {
    name: rule.name,
    metric: rule.metric,
    comparator: rule.comparator,
    threshold: String(rule.threshold),
    window_minutes: String(rule.window_minutes),
    severity: rule.severity,
    enabled: rule.enabled,
    channels: rule.channels.map((channel) => ({
      type: channel.type,
      url: channel.type === 'webhook' || channel.type === 'slack' ? channel.url : '',
      to: channel.type === 'email' ? channel.to : '',
      routing_key: channel.type === 'pagerduty' ? channel.routing_key : '',
      ...(channel.type === 'webhook' && channel.secret ? { secret: channel.secret } : {}),
    })),
  };
}

function channelOf(draft: ChannelDraft): AlertChannel {
  switch (draft.type) {
    case 'email':
      return { type: 'email', to: draft.to.trim() };
    case 'pagerduty':
      return { type: 'pagerduty', routing_key: draft.routing_key.trim() };
    case 'slack':
      return { type: 'slack', url: draft.url.trim() };
    case 'webhook':
      return { type: 'webhook', url: draft.url.trim(), ...(draft.secret ? { secret: draft.secret } : {}) };
  }
}

/** Waits until typing pauses before a value is used (the preview is a query per change). */
function useSettled<T>(value: T, delayMs: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = window.setTimeout(() => setSettled(value), delayMs);
    return () => window.clearTimeout(timer);
  }, [value, delayMs]);
  return settled;
}

/** The metric over the last day, each bucket one window long, with the threshold drawn across it. */
function Preview({
  org,
  project,
  body,
  threshold,
  comparator,
}: {
  org: string;
  project: string;
  body: AlertPreviewBody | null;
  threshold: number | null;
  comparator: AlertRule['comparator'];
}) {
  const preview = useAlertPreview(org, project, body);
  const data = useMemo(() => {
    const points = preview.data?.points ?? [];
    const xs = points.map((point) => Date.parse(point.time) / 1_000);
    const series = [{ label: 'metric', values: points.map((point) => point.value) }];
    if (threshold !== null) series.push({ label: 'threshold', values: points.map(() => threshold) });
    return { xs, series };
  }, [preview.data, threshold]);
  if (body === null) return <p className="muted">Write a metric and a window to see it over the last day.</p>;
  if (preview.isPending) return <Loading what="the preview" />;
  if (preview.isError) return <ErrorNotice error={preview.error} next="Correct the metric: it must be one aggregate value without a time range or grouping." />;
  const crossing = threshold === null ? 0 : data.series[0]!.values.filter((value) => value !== null && COMPARE[comparator](value, threshold)).length;
  return (
    <>
      <LineChart
        data={data}
        shape={{ func: 'value', field: null, groupBy: [], interval: null }}
        height={220}
        label={`The metric over the last day in ${preview.data.bucket_minutes}-minute buckets${threshold === null ? '' : `, with the threshold ${threshold}`}`}
      />
      {threshold === null ? null : (
        <p className="field-hint">
          {crossing} of {data.xs.length} buckets of the last day are {COMPARATOR_WORDS[comparator]} the threshold: the rule would have fired in them.
        </p>
      )}
    </>
  );
}

const CHANNEL_FIELD: Record<string, string> = { url: 'URL', to: 'address', routing_key: 'routing key', type: 'type' };

/** One channel's refusal in the form's words: the API names it by its place in the list (`channels[1].url: …`), the form by its number (`Channel 2's URL: …`). */
function saidOfChannel(message: string): { index: number; said: string } | null {
  const match = /^channels\[(\d+)\](?:\.(\w+))?:? /.exec(message);
  if (!match) return null;
  const index = Number(match[1]);
  const rest = message.slice(match[0].length);
  // The schema's words name the field first (`channels[1]: routing_key must be …`): said as the form labels it.
  const named = match[2] ? undefined : /^(\w+) (must .*)$/s.exec(rest);
  if (named && CHANNEL_FIELD[named[1]!]) return { index, said: `Channel ${index + 1}'s ${CHANNEL_FIELD[named[1]!]} ${named[2]}` };
  const field = match[2] ? CHANNEL_FIELD[match[2]] ?? match[2] : undefined;
  return { index, said: `Channel ${index + 1}${field ? `'s ${field}` : ''}: ${rest}` };
}

/**
 * A refusal of channels in the form's words: every refused channel (the API lists them in `details.channels`, or
 * names one in its message) with what is said under its fields, and the whole refusal for the form's notice.
 */
function channelRefusal(error: unknown): { byIndex: Map<number, ApiError>; error: ApiError } | null {
  if (!(error instanceof ApiError)) return null;
  const listed = (error.details?.['channels'] as { message?: unknown }[] | undefined) ?? [{ message: error.message }];
  const saids = listed.map((problem) => (typeof problem.message === 'string' ? saidOfChannel(problem.message) : null));
  if (saids.length === 0 || saids.some((said) => said === null)) return null;
  const byIndex = new Map(saids.map((said) => [said!.index, new ApiError(error.status, error.code, said!.said)]));
  return { byIndex, error: new ApiError(error.status, error.code, saids.map((said) => said!.said).join('; '), error.details) };
}

type ChannelTypeState = AlertChannelTypes['channel_types'][number];

/** How a type the server cannot send to reads in the type's list. */
const UNAVAILABLE_NOTE: Partial<Record<AlertChannel['type'], string>> = { email: 'this server sends no e-mail' };

/**
 * One channel's fields: its type and where it goes; `refused` is the server's refusal of it, said under them. A type
 * the server cannot send to (`types`, e-mail without SMTP_URL) is offered disabled, and said so when a stored rule has it.
 */
function ChannelFields({ index, draft, types, onChange, onRemove, refused }: { index: number; draft: ChannelDraft; types: readonly ChannelTypeState[]; onChange: (draft: ChannelDraft) => void; onRemove: () => void; refused?: ApiError }) {
  const n = index + 1;
  const invalid = refused ? true : undefined;
  const unavailable = (type: AlertChannel['type']) => types.find((candidate) => candidate.type === type && !candidate.available);
  const chosenUnavailable = unavailable(draft.type);
  // What is said under the fields is their description, read with them.
  const hintId = useId();
  const described = refused || chosenUnavailable ? hintId : undefined;
  return (
    <div className={`alerts-channel${refused ? ' alerts-channel-refused' : ''}`} role="group" aria-label={`Channel ${n}`} aria-invalid={invalid}>
      <label className="field">
        <span>Channel {n} type</span>
        <select value={draft.type} onChange={(event) => onChange({ ...draft, type: event.target.value as ChannelDraft['type'] })}>
          {CHANNEL_TYPES.map((type) => (
            <option key={type} value={type} disabled={Boolean(unavailable(type))}>
              {CHANNEL_LABEL[type]}
              {unavailable(type) ? ` (${UNAVAILABLE_NOTE[type] ?? 'not on this server'})` : ''}
            </option>
          ))}
        </select>
      </label>
      {draft.type === 'email' ? (
        <label className="field field-wide">
          <span>Channel {n} e-mail address</span>
          <input type="email" required aria-invalid={invalid} aria-describedby={described} value={draft.to} onChange={(event) => onChange({ ...draft, to: event.target.value })} placeholder="oncall@example.com" />
        </label>
      ) : draft.type === 'pagerduty' ? (
        <label className="field field-wide">
          <span>Channel {n} routing key</span>
          <input type="text" required aria-invalid={invalid} aria-describedby={described} value={draft.routing_key} onChange={(event) => onChange({ ...draft, routing_key: event.target.value })} placeholder="the integration key of an Events API v2 integration" />
        </label>
      ) : (
        <label className="field field-wide">
          <span>Channel {n} URL</span>
          <input
            type="text"
            inputMode="url"
            required
            pattern="https?://.+"
            aria-invalid={invalid}
            aria-describedby={described}
            title="A URL that begins with https:// or http://"
            value={draft.url}
            onChange={(event) => onChange({ ...draft, url: event.target.value })}
            placeholder={draft.type === 'slack' ? 'https://hooks.slack.com/services/…' : 'https://example.com/alerts'}
          />
        </label>
      )}
      <button type="button" className="button button-small button-danger" onClick={onRemove}>
        Remove channel {n}
      </button>
      {chosenUnavailable && !refused ? <p id={hintId} className="field-hint field-warn alerts-channel-error">Channel {n}: {chosenUnavailable.reason}. Choose another type or remove it.</p> : null}
      {refused ? <p id={hintId} className="field-hint field-warn alerts-channel-error">{refused.message}</p> : null}
    </div>
  );
}

/** Creates a rule (`/alerts/new`) or changes one (`/alerts/:rule/edit`). */
export default function AlertRuleFormPage() {
  const { org = '', project = '', rule: ruleId } = useParams();
  const existing = useAlertRule(org, project, ruleId);
  if (ruleId && existing.isPending) return <Loading what="the alert rule" />;
  if (ruleId && existing.isError) {
    const list = `/orgs/${org}/projects/${project}/alerts`;
    return (
      <MissingOrError error={existing.error} title="No such alert rule" next={<Link to={list}>Go back to the alert rules and open the rule again.</Link>}>
        <p>
          This project has no alert rule {ruleId} to edit: it may have been deleted. <Link to={list}>All alert rules</Link>
        </p>
      </MissingOrError>
    );
  }
  return <AlertRuleForm key={ruleId ?? 'new'} org={org} project={project} rule={existing.data} />;
}

function AlertRuleForm({ org, project, rule }: { org: string; project: string; rule: AlertRule | undefined }) {
  const navigate = useNavigate();
  const mutations = useAlertMutations(org, project);
  const channelTypes = useAlertChannelTypes(org, project);
  const [draft, setDraft] = useState<RuleDraft>(() => (rule ? draftOf(rule) : EMPTY_RULE));
  const set = <K extends keyof RuleDraft>(field: K, value: RuleDraft[K]) => setDraft((current) => ({ ...current, [field]: value }));
  const saving = rule ? mutations.update : mutations.create;
  const refusedChannel = channelRefusal(saving.error);
  const list = `/orgs/${org}/projects/${project}/alerts`;
  // The submit button is disabled while saving, which takes the focus from it: a refusal puts it on the first refused
  // channel's field, or back on the button; a new channel's type takes it when the channel is added.
  const focusNext = useFocusRequest(!saving.isPending, draft.channels.length);
  const channelField = (index: number) => `[role="group"][aria-label="Channel ${index + 1}"] input`;

  const windowMinutes = Number(draft.window_minutes);
  const previewBody = useSettled<AlertPreviewBody | null>(
    draft.metric.trim() && Number.isInteger(windowMinutes) && windowMinutes >= 1 && windowMinutes <= 10_080 ? { metric: draft.metric.trim(), window_minutes: windowMinutes } : null,
    400,
  );
  const threshold = draft.threshold.trim() === '' || !Number.isFinite(Number(draft.threshold)) ? null : Number(draft.threshold);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const body = {
      name: draft.name.trim(),
      metric: draft.metric.trim(),
      comparator: draft.comparator,
      threshold: Number(draft.threshold),
      window_minutes: windowMinutes,
      severity: draft.severity,
      enabled: draft.enabled,
      channels: draft.channels.map(channelOf),
    };
    const done = (saved: AlertRule) => navigate(`${list}/${saved.id}`);
    const refused = (error: unknown) => {
      const first = [...(channelRefusal(error)?.byIndex.keys() ?? [])].sort((a, b) => a - b)[0];
      focusNext([...(first === undefined ? [] : [channelField(first)]), '.alerts-rule-form button[type="submit"]']);
    };
    if (rule) mutations.update.mutate({ id: rule.id, changes: body }, { onSuccess: done, onError: refused });
    else mutations.create.mutate(body, { onSuccess: done, onError: refused });
  };

  return (
    <>
      <p className="muted">
        <Link to={list}>Alerts</Link> / {rule ? <Link to={`${list}/${rule.id}`}>{rule.name}</Link> : 'New rule'}
      </p>
      <h1>{rule ? `Edit ${rule.name}` : 'New alert rule'}</h1>
      <section className="panel" aria-label="Describe the metric">
        <NaturalLanguageBox
          org={org}
          project={project}
          mode="alert"
          placeholder="error logs on /checkout"
          invalidNote="The answer is in the metric editor but is not one value an alert can watch: edit it there."
          onQuery={(gql) => set('metric', gql)}
        />
      </section>
      <form className="alerts-rule-form" onSubmit={submit} aria-label={rule ? 'Edit alert rule' : 'New alert rule'}>
        <section className="panel">
          <label className="field">
            <span>Name</span>
            <input type="text" required maxLength={200} value={draft.name} onChange={(event) => set('name', event.target.value)} placeholder="Checkout errors" />
          </label>
          <div className="field">
            <span id="metric-label">Metric</span>
            <GqlEditor
              org={org}
              project={project}
              value={draft.metric}
              onChange={(text) => set('metric', text)}
              onRun={(text) => set('metric', text)}
              error={fieldQueryError(saving.error, 'metric', draft.metric.trim())}
              label="Metric"
              describedBy="metric-hint"
            />
            <span id="metric-hint" className="field-hint">One aggregate value without a time range, e.g. <code>from:logs severity:error | count</code>; the window supplies the range.</span>
          </div>
          <div className="alerts-form-grid">
            <label className="field">
              <span>Fires when the value is</span>
              <select value={draft.comparator} onChange={(event) => set('comparator', event.target.value as RuleDraft['comparator'])}>
                {COMPARATORS.map((comparator) => (
                  <option key={comparator} value={comparator}>
                    {COMPARATOR_WORDS[comparator]} ({COMPARATOR_SYMBOL[comparator]})
                  </option>
                ))}
              </select>
            </label>
            <label className="field">
              <span>Threshold</span>
              <input type="number" required step="any" value={draft.threshold} onChange={(event) => set('threshold', event.target.value)} />
            </label>
            <label className="field">
              <span>Window (minutes)</span>
              <input type="number" required min={1} max={10_080} step={1} value={draft.window_minutes} onChange={(event) => set('window_minutes', event.target.value)} />
            </label>
            <label className="field">
              <span>Severity</span>
              <select value={draft.severity} onChange={(event) => set('severity', event.target.value as RuleDraft['severity'])}>
                {SEVERITIES.map((severity) => (
                  <option key={severity} value={severity}>
                    {severity}
                  </option>
                ))}
              </select>
            </label>
          </div>
          <label className="choice">
            <input type="checkbox" checked={draft.enabled} onChange={(event) => set('enabled', event.target.checked)} />
            <span>Enabled: evaluated every minute</span>
          </label>
        </section>
        <section className="panel" aria-labelledby="preview-title">
          <h2 id="preview-title" className="panel-title">
            The last day
          </h2>
          <Preview org={org} project={project} body={previewBody} threshold={threshold} comparator={draft.comparator} />
        </section>
        <section className="panel" aria-labelledby="channels-title">
          <h2 id="channels-title" className="panel-title">
            Channels
          </h2>
          <p className="field-hint">
            Each channel hears once when the rule starts firing and once when it recovers. Webhooks are signed (<code>X-Tlm-Signature</code>) with a secret shown on the rule's page.
          </p>
          {draft.channels.map((channel, index) => (
            <ChannelFields
              key={index}
              index={index}
              draft={channel}
              types={channelTypes.data ?? []}
              onChange={(changed) => set('channels', draft.channels.map((candidate, position) => (position === index ? changed : candidate)))}
              onRemove={() => {
                // The channels are numbered again: a refusal naming one by its number no longer names the same one.
                if (refusedChannel) saving.reset();
                set('channels', draft.channels.filter((_, position) => position !== index));
              }}
              refused={refusedChannel?.byIndex.get(index)}
            />
          ))}
          <div className="row alerts-add-channel">
            <button
              type="button"
              className="button button-small"
              disabled={draft.channels.length >= 10}
              onClick={() => {
                focusNext([`[role="group"][aria-label="Channel ${draft.channels.length + 1}"] select`]);
                set('channels', [...draft.channels, { type: 'webhook', url: '', to: '', routing_key: '' }]);
              }}
            >
              Add channel
            </button>
          </div>
        </section>
        {saving.isError ? <ErrorNotice error={refusedChannel?.error ?? saving.error} next="Correct what the message names and save again; nothing was saved." /> : null}
        <div className="row">
          <button type="submit" className="button button-primary" disabled={saving.isPending}>
            {rule ? 'Save rule' : 'Create rule'}
          </button>
          <Link className="button" to={rule ? `${list}/${rule.id}` : list}>
            Cancel
          </Link>
        </div>
      </form>
    </>
  );
}
