import { useId, useState, type ReactNode } from 'react';
import type { UseMutationResult, UseQueryResult } from '@tanstack/react-query';
import type { QuotaDetails } from '../api/types';
import { QuotaDialog, quotaDetails } from './QuotaDialog';
import { RelativeTime } from './RelativeTime';
import { ErrorNotice, Loading } from './States';

/** Something deleted that can be restored for a while: a project, an API key. */
export interface Restorable {
  id: string;
  name: string;
  deleted_at?: string;
  restore_until?: string;
}

/** A column shown between an item's name and when it was deleted. */
export interface RecentlyDeletedColumn<T> {
  header: string;
  cell: (item: T) => ReactNode;
  className?: string;
}

/**
 * The "Recently deleted" panel: the deleted items with when they were deleted and until when they can be restored, a
 * Restore button each, and, when a restore would go past the plan's limit (402 QUOTA_EXCEEDED), the quota dialog with
 * "Restore anyway", which restores with `force`.
 */
export function RecentlyDeleted<T extends Restorable, V>({
  what,
  intro,
  list,
  empty,
  columns = [],
  restore,
  variables,
  quotaWhat,
  quotaTitle,
}: {
  /** The deleted things, for the loading state: "keys", "projects". */
  what: string;
  intro?: ReactNode;
  list: UseQueryResult<T[]>;
  empty: string;
  columns?: RecentlyDeletedColumn<T>[];
  restore: UseMutationResult<unknown, Error, V>;
  /** The restore mutation's variables for an item, `force` to go past the plan's limit. */
  variables: (item: T, force: boolean) => V;
  /** What the plan limits, for the quota dialog: "API keys", "projects". */
  quotaWhat: string;
  /** The quota dialog's title, for the item whose restore was refused. */
  quotaTitle: (item: T | undefined) => string;
}) {
  const headingId = useId();
  const [blocked, setBlocked] = useState<{ item: T; quota: QuotaDetails }>();
  const run = (item: T, force = false) =>
    restore.mutate(variables(item, force), {
      onSuccess: () => setBlocked(undefined),
      onError: (error) => {
        const quota = quotaDetails(error);
        if (quota) setBlocked({ item, quota });
      },
    });
  return (
    <section className="panel" aria-labelledby={headingId}>
      <h2 id={headingId} className="panel-title">
        Recently deleted
      </h2>
      {intro}
      {list.isPending ? (
        <Loading what={`recently deleted ${what}`} />
      ) : list.isError ? (
        <ErrorNotice error={list.error} next="Reload the page to try again." />
      ) : list.data.length === 0 ? (
        <p className="muted">{empty}</p>
      ) : (
        <table className="grid">
          <thead>
            <tr>
              <th scope="col">Name</th>
              {columns.map((column) => (
                <th key={column.header} scope="col">
                  {column.header}
                </th>
              ))}
              <th scope="col">Deleted</th>
              <th scope="col">Restorable until</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {list.data.map((item) => (
              <tr key={item.id} data-deleted-id={item.id}>
                <td>{item.name}</td>
                {columns.map((column) => (
                  <td key={column.header} className={column.className}>
                    {column.cell(item)}
                  </td>
                ))}
                <td>
                  <RelativeTime iso={item.deleted_at} fallback="—" />
                </td>
                <td>
                  {item.restore_until ? (
                    <>
                      {new Date(item.restore_until).toLocaleDateString()} (<RelativeTime iso={item.restore_until} />)
                    </>
                  ) : (
                    '—'
                  )}
                </td>
                <td>
                  <button type="button" className="button button-small" disabled={restore.isPending} onClick={() => run(item)}>
                    Restore
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {restore.isError && !quotaDetails(restore.error) ? <ErrorNotice error={restore.error} next="Reload the page and try again." /> : null}
      <QuotaDialog
        details={blocked?.quota}
        what={quotaWhat}
        title={quotaTitle(blocked?.item)}
        onClose={() => setBlocked(undefined)}
        onForce={blocked ? () => run(blocked.item, true) : undefined}
        forcing={restore.isPending}
      />
    </section>
  );
}
