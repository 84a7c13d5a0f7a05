import { useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { formatDuration } from '../../components/formats';
import { visibleRows, type Waterfall as WaterfallData, type WaterfallRow } from './traces';

const INDENT_PX = 18;
/** Rows drawn at first: a trace of 10,000 spans stays quick to open; more are drawn on request. */
const PAGE_ROWS = 1_000;
const TICKS = [0, 25, 50, 75, 100];

/**
 * The duration beside its bar: after the bar; before it when the bar ends near the right edge; inside it when the
 * bar fills most of the row.
 */
function BarLabel({ row }: { row: WaterfallRow }) {
  const end = row.offsetPct + row.widthPct;
  const text = formatDuration(row.span.duration_ms);
  if (end <= 78) {
    return (
      <span className="waterfall-duration" style={{ left: `${end}%`, marginLeft: 6 }}>
        {text}
      </span>
    );
  }
  if (row.offsetPct >= 15) {
    return (
      <span className="waterfall-duration" style={{ right: `${100 - row.offsetPct}%`, marginRight: 6 }}>
        {text}
      </span>
    );
  }
  return (
    <span className="waterfall-duration waterfall-duration-inside" style={{ right: `${100 - end}%`, marginRight: 6 }}>
      {text}
    </span>
  );
}

/**
 * A trace's spans as a tree grid: one row per span, children indented under their parent (aria-level is the depth,
 * 1 for a root), and a bar drawn to scale against the trace's start and duration. Errors are red and say "error".
 * A span's name selects it; the arrow before it folds its children. From the keyboard, as a tree: Up and Down move
 * between spans, Left folds a span (or moves to its parent), Right unfolds it (or moves to its first child), Home and
 * End go to the first and last span.
 */
/** Characters of a span's service that stay in view beside a long name (the rest is cut with an ellipsis). */
const serviceChars = (service: string) => Math.min(service.length, 12);

/** The width, in rem, of a row's badges ("error" 3.5, "has errors" 5.4, "parent missing" 7, margins included). */
function badgesRem(error: boolean, childErrors: boolean, parentMissing: boolean): number {
  return (error ? 3.5 : 0) + (childErrors ? 5.4 : 0) + (parentMissing ? 7 : 0);
}

/**
 * How wide a span's name may be: what its row leaves after its badges and the start of its service, so a long name
 * is cut rather than the service or a badge. The name keeps its whole width up to that, and the service and
 * operation take what is left (shrinking both in proportion would cut a name a pixel short of fitting).
 */
function nameRoom(service: string | null | undefined, badges: number): string {
  const chars = service ? serviceChars(service) : 0;
  return `calc(100% - ${badges + (chars ? 0.6 : 0)}rem - ${chars}ch)`;
}

export function Waterfall({
  waterfall,
  selected,
  onSelect,
  collapsed,
  onToggle,
  spansWithErrors,
}: {
  waterfall: WaterfallData;
  selected: string | null;
  onSelect: (spanId: string) => void;
  collapsed: ReadonlySet<string>;
  onToggle: (spanId: string) => void;
  /** Spans that have error events (`from:errors`) attached. */
  spansWithErrors: ReadonlySet<string>;
}) {
  const [shown, setShown] = useState(PAGE_ROWS);
  const unfolded = useMemo(() => visibleRows(waterfall.rows, collapsed), [waterfall, collapsed]);
  const rows = useMemo(() => unfolded.slice(0, shown), [unfolded, shown]);
  const table = useRef<HTMLTableElement>(null);
  // The tree is one stop of Tab (a roving tab index): the span last focused, else the selected one, else the first.
  const [focused, setFocused] = useState<string>();
  const tabStop = [focused, selected].find((id) => id !== undefined && rows.some((row) => row.span.span_id === id)) ?? rows[0]?.span.span_id;
  const focusSpan = (spanId: string | undefined) => {
    if (spanId) table.current?.querySelector<HTMLButtonElement>(`tr[data-span-id="${CSS.escape(spanId)}"] .waterfall-span`)?.focus();
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTableElement>) => {
    const spanId = (event.target as HTMLElement).closest('tr[data-span-id]')?.getAttribute('data-span-id');
    const index = rows.findIndex((row) => row.span.span_id === spanId);
    const row = rows[index];
    if (!row) return;
    const open = row.childCount > 0 && !collapsed.has(row.span.span_id);
    switch (event.key) {
      case 'ArrowDown':
        focusSpan(rows[index + 1]?.span.span_id);
        break;
      case 'ArrowUp':
        focusSpan(rows[index - 1]?.span.span_id);
        break;
      case 'Home':
        focusSpan(rows[0]?.span.span_id);
        break;
      case 'End':
        focusSpan(rows[rows.length - 1]?.span.span_id);
        break;
      case 'ArrowRight':
        if (row.childCount > 0 && !open) onToggle(row.span.span_id);
        else if (open) focusSpan(rows[index + 1]?.span.span_id);
        break;
      case 'ArrowLeft':
        if (open) onToggle(row.span.span_id);
        else focusSpan(row.ancestors[row.ancestors.length - 1]);
        break;
      default:
        return;
    }
    event.preventDefault();
  };
  return (
    <div className="waterfall-scroll">
      <table ref={table} role="treegrid" className="waterfall" aria-label="Spans of the trace" onKeyDown={onKeyDown}>
        <colgroup>
          <col className="waterfall-name-col" />
          <col />
        </colgroup>
        <thead>
          <tr>
            <th scope="col">Span</th>
            <th scope="col" className="waterfall-axis">
              <span className="visually-hidden">Timeline, {formatDuration(waterfall.durationMs)} in all</span>
              <div className="waterfall-ticks" aria-hidden="true">
                {TICKS.map((tick) => (
                  <span key={tick} style={tick === 100 ? { right: 0 } : { left: `${tick}%` }}>
                    {formatDuration((waterfall.durationMs * tick) / 100)}
                  </span>
                ))}
              </div>
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => {
            const { span } = row;
            const isError = span.status === 'error';
            const open = !collapsed.has(span.span_id);
            const isSelected = selected === span.span_id;
            return (
              <tr
                key={span.span_id}
                role="row"
                data-span-id={span.span_id}
                aria-level={row.depth + 1}
                aria-expanded={row.childCount > 0 ? open : undefined}
                aria-selected={isSelected}
                data-depth={row.depth}
                data-status={span.status}
                className={`waterfall-row${isError ? ' waterfall-row-error' : ''}${isSelected ? ' waterfall-row-selected' : ''}`}
                onClick={() => onSelect(span.span_id)}
              >
                <td role="gridcell" className="waterfall-name" style={{ paddingLeft: 8 + row.depth * INDENT_PX }}>
                  {/* A row of its own, so a long name is cut with an ellipsis inside its button instead of hiding it. */}
                  <div className="waterfall-name-row">
                    {row.childCount > 0 ? (
                      <button
                        type="button"
                        tabIndex={-1}
                        className="waterfall-toggle"
                        aria-label={`${open ? 'Fold' : 'Unfold'} the ${row.childCount} ${row.childCount === 1 ? 'child' : 'children'} of ${span.name}`}
                        onClick={(event) => {
                          event.stopPropagation();
                          onToggle(span.span_id);
                        }}
                      >
                        {open ? '▾' : '▸'}
                      </button>
                    ) : (
                      <span className="waterfall-toggle" aria-hidden="true" />
                    )}
                    <button
                      type="button"
                      className="waterfall-span"
                      tabIndex={span.span_id === tabStop ? 0 : -1}
                      onFocus={() => setFocused(span.span_id)}
                      style={{ maxWidth: nameRoom(span.service, badgesRem(isError, spansWithErrors.has(span.span_id) && !isError, row.parentMissing)) }}
                      aria-pressed={isSelected}
                      title={`${span.name} (${span.service ?? 'no service'})`}
                      onClick={(event) => {
                        event.stopPropagation();
                        onSelect(span.span_id);
                      }}
                    >
                      {span.name}
                    </button>
                    <span className="waterfall-meta" style={span.service ? { minWidth: `${serviceChars(span.service)}ch` } : undefined}>
                      {span.service ? <span className="waterfall-service">{span.service}</span> : null}
                      {span.op ? <span className="muted"> · {span.op}</span> : null}
                    </span>
                    {isError ? <span className="badge badge-danger">error</span> : null}
                    {spansWithErrors.has(span.span_id) && !isError ? <span className="badge badge-danger">has errors</span> : null}
                    {row.parentMissing ? (
                      <span className="badge badge-warn" title={`parent ${span.parent_span_id} is not among this trace's spans`}>
                        parent missing
                      </span>
                    ) : null}
                  </div>
                </td>
                <td role="gridcell" className="waterfall-timeline">
                  <div className="waterfall-track">
                    <div
                      className="waterfall-bar"
                      style={{ left: `${row.offsetPct}%`, width: `max(${row.widthPct}%, 2px)` }}
                      title={`starts ${formatDuration(row.startMs)} into the trace, lasts ${formatDuration(span.duration_ms)}`}
                    />
                    <BarLabel row={row} />
                  </div>
                </td>
              </tr>
            );
          })}
        </tbody>
        {unfolded.length > rows.length ? (
          <tfoot>
            <tr>
              <td colSpan={2} className="waterfall-more">
                <span className="muted">
                  Showing {rows.length.toLocaleString()} of {unfolded.length.toLocaleString()} spans.
                </span>{' '}
                <button type="button" className="button button-small" onClick={() => setShown((count) => count + PAGE_ROWS)}>
                  Show {Math.min(PAGE_ROWS, unfolded.length - rows.length).toLocaleString()} more
                </button>
              </td>
            </tr>
          </tfoot>
        ) : null}
      </table>
    </div>
  );
}
