import { useEffect, type ReactNode } from 'react';
import { CopyButton } from '../../components/CopyButton';
import { formatDuration } from '../../components/formats';
import { Cell } from '../explore/ResultsTable';
import type { WaterfallRow } from './traces';

const text = (value: unknown) => (value === null || value === undefined ? '—' : typeof value === 'string' ? value : JSON.stringify(value));

/** A property bag as a two-column list, keys in order. */
function Bag({ bag, label }: { bag: Record<string, unknown>; label: string }) {
  const entries = Object.entries(bag).sort(([a], [b]) => a.localeCompare(b));
  if (entries.length === 0) return <p className="muted">No {label}.</p>;
  return (
    <dl className="span-kv" aria-label={label}>
      {entries.map(([key, value]) => (
        <div key={key} className="span-kv-row">
          <dt>{key}</dt>
          <dd>{text(value)}</dd>
        </div>
      ))}
    </dl>
  );
}

/** The selected span: its fields, its attributes and its events (each at its time from the span's start). */
export function SpanDetails({ row, onClose }: { row: WaterfallRow; onClose: () => void }) {
  // Escape closes the panel, as it does a dialog, unless something inside the page (a menu, the editor) took it.
  useEffect(() => {
    const close = (event: KeyboardEvent) => {
      if (event.key === 'Escape' && !event.defaultPrevented) onClose();
    };
    document.addEventListener('keydown', close);
    return () => document.removeEventListener('keydown', close);
  }, [onClose]);
  const { span } = row;
  const spanStart = Date.parse(span.timestamp);
  const events = span.events ?? [];
  const fields: [string, ReactNode][] = [
    ['Span ID', <span className="mono">{span.span_id}</span>],
    ['Parent span', span.parent_span_id ? <span className="mono">{span.parent_span_id}</span> : <span className="muted">none (a root span)</span>],
    ['Service', text(span.service)],
    ['Operation (op)', text(span.op)],
    ['Kind', text(span.kind)],
    ['Status', <span className={`badge ${span.status === 'error' ? 'badge-danger' : 'badge-ok'}`}>{span.status}</span>],
    ['Duration', formatDuration(span.duration_ms)],
    [
      'Starts',
      <>
        {formatDuration(row.startMs)} into the trace (<Cell column="timestamp" value={new Date(spanStart).toISOString()} />)
      </>,
    ],
    ['Release', text(span.release)],
    ['Environment', text(span.environment)],
  ];
  return (
    <section className="panel span-details" aria-labelledby="span-details-title">
      <header className="row span-details-header">
        <h2 id="span-details-title">
          Span: <span className="mono">{span.name}</span>
        </h2>
        <span className="topbar-spacer" />
        <CopyButton text={span.span_id} label="Copy span ID" />
        <button type="button" className="button button-small" onClick={onClose}>
          Close
        </button>
      </header>
      <dl className="span-kv span-fields">
        {fields.map(([label, value]) => (
          <div key={label} className="span-kv-row">
            <dt>{label}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      <h3>Attributes</h3>
      <Bag bag={span.attributes ?? {}} label="attributes" />
      <h3>Events ({events.length})</h3>
      {events.length === 0 ? (
        <p className="muted">This span recorded no events.</p>
      ) : (
        <ol className="span-events">
          {events.map((event, index) => {
            const at = Date.parse(event.timestamp) - spanStart;
            return (
              <li key={index} className={event.name === 'exception' ? 'span-event-exception' : undefined}>
                <p>
                  <strong>{event.name}</strong> <span className="muted">at +{formatDuration(Number.isNaN(at) ? null : Math.max(at, 0))}</span>
                </p>
                {event.attributes && Object.keys(event.attributes).length > 0 ? <Bag bag={event.attributes} label={`attributes of ${event.name}`} /> : null}
              </li>
            );
          })}
        </ol>
      )}
    </section>
  );
}
