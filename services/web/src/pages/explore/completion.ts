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
 * Whether a field completed at `from` starts a condition: in the query's first segment (the filters before any `|`)
 * or after a `where`, and with no operator after the cursor already. Elsewhere (`count by …`, `sum(…)`, `sort …`,
 * `fields …`) a field stands alone.
 */
function startsCondition(text: string, from: number, cursor: number): boolean {
  if (/^\s*(?:!=|>=|<=|[:=<>]|in\b)/.test(text.slice(cursor))) return false;
  const before = lexGql(text.slice(0, from));
  const pipe = before.map((token) => token.type === 'punct' && token.text === '|').lastIndexOf(true);
  return pipe === -1 || before.slice(pipe + 1).some((token) => token.type === 'word' && token.text.toLowerCase() === 'where');
}

/**
 * The completions for an autocomplete answer, in the server's order (most frequent fields first): the server has
 * already matched them against the typed word, so CodeMirror neither filters nor reorders them. A field that starts
 * a condition is inserted with its colon, so the value typed next is compared with it rather than run on as one word
 * (`severityerr`).
 */
export function toCompletionResult(text: string, cursor: number, suggestions: Suggestion[]): CompletionResult | null {
  if (suggestions.length === 0) return null;
  const from = wordStart(text, cursor);
  const condition = startsCondition(text, from, cursor);
  const options: Completion[] = suggestions.map((suggestion, index) => ({
    label: suggestion.text,
    ...(condition && suggestion.kind === 'field' ? { apply: `${suggestion.text}:` } : {}),
    detail: suggestion.kind,
    info: suggestion.description,
    type: COMPLETION_TYPES[suggestion.kind] ?? 'text',
    boost: 99 - Math.min(index, 198),
  }));
  return { from, to: cursor, options, filter: false };
}
