import { autocompletion, closeBrackets, closeBracketsKeymap, closeCompletion, completionKeymap, type CompletionContext } from '@codemirror/autocomplete';
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { setDiagnostics } from '@codemirror/lint';
import { EditorState, Prec } from '@codemirror/state';
import { EditorView, keymap, placeholder } from '@codemirror/view';
import { useEffect, useImperativeHandle, useRef, type Ref } from 'react';
import { ApiError } from '../../api/client';
import { toCompletionResult } from './completion';
import { gqlHighlighting, gqlLanguage } from './gqlLanguage';
import { fetchSuggestions } from './hooks';
import { errorSpan, filtersEnd, spacedInsertion } from './queryText';

export interface GqlEditorHandle {
  /**
   * Inserts text at the cursor (with the spaces that keep it a term of its own) and focuses the editor; until someone
   * places the cursor in this query, after its filters.
   */
  insert(text: string): void;
  focus(): void;
}

/** A parse or plan error of a query, placed where the API says it is. */
export interface QueryError {
  /** The text the error was answered for: its place means nothing in another text. */
  text: string;
  offset: number;
  message: string;
}

/**
 * A form's refusal of one of its queries, placed in that query's editor: the API names the field it refuses
 * (`metric: …`, `total: …`) and where its text stops (`details.offset`), in the text that was sent.
 */
export function fieldQueryError(error: unknown, field: string, text: string): QueryError | null {
  if (!(error instanceof ApiError) || error.code !== 'VALIDATION_ERROR' || !error.message.startsWith(`${field}: `)) return null;
  const offset = error.details?.['offset'];
  return typeof offset === 'number' ? { text, offset, message: error.message.slice(field.length + 2) } : null;
}

interface GqlEditorProps {
  org: string;
  project: string;
  value: string;
  onChange: (text: string) => void;
  onRun: (text: string) => void;
  error: QueryError | null;
  ref?: Ref<GqlEditorHandle>;
  /** The editor's accessible name, where a form holds more than one ("Good (GQL count)"); `GQL query` by default. */
  label?: string;
  /** The id of a hint that describes the query (aria-describedby). */
  describedBy?: string;
}

const theme = EditorView.theme({
  '&': { border: '1px solid var(--line)', borderRadius: 'var(--radius)', background: 'var(--panel)', fontSize: '0.95rem' },
  '&.cm-focused': { outline: '2px solid var(--accent)', outlineOffset: '1px' },
  '.cm-scroller': { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace', minHeight: '3.4em', maxHeight: '12em' },
  '.cm-content': { padding: '0.45rem 0' },
  '.cm-tooltip-autocomplete ul li[aria-selected]': { background: 'var(--accent)' },
  '.cm-completionDetail': { marginLeft: '0.75em', opacity: '0.75', fontStyle: 'normal' },
});

/** The GQL editor: highlighting, completions from the server as people type, errors underlined, Ctrl/Cmd+Enter runs. */
export function GqlEditor({ org, project, value, onChange, onRun, error, ref, label = 'GQL query', describedBy }: GqlEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  /** Whether the cursor stands where someone put it (a click, a cursor key, typing); unset when a new query replaces the text. */
  const placed = useRef(false);
  const latest = useRef({ org, project, onChange, onRun });
  latest.current = { org, project, onChange, onRun };

  useEffect(() => {
    const complete = async (context: CompletionContext) => {
      const text = context.state.doc.toString();
      const controller = new AbortController();
      context.addEventListener('abort', () => controller.abort(), { onDocChange: true });
      try {
        const answer = await fetchSuggestions(latest.current.org, latest.current.project, text, context.pos, controller.signal);
        return toCompletionResult(text, context.pos, answer.suggestions);
      } catch {
        // A failed suggestion request leaves typing as it is; a run shows the real error.
        return null;
      }
    };
    const editor = new EditorView({
      parent: host.current!,
      state: EditorState.create({
        doc: value,
        extensions: [
          Prec.highest(
            keymap.of([
              {
                key: 'Mod-Enter',
                run: (target) => {
                  // A completion list left open over the results hides them; running is the end of typing.
                  closeCompletion(target);
                  latest.current.onRun(target.state.doc.toString());
                  return true;
                },
              },
            ]),
          ),
          history(),
          closeBrackets(),
          autocompletion({ override: [complete], activateOnTypingDelay: 120, icons: true }),
          keymap.of([...closeBracketsKeymap, ...completionKeymap, ...defaultKeymap, ...historyKeymap]),
          gqlLanguage,
          gqlHighlighting,
          EditorView.lineWrapping,
          placeholder('from:logs severity:error last:1h | count by route'),
          EditorView.contentAttributes.of({ 'aria-label': label, ...(describedBy ? { 'aria-describedby': describedBy } : {}), spellcheck: 'false', autocapitalize: 'off' }),
          EditorView.updateListener.of((update) => {
            // A click or a key that moves the cursor, or typing: focus alone (Tab passing through) places nothing.
            if (update.transactions.some((tr) => tr.isUserEvent('select') || tr.isUserEvent('input') || tr.isUserEvent('delete'))) placed.current = true;
            if (update.docChanged) latest.current.onChange(update.state.doc.toString());
          }),
          theme,
        ],
      }),
    });
    view.current = editor;
    return () => {
      editor.destroy();
      view.current = null;
    };
    // The editor is made once; later values arrive through the effect below.
  }, []);

  useEffect(() => {
    const editor = view.current;
    if (!editor || editor.state.doc.toString() === value) return;
    placed.current = false;
    editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: value }, selection: { anchor: value.length } });
  }, [value]);

  useEffect(() => {
    const editor = view.current;
    if (!editor) return;
    if (!error) {
      editor.dispatch(setDiagnostics(editor.state, []));
      return;
    }
    if (editor.state.doc.toString() !== error.text) return;
    const span = errorSpan(error.text, error.offset);
    editor.dispatch(setDiagnostics(editor.state, [{ from: span.from, to: span.to, severity: 'error', message: error.message }]));
  }, [error, value]);

  useImperativeHandle(
    ref,
    () => ({
      insert(text: string) {
        const editor = view.current;
        if (!editor) return;
        const doc = editor.state.doc;
        const end = filtersEnd(doc.toString());
        const { from, to } = placed.current ? editor.state.selection.main : { from: end, to: end };
        const insertion = spacedInsertion(doc.sliceString(0, from), text, doc.sliceString(to));
        editor.dispatch({ changes: { from, to, insert: insertion.text }, selection: { anchor: from + insertion.cursor }, scrollIntoView: true });
        editor.focus();
      },
      focus() {
        view.current?.focus();
      },
    }),
    [],
  );

  return <div ref={host} className="explore-editor" />;
}
