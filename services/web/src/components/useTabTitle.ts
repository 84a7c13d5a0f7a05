import { useEffect, useLayoutEffect } from 'react';

const tabTitle = (title: string) => `${title} · tlm`;

/** Names the browser tab (and the history entry) after what a detail page shows, once it is loaded. */
export function useTabTitle(title: string | undefined) {
  useEffect(() => {
    if (title) document.title = tabTitle(title);
  }, [title]);
}

/**
 * Names the tab after the route (`Issues · tlm`). A layout effect runs before every page's own effects, so a page
 * that mounts in the same render with its data already at hand still has the last word.
 */
export function useRouteTitle(title: string) {
  useLayoutEffect(() => {
    document.title = tabTitle(title);
  }, [title]);
}
