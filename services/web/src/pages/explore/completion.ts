/**
 * Autocomplete answers (docs/gql.md "Autocomplete") as CodeMirror completions. The server's `text` replaces the
 * word at the cursor as its lexer sees it (a word, number, duration, time or quoted string ending at the cursor),
 * so the completion starts where that word starts, found with the same lexing rules.
 */
import type { Completion, CompletionResult } from '@codemirror/autocomplete';
import type { Suggestion } from '../../api/types';
import { lexGql, type GqlToken } from './queryText';

const PARTIAL_TYPES = new Set<GqlToken['type']>(['word', 'number', 'duration', 'datetime', 'string', 'unterminated']);

/** Where the word being typed at `cursor` starts (the cursor itself when none is being typed). */
export function wordStart(text: string, cursor: number): number {
  const tokens = lexGql(text.slice(0, cursor));
  const last = tokens[tokens.length - 1];
  return last && last.to === cursor && PARTIAL_TYPES.has(last.type) ? last.from : cursor;
}

/** CodeMirror's icon for each kind of suggestion. */
const COMPLETION_TYPES: Record<Suggestion['kind'], string> = {
  source: 'namespace',
  field: 'property',
  operator: 'keyword',
  value: 'constant',
  function: 'function',
};

/**
 * The completions for an autocomplete answer, in the server's order (most frequent fields first): the server has
 * already matched them against the typed word, so CodeMirror neither filters nor reorders them.
 */
export function toCompletionResult(text: string, cursor: number, suggestions: Suggestion[]): CompletionResult | null {
  if (suggestions.length === 0) return null;
  const options: Completion[] = suggestions.map((suggestion, index) => ({
    label: suggestion.text,
    detail: suggestion.kind,
    info: suggestion.description,
    type: COMPLETION_TYPES[suggestion.kind] ?? 'text',
    boost: 99 - Math.min(index, 198),
  }));
  return { from: wordStart(text, cursor), to: cursor, options, filter: false };
}
