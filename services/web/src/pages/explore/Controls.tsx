import { useEffect, useState, type FormEvent } from 'react';
import { ErrorNotice } from '../../components/States';
import { useMenu } from '../../components/useMenu';
import { useNaturalLanguageQuery } from './hooks';
import {
  isoToLocalInput,
  localInputToIso,
  readSource,
  readTimeRange,
  setSource,
  setTimeRange,
  SOURCES,
  TIMELESS_SOURCES,
  type TimeRange,
} from './queryText';

/** Picks the source: rewrites the query's `from:` part. */
export function SourcePicker({ text, onPick }: { text: string; onPick: (text: string) => void }) {
  const source = readSource(text) ?? 'logs';
  const known = SOURCES.some((candidate) => candidate.name === source);
  return (
    <label className="explore-control">
      <span>Source</span>
      <select aria-label="Source" value={source} onChange={(event) => onPick(setSource(text, event.target.value))}>
        {known ? null : <option value={source}>{source} (unknown)</option>}
        {SOURCES.map((candidate) => (
          <option key={candidate.name} value={candidate.name} title={candidate.rows}>
            {candidate.name}
          </option>
        ))}
      </select>
    </label>
  );
}

const PRESETS = [
  { value: '15m', label: 'Last 15 minutes' },
  { value: '1h', label: 'Last hour' },
  { value: '24h', label: 'Last 24 hours' },
  { value: '7d', label: 'Last 7 days' },
];
const CUSTOM = 'custom';
const NONE = 'none';

function selectValue(range: TimeRange): string {
  if (range.kind === 'last') return `last:${range.duration}`;
  return range.kind === 'between' ? CUSTOM : NONE;
}

/** Picks the time range: rewrites the query's `last:` or `since:`/`until:` part; custom takes local times. */
export function TimeRangePicker({ text, onPick }: { text: string; onPick: (text: string) => void }) {
  const range = readTimeRange(text);
  const [customOpen, setCustomOpen] = useState(range.kind === 'between');
  const [since, setSince] = useState('');
  const [until, setUntil] = useState('');
  const timeless = TIMELESS_SOURCES.has(readSource(text) ?? 'logs');

  // The picker follows the text's range whenever it changes (typed, loaded from a link, or set by Ask): a since/until
  // range opens the custom inputs filled with it, any other closes them. Choosing "Custom…" leaves the text as it was,
  // so the inputs it opens stay open until the text's range changes.
  const rangeKey = range.kind === 'between' ? `between ${range.since ?? ''} ${range.until ?? ''}` : range.kind === 'last' ? `last ${range.duration}` : range.kind;
  useEffect(() => {
    if (range.kind !== 'between') {
      setCustomOpen(false);
      return;
    }
    setCustomOpen(true);
    setSince(isoToLocalInput(range.since));
    setUntil(isoToLocalInput(range.until));
    // Only a change of the text's range refills the inputs, not every render.
  }, [rangeKey]);

  const value = customOpen ? CUSTOM : selectValue(range);
  const presetKnown = range.kind !== 'last' || PRESETS.some((preset) => preset.value === range.duration);

  const choose = (choice: string) => {
    if (choice === CUSTOM) {
      const now = new Date();
      setSince(isoToLocalInput(new Date(now.getTime() - 3_600_000).toISOString()));
      setUntil(isoToLocalInput(now.toISOString()));
      setCustomOpen(true);
      return;
    }
    setCustomOpen(false);
    onPick(setTimeRange(text, choice === NONE ? { kind: 'none' } : { kind: 'last', duration: choice.slice('last:'.length) }));
  };

  const applyCustom = (event: FormEvent) => {
    event.preventDefault();
    const sinceIso = since ? localInputToIso(since) : undefined;
    const untilIso = until ? localInputToIso(until) : undefined;
    onPick(setTimeRange(text, sinceIso || untilIso ? { kind: 'between', since: sinceIso, until: untilIso } : { kind: 'none' }));
  };

  return (
    <div className="explore-range">
      <label className="explore-control">
        <span>Time range</span>
        <select aria-label="Time range" value={value} disabled={timeless} onChange={(event) => choose(event.target.value)}>
          {PRESETS.map((preset) => (
            <option key={preset.value} value={`last:${preset.value}`}>
              {preset.label}
            </option>
          ))}
          {presetKnown ? null : <option value={value}>Last {range.kind === 'last' ? range.duration : ''}</option>}
          <option value={CUSTOM}>Custom…</option>
          <option value={NONE}>All retained data</option>
        </select>
      </label>
      {customOpen && !timeless ? (
        <form className="explore-custom-range" onSubmit={applyCustom} aria-label="Custom time range">
          <label className="explore-control">
            <span>Since</span>
            <input type="datetime-local" value={since} onChange={(event) => setSince(event.target.value)} />
          </label>
          <label className="explore-control">
            <span>Until</span>
            <input type="datetime-local" value={until} onChange={(event) => setUntil(event.target.value)} />
          </label>
          <button type="submit" className="button">
            Apply range
          </button>
        </form>
      ) : null}
    </div>
  );
}

/** A question in plain words, answered with a GQL query that fills the editor (and runs when it is valid). */
export function NaturalLanguageBox({
  org,
  project,
  onQuery,
  mode = 'explorer',
  placeholder = 'errors on /checkout in the last 24 hours by route',
  invalidNote = 'The answer is in the editor but does not run as it is: edit it and press Run.',
}: {
  org: string;
  project: string;
  onQuery: (gql: string, valid: boolean) => void;
  mode?: 'explorer' | 'alert';
  placeholder?: string;
  invalidNote?: string;
}) {
  const [prompt, setPrompt] = useState('');
  const ask = useNaturalLanguageQuery(org, project, mode);
  const askFor = (question: string) => {
    // A prompt with no meaning for the project answers no query: the editor keeps what it holds.
    ask.mutate(question, { onSuccess: (answer) => (answer.gql ? onQuery(answer.gql, answer.valid) : undefined) });
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (prompt.trim()) askFor(prompt.trim());
  };
  const answer = ask.data;
  return (
    <form className="explore-nl" onSubmit={submit}>
      <label className="explore-nl-label">
        <span>Ask in plain words</span>
        <input
          type="text"
          value={prompt}
          maxLength={500}
          placeholder={placeholder}
          onChange={(event) => setPrompt(event.target.value)}
        />
      </label>
      <button type="submit" className="button" disabled={ask.isPending || !prompt.trim()}>
        {ask.isPending ? 'Asking…' : 'Ask'}
      </button>
      {ask.isError ? <ErrorNotice error={ask.error} /> : null}
      {answer && !answer.valid ? (
        <div className="explore-note" role="status">
          <p>
            {answer.gql ? invalidNote : 'No query answers that question.'}
            {answer.reason ? ` ${capitalised(answer.reason)}.` : null}
          </p>
          {answer.suggestions && answer.suggestions.length > 0 ? (
            <div className="explore-nl-suggestions">
              <span>Questions this project can answer:</span>
              {answer.suggestions.map((suggestion) => (
                <button
                  key={suggestion}
                  type="button"
                  className="button button-small"
                  disabled={ask.isPending}
                  onClick={() => {
                    setPrompt(suggestion);
                    askFor(suggestion);
                  }}
                >
                  {suggestion}
                </button>
              ))}
            </div>
          ) : null}
        </div>
      ) : null}
    </form>
  );
}

/** The reason as a sentence of its own: the server's reasons begin in lower case. */
const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1).replace(/\.$/, '');

/** The project's recent queries; picking one runs it again. Closes on a pick, a click or focus elsewhere, or Escape. */
export function HistoryMenu({ history, onPick }: { history: string[]; onPick: (query: string) => void }) {
  const menu = useMenu();
  return (
    <details ref={menu} className="explore-history">
      <summary>Recent queries ({history.length})</summary>
      {history.length === 0 ? (
        <p className="muted">Queries you run appear here.</p>
      ) : (
        <ul>
          {history.map((query) => (
            <li key={query}>
              <button
                type="button"
                className="explore-history-item mono"
                title={query}
                onClick={() => {
                  menu.current?.removeAttribute('open');
                  onPick(query);
                }}
              >
                {query}
              </button>
            </li>
          ))}
        </ul>
      )}
    </details>
  );
}
