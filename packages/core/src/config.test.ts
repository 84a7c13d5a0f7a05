import { Type } from '@sinclair/typebox';
import { ConfigError, httpConfig, loadConfig, splitList } from './config';

const HttpConfig = Type.Object(httpConfig);

describe('loadConfig', () => {
  it('applies every default of httpConfig when the environment sets nothing', () => {
    expect(loadConfig(HttpConfig, {})).toEqual({
      PORT: 8080,
      HOST: '0.0.0.0',
      TRUSTED_PROXIES: 'loopback',
      LOG_LEVEL: 'info',
      SHUTDOWN_TIMEOUT_MS: 10_000,
      HEADERS_TIMEOUT_MS: 10_000,
      REQUEST_TIMEOUT_MS: 120_000,
    });
  });

  it('coerces numeric and boolean strings to the declared types', () => {
    const schema = Type.Object({
      FLUSH_INTERVAL_MS: Type.Integer({ default: 1_000 }),
      RATIO: Type.Number({ default: 0.5 }),
      ENABLED: Type.Boolean({ default: true }),
    });
    expect(loadConfig(schema, { FLUSH_INTERVAL_MS: '250', RATIO: '0.25', ENABLED: 'false' })).toEqual({
      FLUSH_INTERVAL_MS: 250,
      RATIO: 0.25,
      ENABLED: false,
    });
  });

  it('treats an empty variable as unset, so the default applies', () => {
    expect(loadConfig(HttpConfig, { PORT: '', HOST: '' })).toMatchObject({ PORT: 8080, HOST: '0.0.0.0' });
  });

  it('reads only the variables the schema declares', () => {
    const config = loadConfig(Type.Object({ HOST: httpConfig.HOST }), { HOST: '127.0.0.1', PATH: '/usr/bin', HOME: '/root' });
    expect(config).toEqual({ HOST: '127.0.0.1' });
  });

  it('fails with a ConfigError naming a malformed variable and the value it got', () => {
    const load = () => loadConfig(HttpConfig, { PORT: 'eighty' });
    expect(load).toThrow(ConfigError);
    expect(load).toThrow('invalid configuration: PORT must be integer (got "eighty")');
  });

  it('names a bad secret without echoing its value', () => {
    const schema = Type.Object({ JWT_SECRET: Type.String({ minLength: 32, secret: true }), PORT: httpConfig.PORT });
    let message = '';
    try {
      loadConfig(schema, { JWT_SECRET: 'hunter2-hunter2', PORT: 'eighty' });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toBe('invalid configuration: JWT_SECRET must NOT have fewer than 32 characters; PORT must be integer (got "eighty")');
  });

  it('names a value outside the allowed levels once, with the allowed values', () => {
    expect(() => loadConfig(HttpConfig, { LOG_LEVEL: 'loud' })).toThrow(
      'invalid configuration: LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "loud")',
    );
  });

  it('names a missing required variable', () => {
    const schema = Type.Object({ DATABASE_URL: Type.String(), PORT: httpConfig.PORT });
    expect(() => loadConfig(schema, {})).toThrow('invalid configuration: DATABASE_URL is required');
  });

  it('reports every bad variable in one error', () => {
    expect(() => loadConfig(HttpConfig, { PORT: '70000', SHUTDOWN_TIMEOUT_MS: '-1' })).toThrow(
      'invalid configuration: PORT must be <= 65535 (got "70000"); SHUTDOWN_TIMEOUT_MS must be >= 0 (got "-1")',
    );
  });

  it('gives the error the name ConfigError so startup logs say what failed', () => {
    let caught: unknown;
    try {
      loadConfig(HttpConfig, { PORT: 'x' });
    } catch (error) {
      caught = error;
    }
    expect((caught as Error).name).toBe('ConfigError');
  });
});

describe('splitList', () => {
  it('splits on commas, trims and drops empty parts', () => {
    expect(splitList(' loopback, 10.0.0.0/8 ,,uniquelocal, ')).toEqual(['loopback', '10.0.0.0/8', 'uniquelocal']);
  });

  it('returns an empty list for an unset or blank variable', () => {
    expect(splitList(undefined)).toEqual([]);
    expect(splitList('')).toEqual([]);
    expect(splitList(' , ')).toEqual([]);
  });
});
