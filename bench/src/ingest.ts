const BROWSER_AGENT =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';

import { BenchClient } from './http';
import { bytesOf } from './stats';

export interface IngestRun {
  items: number;
  seconds: number;
  itemsPerSecond: number;
  /** Request body bytes per item, as sent (the JSON of the batch divided by its items). */
  bytesPerItem: number;
}

/**
 * Sends `total` items in batches from `concurrency` clients and stops the clock when the last 202 arrives.
 * In standalone mode a 202 means the rows are committed, so this is the rate at which rows become queryable.
 * Bodies are serialised and encoded to bytes before the clock starts, so the client's own JSON and UTF-8 work is not
 * measured.
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
  const http = new BenchClient(options.url, options.concurrency);
  const client = async () => {
    while (next < bodies.length) {
      const body = bodies[next++]!;
      const response = await http.request('POST', options.path, body, headers);
      if (response.status !== 202) throw new Error(`${options.path} answered ${response.status}: ${response.text}`);
      accepted += (JSON.parse(response.text) as { accepted: number }).accepted;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: options.concurrency }, client));
  const seconds = (performance.now() - started) / 1000;
  http.close();
  if (accepted !== options.total) throw new Error(`accepted ${accepted} of ${options.total} items`);
  return { items: options.total, seconds, itemsPerSecond: options.total / seconds, bytesPerItem: bytesOf(bodies) / options.total };
}
