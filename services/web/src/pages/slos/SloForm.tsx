import type { NewSlo, Slo } from '@tlm/api-schemas';
import { useId, useState, type FormEvent } from 'react';
import { ErrorNotice } from '../../components/States';

/** Name, target, window and the good and total count queries of an SLO, new or changed. */
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
  const [values, setValues] = useState(initial);
  const hintId = useId();
  const fractionHintId = useId();
  const targetId = useId();
  const fraction = Number(values.target_percent) > 0 && Number(values.target_percent) < 1;
  const set = (field: keyof typeof initial) => (event: { target: { value: string } }) => setValues((current) => ({ ...current, [field]: event.target.value }));

  const submit = (event: FormEvent) => {
    event.preventDefault();
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
        <label className="field">
          <span>Window (days)</span>
          <input type="number" required min={1} max={365} step={1} value={values.window_days} onChange={set('window_days')} />
        </label>
      </div>
      <label className="field">
        <span>Good (GQL count)</span>
        <input type="text" className="mono" required maxLength={4000} value={values.good} onChange={set('good')} aria-describedby={hintId} />
      </label>
      <label className="field">
        <span>Total (GQL count)</span>
        <input type="text" className="mono" required maxLength={4000} value={values.total} onChange={set('total')} aria-describedby={hintId} />
      </label>
      {/* Outside the labels, so it describes both queries without becoming part of either one's name. */}
      <p id={hintId} className="field-hint">
        Count queries without a time range, e.g. <code>from:events event_name:checkout_done | count</code> over <code>from:events event_name:checkout_started | count</code>.
      </p>
      {error ? <ErrorNotice error={error} next="Correct what the message names and save again; nothing was saved." /> : null}
      <div className="row">
        <button type="submit" className="button button-primary" disabled={saving}>
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
