/** Recent queries of a project, newest first (kept in localStorage by the page; this module is the list logic). */

export const HISTORY_MAX = 20;

/** The list after running `query`: it moves to the top, appears once, and the list keeps at most `max` entries. */
export function pushHistory(history: readonly string[], query: string, max = HISTORY_MAX): string[] {
  const trimmed = query.trim();
  if (!trimmed) return history.slice(0, max);
  return [trimmed, ...history.filter((entry) => entry !== trimmed)].slice(0, max);
}

/** A stored history, or an empty one when what is stored is not a list of strings. */
export function parseHistory(stored: string | null): string[] {
  if (!stored) return [];
  try {
    const parsed: unknown = JSON.parse(stored);
    return Array.isArray(parsed) ? parsed.filter((entry): entry is string => typeof entry === 'string').slice(0, HISTORY_MAX) : [];
  } catch {
    return [];
  }
}

export const historyKey = (project: string) => `tlm.explore.history.${project}`;
