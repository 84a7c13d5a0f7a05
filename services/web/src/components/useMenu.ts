import { useEffect, useRef } from 'react';

/**
 * A `<details>` used as a menu closes as menus do: on a click or focus outside it, and on Escape, which gives the
 * focus back to its summary. Pass the result as the `<details>`'s `ref`.
 */
export function useMenu() {
  const ref = useRef<HTMLDetailsElement>(null);
  useEffect(() => {
    // Listening all along rather than from its toggle event, which comes a task after it opens: an Escape pressed
    // at once still closes it.
    const close = (event: Event) => {
      const menu = ref.current;
      if (!menu?.open) return;
      if (event instanceof KeyboardEvent) {
        if (event.key !== 'Escape') return;
        menu.removeAttribute('open');
        menu.querySelector('summary')?.focus();
      } else if (!menu.contains(event.target as Node)) {
        menu.removeAttribute('open');
      }
    };
    const events = ['pointerdown', 'focusin', 'keydown'] as const;
    for (const name of events) document.addEventListener(name, close);
    return () => {
      for (const name of events) document.removeEventListener(name, close);
    };
  }, []);
  return ref;
}
