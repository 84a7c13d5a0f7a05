import { useEffect, useState } from 'react';

/**
 * Where focus goes once the page has drawn a change: the first of a list of selectors that finds an enabled control.
 * A control that is removed (a resolved issue's row, a removed panel) or redrawn elsewhere (a moved panel) takes the
 * focus with it; this puts it back where a keyboard user can carry on. The request waits while `ready` is false (a
 * save still running) and is tried again each time `drawn` changes.
 */
export function useFocusRequest(ready: boolean, drawn: unknown) {
  const [wanted, setWanted] = useState<string[] | null>(null);
  useEffect(() => {
    if (!wanted || !ready) return;
    for (const selector of wanted) {
      const target = document.querySelector<HTMLElement>(`${selector}:not(:disabled)`);
      if (target) {
        target.focus();
        break;
      }
    }
    setWanted(null);
  }, [wanted, ready, drawn]);
  return setWanted;
}
