const BROWSER_AGENT =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';

import { BenchClient, consumersCaughtUp } from './http';
import { bytesOf } from './stats';

export interface IngestRun {
  items: number;
  seconds: number;
  itemsPerSecond: number;
  /** Request body bytes per item, as sent (the JSON of the batch divided by its items). */
  bytesPerItem: number;
  /** From the last answer to the last row stored, when the run waited for the store (`topic`). */
  drainMs: number;
  /** Batches the server asked to send again (503 with Retry-After: it was behind on storing). */
  retried: number;
}

/**
 * Sends `total` items in batches from `concurrency` clients. With `topic` (a standalone server), the clock stops once
 * the server's consumers of that topic have stored every item (consumersCaughtUp): the rate at which rows become
 * queryable, although an answer may come before its rows are stored. Without it, at the last 202. Bodies are
 * serialised and encoded to bytes before the clock starts, so the client's own JSON and UTF-8 work is not measured.
 */
export async function ingestOverHttp(options: {
  url: string;
  key: string;
  path: string;
  makeItem: (i: number) => unknown;
  offset: number;
  total: number;
  batchSize: number;
  concurrency: number;
  /** The bus topic the items go to, whose consumers the clock waits for; a standalone server's only. */
  topic?: string;
}): Promise<IngestRun> {
  const bodies: Buffer[] = [];
  for (let start = 0; start < options.total; start += options.batchSize) {
    const batch = [];
    for (let i = start; i < Math.min(start + options.batchSize, options.total); i++) batch.push(options.makeItem(options.offset + i));
    bodies.push(Buffer.from(JSON.stringify({ batch })));
  }
  const headers = { authorization: `Bearer ${options.key}`, 'content-type': 'application/json', 'user-agent': BROWSER_AGENT };
  let next = 0;
  let accepted = 0;
  let retried = 0;
  const http = new BenchClient(options.url, options.concurrency);
  const client = async () => {
    while (next < bodies.length) {
      const body = bodies[next++]!;
      const response = await http.requestRetrying('POST', options.path, body, headers);
      retried += response.retried;
      if (response.status !== 202) throw new Error(`${options.path} answered ${response.status}: ${response.text}`);
      accepted += (JSON.parse(response.text) as { accepted: number }).accepted;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: options.concurrency }, client));
  const answered = performance.now();
  if (options.topic) await consumersCaughtUp(options.url, options.topic);
  const ended = performance.now();
  const seconds = (ended - started) / 1000;
  http.close();
  if (accepted !== options.total) throw new Error(`accepted ${accepted} of ${options.total} items`);
  return { items: options.total, seconds, itemsPerSecond: options.total / seconds, bytesPerItem: bytesOf(bodies) / options.total, drainMs: ended - answered, retried };
}
