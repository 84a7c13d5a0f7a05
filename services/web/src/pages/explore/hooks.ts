import { useMutation, useQuery } from '@tanstack/react-query';
import { useCallback, useEffect, useState } from 'react';
import { api } from '../../api/client';
import { gqlKey } from '../../api/gql';
import { keys, projectPath } from '../../api/hooks';
import type { AutocompleteAnswer, GqlAnswer, NlAnswer, SchemaDocument } from '../../api/types';
import { browserTimeZone } from '../../components/timeZone';
import { historyKey, parseHistory, pushHistory } from './history';

export { useGqlAnswer, type TimedAnswer } from '../../api/gql';

/** Whether a source holds any rows at all, asked only when a query matched nothing (to tell "no data yet" apart). */
export function useSourceHasRows(org: string, project: string, source: string, enabled: boolean) {
  const query = `from:${source} | count`;
  return useQuery({
    queryKey: gqlKey(org, project, query),
    queryFn: ({ signal }) =>
      api.get<GqlAnswer>(`${projectPath(org, project)}/gql`, { query: { q: query }, signal }).then((answer) => Number(answer.data.results[0]?.['value'] ?? 0) > 0),
    enabled,
  });
}

/** The project's discovered schema: event names and property keys with types, volumes and examples. */
export function useSchema(org: string, project: string) {
  return useQuery({
    queryKey: keys.schema(org, project),
    queryFn: ({ signal }) => api.get<SchemaDocument>(`${projectPath(org, project)}/schema`, { signal }),
    staleTime: 30_000,
  });
}


/**
 * A question in plain words turned into GQL (uses one AI query of the plan's quota): a query for the explorer, or in
 * `alert` mode one aggregate value without a time range, as an alert rule's metric must be. "Today" is the user's day.
 */
export function useNaturalLanguageQuery(org: string, project: string, mode: 'explorer' | 'alert' = 'explorer') {
  return useMutation({
    mutationFn: (prompt: string) => api.post<NlAnswer>(`${projectPath(org, project)}/gql/nl`, { prompt, mode, time_zone: browserTimeZone() }),
  });
}

/** Suggestions for the word at the cursor; the editor's completion source calls this as people type. */
export function fetchSuggestions(org: string, project: string, text: string, cursor: number, signal: AbortSignal) {
  return api.get<AutocompleteAnswer>(`${projectPath(org, project)}/gql/autocomplete`, { query: { q: text, cursor }, signal });
}

/** The live tail's stream address: server-sent events of new rows for a `from:logs` search. */
export const tailUrl = (org: string, project: string, query: string) => `${projectPath(org, project)}/gql/tail?${new URLSearchParams({ q: query })}`;

/** The project's recent queries, newest first, kept in this browser. */
export function useQueryHistory(project: string) {
  const [history, setHistory] = useState<string[]>(() => parseHistory(readStorage(historyKey(project))));
  useEffect(() => setHistory(parseHistory(readStorage(historyKey(project)))), [project]);
  const remember = useCallback(
    (query: string) =>
      setHistory((current) => {
        const next = pushHistory(current, query);
        writeStorage(historyKey(project), JSON.stringify(next));
        return next;
      }),
    [project],
  );
  return { history, remember };
}

function readStorage(key: string): string | null {
  try {
    return window.localStorage.getItem(key);
  } catch {
    return null;
  }
}

function writeStorage(key: string, value: string): void {
  try {
    window.localStorage.setItem(key, value);
  } catch {
    // Storage can be full or switched off; the history is a convenience and the query stays in the URL.
  }
}
