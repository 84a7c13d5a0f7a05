import { Type, type Static, type TObject } from '@sinclair/typebox';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { StringEnum } from './validate';

/** Thrown at startup when an environment variable is missing or malformed; the message names the variable. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

const ajv = addFormats(new Ajv({ coerceTypes: true, useDefaults: true, allErrors: true, strict: false }), ['uri']);

/**
 * Reads the variables a schema declares from the environment, applies defaults and coerces types.
 * Empty strings count as unset so `FOO=` in a compose file falls back to the default. A bad value is quoted in the
 * error, except for variables whose schema says `secret: true` (keys, passwords, connection strings with them).
 */
export function loadConfig<T extends TObject>(schema: T, env: NodeJS.ProcessEnv = process.env): Static<T> {
  const raw: Record<string, unknown> = {};
  for (const name of Object.keys(schema.properties)) {
    const value = env[name];
    if (value !== undefined && value !== '') raw[name] = value;
  }
  const validate = ajv.compile(schema);
  if (!validate(raw)) {
    const problems = (validate.errors ?? []).map((error) => {
      const name = error.instancePath.replace(/^\//, '') || String(error.params['missingProperty'] ?? '');
      if (error.keyword === 'required') return `${name} is required`;
      // Secrets (marked `secret: true` in the schema) are named, never echoed into logs.
      const secret = (schema.properties[name] as { secret?: boolean } | undefined)?.secret === true;
      const got = name in raw && !secret ? ` (got ${JSON.stringify(env[name])})` : '';
      const problem =
        error.keyword === 'enum' ? `must be one of ${(error.params['allowedValues'] as unknown[]).join(', ')}` : error.message;
      return `${name} ${problem ?? 'is invalid'}${got}`;
    });
    throw new ConfigError(`invalid configuration: ${problems.join('; ')}`);
  }
  return raw as Static<T>;
}

/** Comma-separated list variable, e.g. `TRUSTED_PROXIES=loopback,10.0.0.0/8`. */
export function splitList(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part.length > 0);
}

/** Variables every HTTP service reads. */
export const httpConfig = {
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 8080, description: 'TCP port the service listens on.' }),
  HOST: Type.String({ default: '0.0.0.0', description: 'Interface the service binds to.' }),
  TRUSTED_PROXIES: Type.String({
    default: 'loopback',
    description:
      'Comma-separated proxies (IPs, CIDRs or loopback/linklocal/uniquelocal) whose X-Forwarded-For is honoured for $ip.',
  }),
  // An enum rather than a union of literals, so a bad value yields one error that lists the levels.
  LOG_LEVEL: StringEnum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
    default: 'info',
    description: 'Minimum level of the JSON log lines the service writes to stdout.',
  }),
  SHUTDOWN_TIMEOUT_MS: Type.Integer({
    minimum: 0,
    default: 10_000,
    description: 'How long SIGTERM/SIGINT wait for in-flight requests and consumers to drain before closing stores.',
  }),
  HEADERS_TIMEOUT_MS: Type.Integer({
    minimum: 1_000,
    default: 10_000,
    description: 'How long a client may take to send a request line and headers before its connection is closed (a slow client holds a socket).',
  }),
  REQUEST_TIMEOUT_MS: Type.Integer({
    minimum: 1_000,
    default: 120_000,
    description:
      'How long a client may take to send a whole request, body included (10 MiB at about 90 KB/s); answers streamed back, such as the live tail, are not bound by it.',
  }),
};
