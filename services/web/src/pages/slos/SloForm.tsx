import type { NewSlo, Slo } from '@tlm/api-schemas';
import { useId, useState, type FormEvent } from 'react';
import { useParams } from 'react-router';
import { ApiError } from '../../api/client';
import { ErrorNotice } from '../../components/States';
import { fieldQueryError, GqlEditor } from '../explore/GqlEditor';
import { useUsage } from '../usage/hooks';

const QUERY_LABEL = { good: 'Good (GQL count)', total: 'Total (GQL count)' } as const;

/** The refusal as the form names its fields: `total: expected…` reads "Total query: expected…". */
function shownError(error: unknown): unknown {
  if (!(error instanceof ApiError)) return error;
  const field = /^(good|total): /.exec(error.message);
  if (!field) return error;
  return new ApiError(error.status, error.code, `${field[1] === 'good' ? 'Good' : 'Total'} query: ${error.message.slice(field[0].length)}`, error.details);
}

/** Name, target, window and the good and total count queries of an SLO, new or changed, each in the GQL editor. */
export function SloForm({
  slo,
  saving,
  error,
  submitLabel,
  onSubmit,
  onCancel,
}: {
  slo?: Slo;
  saving: boolean;
  error: unknown;
  submitLabel: string;
  onSubmit: (values: Required<NewSlo>, reset: () => void) => void;
  onCancel?: () => void;
}) {
  const initial = {
    name: slo?.name ?? '',
    target_percent: String(slo?.target_percent ?? '99.9'),
    window_days: String(slo?.window_days ?? '30'),
    good: slo?.good ?? 'from:spans status:ok | count',
    total: slo?.total ?? 'from:spans | count',
  };
  const { org = '', project = '' } = useParams();
  const [values, setValues] = useState(initial);
  const [sent, setSent] = useState({ good: '', total: '' });
  // A window longer than the plan keeps data for counts only the days kept: said beside the window, not found out later.
  const kept = useUsage(org).data?.limits.retention_days;
  const beyondRetention = kept !== undefined && Number(values.window_days) > kept;
  const windowId = useId();
  const windowHintId = useId();
  const hintId = useId();
  const fractionHintId = useId();
  const targetId = useId();
  const fraction = Number(values.target_percent) > 0 && Number(values.target_percent) < 1;
  const set = (field: keyof typeof initial) => (event: { target: { value: string } }) => setValues((current) => ({ ...current, [field]: event.target.value }));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setSent({ good: values.good.trim(), total: values.total.trim() });
    onSubmit(
      { name: values.name.trim(), target_percent: Number(values.target_percent), window_days: Number(values.window_days), good: values.good.trim(), total: values.total.trim() },
      () => setValues(initial),
    );
  };

  return (
    <form onSubmit={submit} aria-label={submitLabel}>
      <div className="alerts-form-grid">
        <label className="field">
          <span>Name</span>
          <input type="text" required maxLength={200} value={values.name} onChange={set('name')} placeholder="Checkout succeeds" />
        </label>
        <div className="field">
          <label htmlFor={targetId}>Target (%)</label>
          <input
            id={targetId}
            type="number"
            required
            min={0.001}
            max={100}
            step="any"
            value={values.target_percent}
            onChange={set('target_percent')}
            aria-describedby={fraction ? fractionHintId : undefined}
          />
          {/* A fraction typed for a percentage (0.999 for 99.9%) is a valid target, and almost never the one meant. */}
          {fraction ? (
            <span id={fractionHintId} className="field-hint field-warn">
              A percentage: {values.target_percent} means {values.target_percent}%, not {Number((Number(values.target_percent) * 100).toPrecision(6))}%.
            </span>
          ) : null}
        </div>
        <div className="field">
          <label htmlFor={windowId}>Window (days)</label>
          <input
            id={windowId}
            type="number"
            required
            min={1}
            max={365}
            step={1}
            value={values.window_days}
            onChange={set('window_days')}
            aria-describedby={beyondRetention ? windowHintId : undefined}
          />
          {beyondRetention ? (
            <span id={windowHintId} className="field-hint field-warn">
              The plan keeps {kept} days of data: the SLO counts the last {kept}, not {values.window_days}.
            </span>
          ) : null}
        </div>
      </div>
      {(['good', 'total'] as const).map((field) => (
        <div className="field" key={field}>
          <span aria-hidden="true">{QUERY_LABEL[field]}</span>
          <GqlEditor
            org={org}
            project={project}
            value={values[field]}
            onChange={(text) => setValues((current) => ({ ...current, [field]: text }))}
            onRun={() => undefined}
            error={fieldQueryError(error, field, sent[field])}
            label={QUERY_LABEL[field]}
            describedBy={hintId}
          />
        </div>
      ))}
      {/* Outside the labels, so it describes both queries without becoming part of either one's name. */}
      <p id={hintId} className="field-hint">
        Count queries without a time range, e.g. <code>from:events event_name:checkout_done | count</code> over <code>from:events event_name:checkout_started | count</code>.
      </p>
      {error ? <ErrorNotice error={shownError(error)} next="Correct what the message names and save again; nothing was saved." /> : null}
      <div className="row">
        <button type="submit" className="button button-primary" disabled={saving || !values.good.trim() || !values.total.trim()}>
          {submitLabel}
        </button>
        {onCancel ? (
          <button type="button" className="button" onClick={onCancel}>
            Cancel
          </button>
        ) : null}
      </div>
    </form>
  );
}
