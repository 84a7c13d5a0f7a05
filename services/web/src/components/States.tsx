import type { ReactNode } from 'react';
import { ApiError } from '../api/client';

/** A loading state that says what is loading. */
export function Loading({ what }: { what: string }) {
  return (
    <p className="state state-loading" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" /> Loading {what}…
    </p>
  );
}

/** An API error with its message and code, and what to do next when one is given. */
export function ErrorNotice({ error, next }: { error: unknown; next?: ReactNode }) {
  const message = error instanceof Error ? error.message : String(error);
  const code = error instanceof ApiError ? error.code : undefined;
  return (
    <div className="state state-error" role="alert">
      <strong>{code ? `${code}: ` : ''}</strong>
      {message}
      {next ? <div className="state-next">{next}</div> : null}
    </div>
  );
}

/** An empty state: what is missing and what to do about it. */
export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="state state-empty">
      <h3>{title}</h3>
      {children}
    </div>
  );
}
