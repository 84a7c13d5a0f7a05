import { useEffect, useId, useRef, type ReactNode } from 'react';
import { ErrorNotice } from './States';

/** A modal built on the native <dialog>: focus is trapped, Escape closes it, it is announced as a dialog. */
export function Dialog({ open, title, onClose, children }: { open: boolean; title: string; onClose: () => void; children: ReactNode }) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      dialog.showModal();
      // The browser focuses the first control; a dialog may name another (a question's Cancel, not its action).
      dialog.querySelector<HTMLElement>('[data-autofocus]')?.focus();
    }
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog ref={ref} className="dialog" aria-labelledby={titleId} onClose={onClose}>
      <h2 id={titleId}>{title}</h2>
      {open ? children : null}
    </dialog>
  );
}

/**
 * A question before a change that cannot be taken back at once (revoke, delete, remove, rotate): what it does in `children`,
 * the server's refusal when there is one, the action's button and Cancel.
 */
export function ConfirmDialog({
  open,
  title,
  confirm,
  busy = false,
  danger = true,
  error,
  onConfirm,
  onClose,
  children,
}: {
  open: boolean;
  title: string;
  confirm: string;
  busy?: boolean;
  /** Whether the action destroys or stops something (its button red); a rotation, say, does not. */
  danger?: boolean;
  error?: unknown;
  onConfirm: () => void;
  onClose: () => void;
  children: ReactNode;
}) {
  return (
    <Dialog open={open} title={title} onClose={onClose}>
      {children}
      {error ? <ErrorNotice error={error} /> : null}
      <div className="row dialog-actions">
        <button type="button" className={`button ${danger ? 'button-danger' : 'button-primary'}`} disabled={busy} onClick={onConfirm}>
          {confirm}
        </button>
        {/* Focused first: Enter pressed twice in a row never destroys anything. */}
        <button type="button" className="button" onClick={onClose} data-autofocus>
          Cancel
        </button>
      </div>
    </Dialog>
  );
}
