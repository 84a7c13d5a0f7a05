import type { KeyboardEvent } from 'react';

/**
 * Which tab of a tab list a key moves to (WAI-ARIA's tabs pattern): ← and → to the one before and after, wrapping
 * round, Home and End to the first and last; undefined for any other key. The list is one stop of Tab, on the
 * selected tab; the arrows choose.
 */
function tabKeyTarget(key: string, index: number, count: number): number | undefined {
  if (key === 'ArrowRight') return (index + 1) % count;
  if (key === 'ArrowLeft') return (index - 1 + count) % count;
  if (key === 'Home') return 0;
  if (key === 'End') return count - 1;
  return undefined;
}

/**
 * A tab's key handler: a key that moves (tabKeyTarget) chooses the tab it moves to, by `choose`, which answers that
 * tab's element id, and the focus follows it there.
 */
export function onTabKey(event: KeyboardEvent, index: number, count: number, choose: (to: number) => string): void {
  const to = tabKeyTarget(event.key, index, count);
  if (to === undefined) return;
  event.preventDefault();
  document.getElementById(choose(to))?.focus();
}
