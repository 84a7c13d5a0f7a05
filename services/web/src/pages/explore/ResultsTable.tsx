import { flexRender, getCoreRowModel, useReactTable, type ColumnDef, type Row } from '@tanstack/react-table';
import { useVirtualizer } from '@tanstack/react-virtual';
import { Fragment, useMemo, useRef } from 'react';
import { Link } from 'react-router';
import { CopyButton } from '../../components/CopyButton';
import { useMediaQuery } from '../../components/useMediaQuery';
import { tracesBase } from '../traces/hooks';
import { cellText, localTime, resultColumns, rowName, rowSections } from './columns';

type ResultRow = Record<string, unknown>;

const SEVERITY_BADGES: Record<string, string> = { error: 'badge-danger', fatal: 'badge-danger', warn: 'badge-warn', warning: 'badge-warn' };
/** A row's height in pixels, as the stylesheet sets it (`.explore-row > td`). */
const ROW_HEIGHT = 32;

/** A stored value as the tables show it: severities as badges, times in the browser's zone (UTC on hover), the rest as text. */
export function Cell({ column, value }: { column: string; value: unknown }) {
  if ((column === 'severity' || column === 'level') && typeof value === 'string') {
    return <span className={`badge ${SEVERITY_BADGES[value] ?? ''}`}>{value}</span>;
  }
  const local = localTime(value);
  if (local) {
    return (
      <time dateTime={value as string} title={`${value as string} (UTC)`}>
        {local}
      </time>
    );
  }
  const text = cellText(value);
  return <span className={value === null || value === undefined ? 'muted' : undefined}>{text}</span>;
}

/**
 * Search results as a virtualised table: only the rows in view are in the page, so 10,000 rows scroll smoothly.
 * A row opens (click, or its button with Enter) to show every field and each property bag.
 */
export function ResultsTable({ rows, org, project, label, source }: { rows: ResultRow[]; org: string; project: string; label: string; source?: string }) {
  // On a phone the wide text column (a log's message) comes first, where it is seen; the rest scroll in after it.
  const narrow = useMediaQuery('(max-width: 760px)');
  const columnsOfRows = useMemo(() => {
    const all = resultColumns(rows);
    return narrow ? [...all.filter((column) => column.width === 'wide'), ...all.filter((column) => column.width !== 'wide')] : all;
  }, [rows, narrow]);
  const columns = useMemo<ColumnDef<ResultRow>[]>(
    () => [
      {
        id: '_expand',
        header: () => <span className="visually-hidden">Details</span>,
        size: 36,
        cell: ({ row }) => (
          <button
            type="button"
            className="explore-expand"
            aria-expanded={row.getIsExpanded()}
            aria-label={`Row details: ${rowName(row.original)}`}
            onClick={(event) => {
              event.stopPropagation();
              row.toggleExpanded();
            }}
          >
            {row.getIsExpanded() ? '▾' : '▸'}
          </button>
        ),
      },
      ...columnsOfRows.map(
        (column): ColumnDef<ResultRow> => ({
          id: column.key,
          header: column.key,
          accessorFn: (row) => row[column.key],
          size: column.width === 'wide' ? 0 : column.width,
          cell: (context) => <Cell column={column.key} value={context.getValue()} />,
        }),
      ),
    ],
    [columnsOfRows],
  );
  const table = useReactTable({
    data: rows,
    columns,
    getCoreRowModel: getCoreRowModel(),
    getRowCanExpand: () => true,
    getRowId: (row, index) => (typeof row['id'] === 'string' ? `${row['id']}` : String(index)),
  });
  const scroller = useRef<HTMLDivElement>(null);
  const tableRows = table.getRowModel().rows;
  const virtualizer = useVirtualizer({
    count: tableRows.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 10,
    getItemKey: (index) => tableRows[index]?.id ?? index,
    // Whole pixels: a fractional height that differs from the estimate would re-lay every row below it.
    measureElement: (element) => Math.round(element.getBoundingClientRect().height),
  });
  const items = virtualizer.getVirtualItems();
  const before = items[0]?.start ?? 0;
  const after = virtualizer.getTotalSize() - (items[items.length - 1]?.end ?? 0);
  const fixedWidth = columns.reduce((sum, column) => sum + (column.size || 0), 0);
  const span = columns.length;

  return (
    <div ref={scroller} className="explore-table-scroll" tabIndex={-1}>
      <table className="grid explore-table" aria-label={label} aria-rowcount={rows.length + 1} style={{ minWidth: fixedWidth + 280 }}>
        <colgroup>
          {columns.map((column) => (
            <col key={column.id} style={column.size ? { width: column.size } : undefined} />
          ))}
        </colgroup>
        <thead>
          {table.getHeaderGroups().map((group) => (
            <tr key={group.id}>
              {group.headers.map((header) => (
                <th key={header.id} scope="col">
                  {flexRender(header.column.columnDef.header, header.getContext())}
                </th>
              ))}
            </tr>
          ))}
        </thead>
        {before > 0 ? (
          <tbody aria-hidden="true">
            <tr style={{ height: before }} />
          </tbody>
        ) : null}
        {items.map((item) => {
          const row = tableRows[item.index]!;
          return (
            <tbody key={item.key} ref={virtualizer.measureElement} data-index={item.index} className="explore-row-group">
              <tr
                className={row.getIsExpanded() ? 'explore-row explore-row-open' : 'explore-row'}
                aria-rowindex={item.index + 2}
                onClick={() => row.toggleExpanded()}
              >
                {row.getVisibleCells().map((cell) => (
                  <td key={cell.id}>{flexRender(cell.column.columnDef.cell, cell.getContext())}</td>
                ))}
              </tr>
              {row.getIsExpanded() ? (
                <tr className="explore-detail-row">
                  <td colSpan={span}>
                    <RowDetail row={row} org={org} project={project} source={source} />
                  </td>
                </tr>
              ) : null}
            </tbody>
          );
        })}
        {after > 0 ? (
          <tbody aria-hidden="true">
            <tr style={{ height: after }} />
          </tbody>
        ) : null}
      </table>
    </div>
  );
}

function Value({ value }: { value: unknown }) {
  if (value === null || value === undefined) return <span className="muted">null</span>;
  const local = localTime(value);
  if (local) {
    // The browser's time as in the table, and the stored UTC time beside it, to copy or compare with other tools.
    return (
      <span className="mono">
        <time dateTime={value as string}>{local}</time> <span className="muted">({value as string})</span>
      </span>
    );
  }
  if (typeof value === 'object') return <pre className="explore-json">{JSON.stringify(value, null, 2)}</pre>;
  return <span className="mono">{String(value)}</span>;
}

/** Every field of a row and each of its property bags as key/value lists, with a link to the row's trace. */
function RowDetail({ row, org, project, source }: { row: Row<ResultRow>; org: string; project: string; source?: string }) {
  const { fields, bags } = rowSections(row.original);
  const text = (field: string) => (typeof row.original[field] === 'string' && row.original[field] ? (row.original[field] as string) : undefined);
  const traceId = text('trace_id');
  // An error row names its issue; an issue row is one.
  const issueId = source === 'issues' ? text('id') : text('issue_id');
  const projectPage = tracesBase(org, project);
  return (
    <div className="explore-detail" onClick={(event) => event.stopPropagation()}>
      <div className="row">
        {issueId ? <Link to={`${projectPage}/issues/${encodeURIComponent(issueId)}`}>View issue</Link> : null}
        {traceId ? <Link to={`${projectPage}/traces/${encodeURIComponent(traceId)}`}>View trace</Link> : null}
        <CopyButton text={JSON.stringify(row.original, null, 2)} label="Copy as JSON" />
      </div>
      <section aria-label="Fields">
        <h2 className="explore-detail-heading">Fields</h2>
        <KeyValues entries={fields} />
      </section>
      {bags.map(([bag, entries]) => (
        <section key={bag} aria-label={bag}>
          <h2 className="explore-detail-heading">{bag}</h2>
          {Object.keys(entries).length === 0 ? (
            <p className="muted">empty</p>
          ) : (
            <KeyValues entries={Object.entries(entries)} />
          )}
        </section>
      ))}
    </div>
  );
}

/** A row's fields, or one property bag, as a list of names and values. */
function KeyValues({ entries }: { entries: [string, unknown][] }) {
  return (
    <dl className="explore-kv">
      {entries.map(([key, value]) => (
        <Fragment key={key}>
          <dt>{key}</dt>
          <dd>
            <Value value={value} />
          </dd>
        </Fragment>
      ))}
    </dl>
  );
}
