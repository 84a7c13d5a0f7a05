import { useEffect, useId, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { Link, useParams } from 'react-router';
import { ApiError, postEventStream } from '../../api/client';
import { projectPath } from '../../api/hooks';
import { ErrorNotice } from '../../components/States';
import { GroupsTable } from '../explore/AggregateResults';
import { browserTimeZone } from '../../components/timeZone';
import { explorePath } from '../explore/queryText';
import { Cell, ResultsTable } from '../explore/ResultsTable';
import {
  answerSize,
  asked,
  EMPTY,
  ended,
  kept,
  parseConversation,
  settled,
  shownReply,
  SHOWN_ROWS,
  singleValue,
  STORAGE_PREFIX,
  streamed,
  type AskedQuery,
  type Conversation,
  type Turn,
} from './conversation';
import './ask.css';

/** Questions that show what the assistant reads; each is answered from any project's data. */
const EXAMPLES = ['How many error logs in the last hour?', 'Error logs by route today', 'How many events per day this week?', 'Errors by exception type this week'];

const storageKey = (project: string) => `${STORAGE_PREFIX}${project}`;

function readConversation(project: string): Conversation {
  try {
    return parseConversation(window.sessionStorage.getItem(storageKey(project)));
  } catch {
    return EMPTY;
  }
}

function writeConversation(project: string, conversation: Conversation): void {
  try {
    if (conversation.turns.length === 0) window.sessionStorage.removeItem(storageKey(project));
    else window.sessionStorage.setItem(storageKey(project), JSON.stringify(kept(conversation)));
  } catch {
    // Storage can be full or switched off: the conversation then lasts as long as the page.
  }
}

/** What a query read: one number on its own, groups or rows as a short table, and the way to the explorer. */
function QueryResult({ org, project, query }: { org: string; project: string; query: AskedQuery }) {
  const { data } = query;
  const value = singleValue(data);
  const rows = data?.results ?? [];
  return (
    <figure className="ask-query">
      <figcaption className="ask-query-head">
        <code className="ask-gql">{query.gql}</code>
        <Link to={explorePath(org, project, query.gql)} className="button button-small">
          Open in Explore
        </Link>
      </figcaption>
      {!data ? null : value !== undefined ? (
        <p className="ask-value">{typeof value === 'number' ? value.toLocaleString() : <Cell column="value" value={value} />}</p>
      ) : rows.length === 0 ? (
        <p className="muted">No rows matched.</p>
      ) : (
        <>
          {data.mode === 'aggregate' ? (
            <GroupsTable results={rows.slice(0, SHOWN_ROWS)} label={`Groups of ${query.gql}`} />
          ) : (
            <ResultsTable rows={rows.slice(0, SHOWN_ROWS)} org={org} project={project} label={`Rows of ${query.gql}`} source={data.table} />
          )}
          {answerSize(data) > SHOWN_ROWS ? (
            <p className="muted ask-more">
              The first {SHOWN_ROWS} of {answerSize(data).toLocaleString()} {data.mode === 'aggregate' ? 'groups' : 'rows'}; the explorer shows them all.
            </p>
          ) : null}
        </>
      )}
    </figure>
  );
}

function AssistantTurn({ org, project, turn, onRestart }: { org: string; project: string; turn: Extract<Turn, { role: 'assistant' }>; onRestart: () => void }) {
  const error = turn.error ? new ApiError(turn.error.status, turn.error.code, turn.error.message, turn.error.details) : undefined;
  return (
    <li className="ask-turn ask-turn-assistant" aria-busy={!turn.done}>
      <span className="visually-hidden">Assistant:</span>
      {turn.queries.map((query, index) => (
        <QueryResult key={index} org={org} project={project} query={query} />
      ))}
      {turn.text ? (
        <p className="ask-reply">
          {shownReply(
            turn.text,
            turn.queries.map((query) => query.gql),
          )}
        </p>
      ) : null}
      {!turn.done ? (
        <p className="muted" role="status">
          <span className="spinner" aria-hidden="true" /> Reading the data…
        </p>
      ) : null}
      {error ? (
        <ErrorNotice
          error={error}
          next={
            error.status === 402 ? (
              <Link to={`/orgs/${org}/usage`}>See the plan and its usage</Link>
            ) : error.status === 404 ? (
              <button type="button" className="button button-small" onClick={onRestart}>
                Start a new conversation
              </button>
            ) : (
              'Ask again.'
            )
          }
        />
      ) : turn.done && !turn.text ? (
        <p className="muted">The answer stopped before it was complete. Ask again.</p>
      ) : null}
    </li>
  );
}

/** A conversation with the project's assistant, kept in this tab for this project until a new one is started. */
function Ask({ org, project }: { org: string; project: string }) {
  const [conversation, setConversation] = useState<Conversation>(() => readConversation(project));
  const [draft, setDraft] = useState('');
  const [busy, setBusy] = useState(false);
  const abort = useRef<AbortController | null>(null);
  const end = useRef<HTMLDivElement>(null);
  const inputId = useId();

  useEffect(() => {
    if (settled(conversation)) writeConversation(project, conversation);
  }, [project, conversation]);
  useEffect(() => () => abort.current?.abort(), []);
  // The newest answer stays in view as it streams in (its queries, then its reply), above the question box.
  const last = conversation.turns.at(-1);
  const lastShape = last?.role === 'assistant' ? `${last.queries.length}:${last.text.length > 0}:${last.done}` : '';
  // A block body: browsers may answer scrollIntoView with a promise, which React would take for a cleanup.
  useEffect(() => {
    void end.current?.scrollIntoView({ block: 'nearest' });
  }, [conversation.turns.length, lastShape]);

  async function ask(message: string) {
    const text = message.trim();
    if (!text || busy) return;
    setDraft('');
    setBusy(true);
    const controller = new AbortController();
    abort.current = controller;
    const sessionId = conversation.sessionId;
    setConversation((current) => asked(current, text));
    try {
      await postEventStream(
        `${projectPath(org, project)}/ai/chat/stream`,
        { message: text, ...(sessionId ? { session_id: sessionId } : {}), time_zone: browserTimeZone() },
        (event, data) => {
          let parsed: unknown;
          try {
            parsed = JSON.parse(data);
          } catch {
            return;
          }
          setConversation((current) => streamed(current, event, parsed));
        },
        controller.signal,
      );
      setConversation((current) => ended(current));
    } catch (error) {
      if ((error as Error).name === 'AbortError') return;
      const refused = error instanceof ApiError ? error : new ApiError(0, 'NETWORK_ERROR', error instanceof Error ? error.message : String(error));
      setConversation((current) => ended(current, { status: refused.status, code: refused.code, message: refused.message, ...(refused.details ? { details: refused.details } : {}) }));
    } finally {
      // A question asked after this one was cut short owns the form now.
      if (abort.current === controller) setBusy(false);
    }
  }

  const restart = () => {
    abort.current?.abort();
    setBusy(false);
    setConversation(EMPTY);
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void ask(draft);
  };
  // Enter sends, Shift+Enter starts a new line, as in chat apps.
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      void ask(draft);
    }
  };

  return (
    <div className="ask">
      <header className="row ask-header">
        <h1>Ask AI</h1>
        <span className="topbar-spacer" />
        {conversation.turns.length > 0 ? (
          <button type="button" className="button button-small" onClick={restart}>
            New conversation
          </button>
        ) : null}
      </header>
      <p className="muted">
        Ask about this project's data in plain words: each question becomes a GQL query that runs here, shown with what it read. Follow-ups ("and by
        route?", "and yesterday?") build on the question before. Days are your time zone's. Each message spends AI chat tokens of the plan (
        <Link to={`/orgs/${org}/usage`}>Plan & usage</Link>).
      </p>
      {conversation.turns.length === 0 ? (
        <section className="panel ask-examples" aria-labelledby="ask-examples">
          <h2 id="ask-examples" className="panel-title">
            Try
          </h2>
          <ul>
            {EXAMPLES.map((example) => (
              <li key={example}>
                <button type="button" className="button" onClick={() => void ask(example)} disabled={busy}>
                  {example}
                </button>
              </li>
            ))}
          </ul>
          <p className="muted">Or about one issue or release: "why is issue 3 happening?", "what changed in release 1.2?".</p>
        </section>
      ) : (
        // A log: a screen reader reads each new turn as it is added, an answer once it is whole (aria-busy while it streams).
        <div role="log" aria-live="polite" aria-relevant="additions" aria-label="Conversation">
          <ol className="ask-turns" aria-label="Conversation">
            {conversation.turns.map((turn, index) =>
              turn.role === 'user' ? (
                <li key={index} className="ask-turn ask-turn-user">
                  <span className="visually-hidden">You:</span>
                  {turn.text}
                </li>
              ) : (
                <AssistantTurn key={index} org={org} project={project} turn={turn} onRestart={restart} />
              ),
            )}
          </ol>
        </div>
      )}
      <div ref={end} className="ask-end" />
      <form className="ask-form" onSubmit={submit}>
        <label htmlFor={inputId} className="visually-hidden">
          Your question
        </label>
        <textarea
          id={inputId}
          rows={2}
          maxLength={4_000}
          value={draft}
          placeholder="How many signups per day this week?"
          onChange={(event) => setDraft(event.target.value)}
          onKeyDown={onKeyDown}
        />
        <button type="submit" className="button button-primary" disabled={busy || draft.trim() === ''}>
          {busy ? 'Answering…' : 'Ask'}
        </button>
      </form>
    </div>
  );
}

export default function AskPage() {
  const { org = '', project = '' } = useParams();
  // A conversation is a project's: another project starts from its own.
  return <Ask key={project} org={org} project={project} />;
}
