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

/**
 * Logs `message` at info and runs `then` once the line has reached stdout. The destination writes asynchronously, so
 * a line written to stderr right away (start-up's line for people) could otherwise come out before it.
 */
export function infoThen(logger: Logger, fields: object, message: string, then: () => void): void {
  const destination = (logger as unknown as Record<symbol, unknown>)[pino.symbols.streamSym] as NodeJS.EventEmitter | undefined;
  if (!logger.isLevelEnabled('info') || typeof destination?.once !== 'function') {
    logger.info(fields, message);
    then();
    return;
  }
  destination.once('write', () => then());
  logger.info(fields, message);
}
