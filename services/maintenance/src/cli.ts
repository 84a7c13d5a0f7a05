#!/usr/bin/env node
/**
 * tlm-admin: the operator's commands, run on a running deployment through its admin endpoints (the standalone server
 * keeps its embedded stores locked, so the work happens in the server). Usage:
 *   ADMIN_TOKEN=... node services/maintenance/dist/cli.js cleanup [--url http://127.0.0.1:8080]
 *   ADMIN_TOKEN=... node services/maintenance/dist/cli.js set-plan <organization id> <free|starter|pro|team> [--url …]
 */
const USAGE = 'usage: ADMIN_TOKEN=<token> tlm-admin cleanup [--url <base url>]\n       ADMIN_TOKEN=<token> tlm-admin set-plan <organization id> <plan> [--url <base url>]\n';

/** The admin request of a command line, or undefined when it is not one. */
function requestOf(command: string | undefined, args: string[]): { method: string; path: string; body?: unknown } | undefined {
  if (command === 'cleanup' && args.length === 0) return { method: 'POST', path: '/admin/cleanup' };
  if (command === 'set-plan' && args.length === 2) return { method: 'PUT', path: `/admin/orgs/${encodeURIComponent(args[0]!)}/plan`, body: { plan: args[1] } };
  return undefined;
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const urlFlag = rest.indexOf('--url');
  const base = urlFlag >= 0 ? rest[urlFlag + 1] : (process.env['TLM_URL'] ?? `http://127.0.0.1:${process.env['PORT'] ?? '8080'}`);
  const args = urlFlag >= 0 ? rest.filter((_, index) => index !== urlFlag && index !== urlFlag + 1) : rest;
  const request = requestOf(command, args);
  const token = process.env['ADMIN_TOKEN'];
  if (!request || !base) {
    process.stderr.write(USAGE);
    return 2;
  }
  if (!token) {
    process.stderr.write('ADMIN_TOKEN is not set; start the server with ADMIN_TOKEN and pass the same value here\n');
    return 2;
  }
  const response = await fetch(new URL(request.path, base), {
    method: request.method,
    headers: { authorization: `Bearer ${token}`, ...(request.body ? { 'content-type': 'application/json' } : {}) },
    body: request.body ? JSON.stringify(request.body) : undefined,
  });
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
