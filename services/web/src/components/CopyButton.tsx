import { useState } from 'react';

/** Copies `text` to the clipboard and says so for two seconds. */
export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      // Clipboard access needs a secure context; select-and-copy by hand still works from the visible text.
      return;
    }
    setCopied(true);
    window.setTimeout(() => setCopied(false), 2_000);
  };
  return (
    <button type="button" className="button button-small" onClick={copy} aria-label={`${label}${copied ? ' (copied)' : ''}`}>
      {copied ? 'Copied' : label}
    </button>
  );
}
