import { useId } from 'react';
import { CopyButton } from './CopyButton';

/** A read-only value (a key shown once, a DSN) with its label and a copy button; found by its label. */
export function SecretValue({ label, value, copyLabel, hint }: { label: string; value: string; copyLabel: string; hint?: string }) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <div className="row nowrap">
        <input id={id} type="text" readOnly className="mono secret-value" value={value} onFocus={(event) => event.target.select()} />
        <CopyButton text={value} label={copyLabel} />
      </div>
      {hint ? <span className="field-hint">{hint}</span> : null}
    </div>
  );
}
