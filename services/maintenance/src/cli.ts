#!/usr/bin/env node
/**
 * tlm-admin: runs maintenance on a running deployment through its admin endpoint (the standalone server keeps its
 * embedded stores locked, so the work happens in the server). Usage:
 *   ADMIN_TOKEN=... node services/maintenance/dist/cli.js cleanup [--url http://127.0.0.1:8080]
 */
async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const urlFlag = rest.indexOf('--url');
  const base = urlFlag >= 0 ? rest[urlFlag + 1] : (process.env['TLM_URL'] ?? `http://127.0.0.1:${process.env['PORT'] ?? '8080'}`);
  const token = process.env['ADMIN_TOKEN'];
  if (command !== 'cleanup' || !base) {
    process.stderr.write('usage: ADMIN_TOKEN=<token> tlm-admin cleanup [--url <base url>]\n');
    return 2;
  }
  if (!token) {
    process.stderr.write('ADMIN_TOKEN is not set; start the server with ADMIN_TOKEN and pass the same value here\n');
    return 2;
  }
  const response = await fetch(new URL('/admin/cleanup', base), { method: 'POST', headers: { authorization: `Bearer ${token}` } });
  process.stdout.write(`${await response.text()}\n`);
  return response.ok ? 0 : 1;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
