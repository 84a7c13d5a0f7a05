import { useEffect, useState } from 'react';
import { ApiError } from '../../api/client';
import { ErrorNotice } from '../../components/States';
import { tailUrl } from './hooks';
import { ResultsTable } from './ResultsTable';
import { mergeTail, readTailEvent, TAIL_FLUSH_MS, TAIL_MAX_ROWS } from './tail';

type Row = Record<string, unknown>;
type TailStatus = 'connecting' | 'live' | 'reconnecting' | 'paused' | 'stopped';

/**
 * New logs of a `from:logs` search as they arrive, over server-sent events. Rows that come in are collected and put
 * on screen at most every 250 ms (one render however many arrived), newest on top, the oldest beyond 1,000 dropped.
 * Pausing closes the stream: nothing is collected while paused.
 */
function useLiveTail(org: string, project: string, query: string, running: boolean, attempt: number) {
  const [rows, setRows] = useState<Row[]>([]);
  const [status, setStatus] = useState<TailStatus>('connecting');
  const [error, setError] = useState<{ code: string; message: string } | null>(null);

  useEffect(() => setRows([]), [query]);

  useEffect(() => {
    if (!running) {
      setStatus('paused');
      return;
    }
    setError(null);
    setStatus('connecting');
    const stream = new EventSource(tailUrl(org, project, query), { withCredentials: true });
    let pending: Row[][] = [];
    let pendingCount = 0;
    let timer: number | undefined;
    const flush = () => {
      timer = undefined;
      const batches = pending;
      pending = [];
      pendingCount = 0;
      setRows((current) => mergeTail(current, batches));
    };
    stream.addEventListener('open', () => {
      setStatus('live');
      setError(null);
    });
    stream.addEventListener('rows', (event) => {
      const message = readTailEvent('rows', (event as MessageEvent<string>).data);
      if (message.kind !== 'rows' || message.rows.length === 0) return;
      setError(null);
      pending.push(message.rows);
      pendingCount += message.rows.length;
      // Between two flushes only the newest 1,000 rows can reach the screen; older ones are let go at once.
      if (pendingCount > TAIL_MAX_ROWS * 2) {
        pending = [mergeTail([], pending)];
        pendingCount = pending[0]!.length;
      }
      timer ??= window.setTimeout(flush, TAIL_FLUSH_MS);
    });
    stream.addEventListener('error', (event) => {
      // The server's own `error` event: one poll failed; the stream stays open and the next poll tries again.
      if (event instanceof MessageEvent && typeof event.data === 'string') {
        const message = readTailEvent('error', event.data);
        if (message.kind === 'error') setError({ code: message.code, message: message.message });
        return;
      }
      // A dropped connection: the browser reconnects by itself unless the server refused the stream.
      setStatus(stream.readyState === EventSource.CLOSED ? 'stopped' : 'reconnecting');
      if (stream.readyState === EventSource.CLOSED) {
        setError({ code: 'TAIL_CLOSED', message: 'the live tail could not be opened or was closed by the server; press Resume to try again' });
      }
    });
    return () => {
      stream.close();
      if (timer !== undefined) window.clearTimeout(timer);
    };
  }, [org, project, query, running, attempt]);

  return { rows, status, error };
}

const STATUS_TEXT: Record<TailStatus, string> = {
  connecting: 'Connecting…',
  live: 'Live: new logs appear on top as they arrive.',
  reconnecting: 'Connection lost; reconnecting…',
  paused: 'Paused: the stream is closed and new logs are not collected. Resume to continue.',
  stopped: 'Stopped.',
};

export function LiveTail({ org, project, query }: { org: string; project: string; query: string }) {
  const [running, setRunning] = useState(true);
  const [attempt, setAttempt] = useState(0);
  const { rows, status, error } = useLiveTail(org, project, query, running, attempt);
  const stopped = running && status === 'stopped';
  return (
    <section className="explore-tail" aria-label="Live tail">
      <div className="row explore-tail-bar">
        <span className={`explore-tail-dot explore-tail-${status}`} aria-hidden="true" />
        <span role="status" aria-live="polite">
          {STATUS_TEXT[status]}
        </span>
        <span className="muted">
          {rows.length.toLocaleString()} {rows.length === 1 ? 'row' : 'rows'} (at most {TAIL_MAX_ROWS.toLocaleString()} kept)
        </span>
        <span className="topbar-spacer" />
        <button type="button" className="button button-small" onClick={() => (stopped ? setAttempt((value) => value + 1) : setRunning((value) => !value))}>
          {running && !stopped ? 'Pause' : 'Resume'}
        </button>
      </div>
      {error ? <ErrorNotice error={new ApiError(0, error.code, error.message)} /> : null}
      {rows.length === 0 ? (
        <p className="state state-empty">{running ? 'Waiting for new logs that match the query…' : 'No logs arrived while the tail was on.'}</p>
      ) : (
        <ResultsTable rows={rows} org={org} project={project} label="Live tail rows" />
      )}
    </section>
  );
}
