import type { ReactNode } from 'react';
import { useLocation } from 'react-router';
import { ApiError } from '../api/client';

/** A loading state that says what is loading. */
export function Loading({ what }: { what: string }) {
  return (
    <p className="state state-loading" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" /> Loading {what}…
    </p>
  );
}

/**
 * An API error in the words of its message, and what to do next when one is given. The API's code is for programs:
 * it is kept in `data-code`, and shown only for a fault of the server or the network, where it helps whoever is asked.
 */
export function ErrorNotice({ error, next }: { error: unknown; next?: ReactNode }) {
  const message = sentence(error instanceof Error ? error.message : String(error));
  const code = error instanceof ApiError ? error.code : undefined;
  const fault = error instanceof ApiError && (error.status >= 500 || error.code === 'NETWORK_ERROR' || error.code === 'INTERNAL_ERROR');
  return (
    <div className="state state-error" role="alert" data-code={code}>
      {message}
      {fault && code ? <span className="state-code"> ({code})</span> : null}
      {next ? <div className="state-next">{next}</div> : null}
    </div>
  );
}

/**
 * The API writes messages in lower case to be quoted; standing alone, one starts with a capital and ends with a stop.
 * A first word that names something (`duration_ms`, `q`, `gql:`) keeps its case.
 */
export function sentence(message: string): string {
  const trimmed = message.trim();
  if (!trimmed) return 'Something went wrong.';
  const capital = /^[a-z]{2,}(?=[\s,;])/.test(trimmed) ? trimmed[0]!.toUpperCase() + trimmed.slice(1) : trimmed;
  return /[.!?)"'`\]]$/.test(capital) ? capital : `${capital}.`;
}

/**
 * What a detail page shows when its one thing cannot be read: its own "no such …" state when the API answers 404
 * (a link followed after the thing was deleted, or mistyped), the error otherwise.
 */
export function MissingOrError({ error, title, children, next }: { error: unknown; title: string; children: ReactNode; next?: ReactNode }) {
  if (error instanceof ApiError && error.status === 404) return <EmptyState title={title}>{children}</EmptyState>;
  return <ErrorNotice error={error} next={next} />;
}

/**
 * An empty state: what is missing and what to do about it. Its title is a heading of `level` (2, below the page's
 * own, by default; 1 where it is all the page says, as on a page that does not exist).
 */
export function EmptyState({ title, level = 2, children }: { title: string; level?: 1 | 2; children?: ReactNode }) {
  const Heading = level === 1 ? 'h1' : 'h2';
  return (
    <div className="state state-empty">
      <Heading className="state-title">{title}</Heading>
      {children}
    </div>
  );
}

/**
 * On a list a deletion led back to, what was deleted (`navigate(list, { state: { deleted: name } })`): the thing
 * is gone from the list, and this says that is why.
 */
export function DeletedNotice() {
  const deleted = (useLocation().state as { deleted?: unknown } | null)?.deleted;
  if (typeof deleted !== 'string') return null;
  return (
    <p className="state state-ok" role="status">
      Deleted "{deleted}".
    </p>
  );
}
