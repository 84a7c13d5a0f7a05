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
  request(method: string, path: string, body: Buffer, headers: Record<string, string>): Promise<{ status: number; text: string }> {
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
          response.on('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
          response.on('error', reject);
        },
      );
      request.on('error', reject);
      request.end(body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
