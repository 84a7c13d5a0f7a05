import pino, { type Logger } from 'pino';

export type { Logger };

/** One JSON line per record on stdout; secrets never reach it because no call site logs headers or bodies. */
export function createLogger(service: string, level: string): Logger {
  return pino({
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
  });
}
