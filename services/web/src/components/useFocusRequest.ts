import { useEffect, useState } from 'react';

/** How long a request for focus waits for its control to be drawn (a row an Undo brings back) before it lapses. */
const WAIT_MS = 5_000;

/**
 * Where focus goes once the page has drawn a change: the first of a list of selectors that finds an enabled control.
 * A control that is removed (a resolved issue's row, a removed panel), disabled (a button whose action is done) or
 * redrawn elsewhere (a moved panel) takes the focus with it; this puts it back where a keyboard user can carry on.
 * The request waits while `ready` is false (a save still running) and is tried again each time `drawn` changes,
 * until a control is found or it lapses.
 */
export function useFocusRequest(ready: boolean, drawn: unknown) {
  const [wanted, setWanted] = useState<{ selectors: string[]; until: number } | null>(null);
  useEffect(() => {
    if (!wanted || !ready) return;
    if (Date.now() > wanted.until) {
      setWanted(null);
      return;
    }
    for (const selector of wanted.selectors) {
      const target = document.querySelector<HTMLElement>(`${selector}:not(:disabled)`);
      if (target) {
        target.focus();
        setWanted(null);
        return;
      }
    }
  }, [wanted, ready, drawn]);
  return (selectors: string[]) => setWanted({ selectors, until: Date.now() + WAIT_MS });
}
