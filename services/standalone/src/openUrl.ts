/** The address to open in a browser: a server on every interface (HOST 0.0.0.0 or ::) is at localhost here. */
export function openUrl(host: string, port: number): string {
  if (host === '' || host === '0.0.0.0' || host === '::') return `http://localhost:${port}`;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}
