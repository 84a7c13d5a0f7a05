import http from 'node:http';

/**
 * A lean keep-alive HTTP client for load generation: on two cores, fetch's per-request cost would take CPU from the
 * server being measured.
 */
export class BenchClient {
  private readonly agent: http.Agent;
  private readonly target: URL;

  constructor(baseUrl: string, maxSockets: number) {
    this.target = new URL(baseUrl);
    this.agent = new http.Agent({ keepAlive: true, maxSockets });
  }

  /**
   * `body` is bytes made before the clock starts: a string body would be measured and encoded on every request, on the
   * cores the server is measured on (a 175 KB envelope of error events: about a millisecond of the client's CPU).
   */
  request(method: string, path: string, body: Buffer, headers: Record<string, string>): Promise<{ status: number; text: string; retryAfter?: number }> {
    return new Promise((resolve, reject) => {
      const request = http.request(
        {
          host: this.target.hostname,
          port: this.target.port,
          method,
          path,
          agent: this.agent,
          headers: { ...headers, 'content-length': body.length },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          const retryAfter = Number(response.headers['retry-after'] ?? Number.NaN);
          response.on('end', () =>
            resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), ...(Number.isFinite(retryAfter) ? { retryAfter } : {}) }),
          );
          response.on('error', reject);
        },
      );
      request.on('error', reject);
      request.end(body);
    });
  }

  /** `request`, sent again after the Retry-After of each 503 that names one (the server behind on storing), as SDKs do. */
  async requestRetrying(method: string, path: string, body: Buffer, headers: Record<string, string>): Promise<{ status: number; text: string; retried: number }> {
    for (let retried = 0; ; retried++) {
      const response = await this.request(method, path, body, headers);
      if (response.status !== 503 || response.retryAfter === undefined) return { status: response.status, text: response.text, retried };
      await new Promise((resolve) => setTimeout(resolve, response.retryAfter! * 1000));
    }
  }

  close(): void {
    this.agent.destroy();
  }
}

/**
 * Resolves once the standalone server's consumers of `topic` have processed everything published to it
 * (`tlm_bus_consumer_lag` 0 in every consumer group). An ingest answer comes once its items are journaled and either
 * stored or INGEST_COMMIT_WAIT_MS passed, so on a busy machine the last answer can come while rows are still being
 * written: a rate is of stored rows only when its clock runs until this resolves, and the CPU of those writes then
 * falls in the run that caused them, not the next.
 */
export async function consumersCaughtUp(url: string, topic: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let pause = 5;
  for (;;) {
    const lags = metricSamples(await (await fetch(`${url}/metrics`)).text(), 'tlm_bus_consumer_lag', `topic="${topic}"`);
    if (lags.length === 0) throw new Error(`the server reports no consumer of ${topic} in /metrics`);
    if (lags.every((lag) => lag === 0)) return;
    if (Date.now() > deadline) throw new Error(`the consumers of ${topic} were still behind after ${timeoutMs} ms: ${lags.join(', ')} messages`);
    // Each read of /metrics costs the server CPU (a DuckDB query among it): soon after the last answer, then less often.
    await new Promise((resolve) => setTimeout(resolve, pause));
    pause = Math.min(pause * 2, 50);
  }
}

/** The values of a metric's samples in /metrics text whose labels include `labels` (as written, e.g. `pending="commit"`). */
export function metricSamples(text: string, name: string, labels: string): number[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) && line.includes(labels))
    .map((line) => Number(line.slice(line.lastIndexOf(' ') + 1)));
}

/** The sum of a counter's samples whose labels include `labels`. */
export function counterSum(text: string, name: string, labels: string): number {
  return metricSamples(text, name, labels).reduce((sum, value) => sum + value, 0);
}
