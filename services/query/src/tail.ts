import type { AnalyticsStore } from '@tlm/analytics-store';
import { validationError, type Logger } from '@tlm/core';
import { compileQuery, gqlApiError, runPlan, type Guard, type Plan } from '@tlm/gql';
import type { Request, Response } from 'express';

/** How often the tail asks the store for new rows; new logs appear within about this long of being stored. */
export const TAIL_POLL_MS = 1_000;
/**
 * A row is visible to queries a little after the gateway stamped its `received_at`, once the writer has stored it;
 * each poll looks this far back and skips the rows it already sent, so a slow write is late but never lost.
 */
const TAIL_LOOKBACK_MS = 10_000;
/** Rows sent per poll at most: newest first; above 1,000 logs a second the tail shows the newest. */
export const TAIL_ROWS_PER_POLL = 1_000;
/** A comment line now and then keeps proxies from closing a quiet stream. */
const KEEP_ALIVE_MS = 15_000;

function event(res: Response, name: string, data: unknown): void {
  res.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
}

const rowKey = (row: Record<string, unknown>): string => (typeof row['id'] === 'string' ? row['id'] : JSON.stringify(row));

/** The plan of a tail: a search of logs; a bad query is refused before the stream opens, as any query is. */
function tailPlan(text: string): { query: ReturnType<typeof compileQuery>['query']; plan: Plan } {
  let compiled: ReturnType<typeof compileQuery>;
  try {
    compiled = compileQuery(text);
  } catch (error) {
    throw gqlApiError(error) ?? error;
  }
  if (compiled.plan.source.name !== 'logs' || compiled.plan.mode !== 'search') {
    throw validationError('live tail follows a search of logs, e.g. from:logs severity:error; it cannot follow other sources or aggregates');
  }
  return { query: compiled.query, plan: { ...compiled.plan, limit: TAIL_ROWS_PER_POLL } };
}

/**
 * Streams the logs a search matches as they arrive, over server-sent events: `event: rows` with `{results}` (new
 * rows, newest first, shaped as search results), `event: error` with `{error: {code, message}}` when a poll fails.
 * Rows stored before the tail started are not sent: the explorer already shows them.
 */
export async function streamTail(req: Request, res: Response, analytics: AnalyticsStore, text: string, guard: () => Guard, logger: Logger) {
  const { query, plan } = tailPlan(text);
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  res.write(`retry: ${TAIL_POLL_MS * 3}\n\n`);
  const startedAt = Date.now();
  const sent = new Map<string, number>();
  let lastWrite = Date.now();
  let timer: NodeJS.Timeout | undefined;
  let open = true;
  req.on('close', () => {
    open = false;
    clearTimeout(timer);
  });

  const poll = async () => {
    const now = Date.now();
    try {
      const answer = await runPlan(analytics, query, plan, { ...guard(), receivedAfter: new Date(Math.max(startedAt, now - TAIL_LOOKBACK_MS)) });
      const fresh = answer.data.results.filter((row) => !sent.has(rowKey(row)));
      for (const row of fresh) sent.set(rowKey(row), now);
      for (const [key, at] of sent) if (at < now - 2 * TAIL_LOOKBACK_MS) sent.delete(key);
      if (!open) return;
      if (fresh.length > 0) {
        event(res, 'rows', { results: fresh });
        lastWrite = now;
      } else if (now - lastWrite >= KEEP_ALIVE_MS) {
        res.write(': keep-alive\n\n');
        lastWrite = now;
      }
    } catch (error) {
      const apiError = gqlApiError(error);
      if (!apiError) logger.error({ err: error }, 'a live tail poll failed');
      if (open) event(res, 'error', { error: { code: apiError?.code ?? 'INTERNAL_ERROR', message: apiError?.message ?? 'the tail could not read new rows' } });
    }
    if (open) timer = setTimeout(poll, TAIL_POLL_MS);
  };
  timer = setTimeout(poll, TAIL_POLL_MS);
}
